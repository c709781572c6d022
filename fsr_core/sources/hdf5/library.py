"""The ``h5py`` library: whether it is here, and its errors as the project's.

Every module of the HDF5 source that needs ``h5py`` opens files through
:func:`open_h5`, so a missing package is one line naming the extra to
install, and whatever the HDF5 library raises on a damaged file (a cut
superblock, a broken B-tree, a chunk that does not decompress) becomes one
:class:`~fsr_core.errors.FsrError` naming the file, never a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    OpenFailedError,
    TruncatedFileError,
)
from fsr_core.sources.toolkit.optional_packages import missing_hint, require_module

__all__ = ["INSTALL_HINT", "h5_errors", "h5py_missing", "open_h5"]

INSTALL_HINT: Final = "the 'h5py' package (pip install 'fsr-viewer[hdf5]')"


def h5py_missing() -> str | None:
    """Return what to install when ``h5py`` cannot be imported, else ``None``."""
    return missing_hint(INSTALL_HINT, "h5py")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


@contextlib.contextmanager
def h5_errors(path: Path, what: str) -> Iterator[None]:
    """Turn what h5py raises while doing ``what`` into one project error.

    Raises
    ------
    FsrError
        ``what`` failed: the HDF5 library refused the file or one of its
        objects (the message names the file and the library's first line).
    """
    try:
        yield
    except FsrError:
        raise
    except MemoryError:
        raise CorruptRecordError(
            f"{what}: the HDF5 library ran out of memory", path=path
        ) from None
    except (OSError, KeyError, ValueError, RuntimeError, TypeError) as exc:
        detail = _first_line(exc)
        if "truncated" in detail.lower() or "eof" in detail.lower():
            raise TruncatedFileError(
                f"{what}: the file is cut short ({detail})", path=path
            ) from None
        raise CorruptRecordError(f"{what}: {detail}", path=path) from None


def open_h5(path: Path) -> Any:
    """Return ``path`` opened read-only with h5py (an ``h5py.File``).

    Raises
    ------
    SourceUnavailableError
        h5py is not installed (the message names the extra).
    OpenFailedError
        The file is missing or unreadable.
    TruncatedFileError, CorruptRecordError
        The HDF5 library cannot read its superblock or root group.
    """
    h5py = require_module(
        "h5py", hint=INSTALL_HINT, doing="reading HDF5 datasets", path=path
    )
    if not path.is_file():
        raise OpenFailedError("no such file", path=path)
    with h5_errors(path, "not a readable HDF5 file"):
        return h5py.File(path, "r", locking=False)
