"""rerun-sdk: whether it is installed, its version, and its errors as ours.

rerun-sdk is imported only here and only when a file gets as far as being
opened: the registry imports every source, and a command on another kind of
file must not pay for loading it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Final, TypeVar

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    OpenFailedError,
    SourceUnavailableError,
    TruncatedFileError,
)

__all__ = [
    "RERUN_EXTRA",
    "reading",
    "rerun_chunk",
    "rerun_missing",
    "rerun_version",
]

RERUN_EXTRA: Final = "the 'rerun-sdk' package (pip install 'fsr-viewer[rerun]')"
"""What to install, as the messages say it."""

_T = TypeVar("_T")
_MAX_SHOWN: Final = 240
_CUT_HINTS: Final = ("exceeds file size", "unexpected end", "UnexpectedEof", "eof")


def rerun_missing() -> str | None:
    """Return what to install when rerun-sdk is missing, else ``None``."""
    try:
        metadata.version("rerun-sdk")
    except metadata.PackageNotFoundError:
        return RERUN_EXTRA
    return None


def rerun_version() -> str:
    """Return the installed rerun-sdk's version ('' when it is missing)."""
    try:
        return metadata.version("rerun-sdk")
    except metadata.PackageNotFoundError:
        return ""


def rerun_chunk(path: Path) -> ModuleType:
    """Return ``rerun.chunk`` (the RRD reader), imported on first use.

    Raises
    ------
    SourceUnavailableError
        rerun-sdk is not installed, or too old to have ``rerun.chunk``.
    """
    # rerun-sdk's Rust side logs what it recovers from (a damaged schema
    # version) straight to the process's stderr; the report says what matters,
    # so it stays quiet unless the user asks for its log.
    os.environ.setdefault("RUST_LOG", "off")
    try:
        import rerun.chunk as chunk
    except ImportError as exc:
        raise SourceUnavailableError(
            f"reading a Rerun recording needs {RERUN_EXTRA}: {exc}", path=path
        ) from None
    return chunk


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def as_project_error(exc: Exception, path: Path, what: str) -> FsrError:
    """Return rerun-sdk's ``exc`` as the project's error, in one line."""
    text = _one_line(exc)
    if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
        return OpenFailedError(f"{what}: {text}", path=path)
    if any(hint.lower() in text.lower() for hint in _CUT_HINTS):
        return TruncatedFileError(f"{what}: the file is cut short ({text})", path=path)
    return CorruptRecordError(f"{what}: rerun-sdk refused it ({text})", path=path)


@contextmanager
def reading(path: Path, what: str) -> Iterator[None]:
    """Run rerun-sdk's reading inside; each of its exceptions becomes ours.

    Its warnings (a file without a manifest) are kept out of the output: the
    report says what they would.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    except FsrError:
        raise
    except (MemoryError, RecursionError) as exc:
        raise CorruptRecordError(
            f"{what}: rerun-sdk ran out of resources ({type(exc).__name__})",
            path=path,
        ) from None
    except Exception as exc:  # noqa: BLE001 - rerun-sdk raises plain Rust errors
        raise as_project_error(exc, path, what) from None
    except BaseException as exc:  # a Rust panic surfaces as PanicException
        if type(exc).__name__ != "PanicException":
            raise
        raise CorruptRecordError(
            f"{what}: rerun-sdk failed on it ({_one_line(exc)})", path=path
        ) from None


def read(path: Path, what: str, call: Callable[[], _T]) -> _T:
    """Return ``call()`` run under :func:`reading`."""
    with reading(path, what):
        return call()
