"""The one line a user reads about an exception, the same from every job and hook.

A data problem (:class:`~fsr_core.errors.FsrError`, or an error the caller
expects, such as an option the recording cannot satisfy) is the user's to
fix: its own text is shown, naming the file it is about. Running out of
memory is said as such. Anything else is a bug: it is logged with its
traceback and shown as ``internal error (Type: text)``, the words the command
line uses, so the user can report it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from fsr_core.errors import FsrError

__all__ = ["error_message", "naming_file"]

logger = logging.getLogger(__name__)


def naming_file(text: str, files: Sequence[Path]) -> str:
    """Return ``text`` naming a file: as is when it names one of ``files``.

    Otherwise the first file's name leads (``run.fsr: text``); with no file,
    ``text`` is returned unchanged.
    """
    if not files or any(str(path) in text or path.name in text for path in files):
        return text
    return f"{files[0].name}: {text}"


def error_message(
    exc: BaseException,
    *,
    files: Sequence[Path] = (),
    expected: tuple[type[Exception], ...] = (),
    log_unexpected: bool = True,
) -> str:
    """Return the one line to show for ``exc``, naming one of ``files``.

    Parameters
    ----------
    exc
        What was raised.
    files
        The files the failed work was about; the first is named when the
        message names none of them.
    expected
        Exception types besides :class:`FsrError` whose text is meant for the
        user (e.g. ``ValueError`` for an export option).
    log_unexpected
        Log an unexpected exception with its traceback (false when the caller
        has logged it already).
    """
    if isinstance(exc, (FsrError, *expected)):
        return naming_file(str(exc), files)
    if isinstance(exc, MemoryError):
        return naming_file("out of memory", files)
    if log_unexpected:
        where = ", ".join(str(path) for path in files) or "the window"
        logger.error("internal error (%s)", where, exc_info=exc)
    return naming_file(f"internal error ({type(exc).__name__}: {exc})", files)
