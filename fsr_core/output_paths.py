"""The one check of an output path, made before any work (docs/robustness.md, Outputs).

Every command and library call that writes a file asks :func:`check_output_path`
first, so a bad output is refused at once with one line naming it:

- an output that *is* an input (the same path once symbolic links are
  resolved, or the same file under another name: a hard link or a symbolic
  link to it, compared by ``st_dev``/``st_ino``) is refused with or without
  ``overwrite`` (:class:`OutputIsInputError`);
- an output that exists but is not a regular file (a folder, a FIFO, a
  device such as ``/dev/full``, a socket), or whose symbolic link points at
  one, or a symbolic link loop, is refused before anything could block on it
  or replace it (:class:`OutputNotFileError`);
- an output whose folder is missing, is not a folder or cannot be written
  is refused before the work starts;
- an existing output is refused unless ``overwrite`` (:class:`TargetExistsError`).

Only ``stat`` calls are made: nothing is opened, so a FIFO cannot block.
"""

from __future__ import annotations

import errno as errno_codes
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from fsr_core.errors import TargetExistsError, WriteFailedError

__all__ = [
    "OutputIsInputError",
    "OutputNotFileError",
    "check_output_folder",
    "check_output_path",
    "prepare_output_folder",
    "same_file",
]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class OutputIsInputError(WriteFailedError):
    """The output names an input file (itself, a hard link or a symbolic link)."""


class OutputNotFileError(WriteFailedError):
    """The output exists and is not a regular file, or its folder is unusable."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _identity(path: Path) -> tuple[int, int] | None:
    """Return ``(st_dev, st_ino)`` of what ``path`` names (links followed)."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _resolved(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path.absolute())


def same_file(output: str | os.PathLike[str], source: str | os.PathLike[str]) -> bool:
    """Say whether ``output`` names the file ``source`` (path, hard or soft link)."""
    out, src = Path(output), Path(source)
    if _resolved(out) == _resolved(src):
        return True
    mine = _identity(out)
    return mine is not None and mine == _identity(src)


def check_output_folder(
    folder: str | os.PathLike[str], *, what: str = "output"
) -> None:
    """Refuse a folder to write into that is missing, not a folder or read-only.

    Raises
    ------
    OutputNotFileError
        The folder does not exist, is not a folder, or cannot be written.
    """
    path = Path(folder)
    try:
        info = path.stat()
    except OSError as exc:
        raise OutputNotFileError.from_os_error(
            f"cannot open {what} folder", exc, path, then="; nothing was written"
        ) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise OutputNotFileError(
            f"cannot open {what} folder: it is {_kind(info.st_mode)}, not a folder",
            errno=errno_codes.ENOTDIR,
            path=path,
        )
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputNotFileError(
            f"cannot write in {what} folder: it is read-only (permission denied)",
            errno=errno_codes.EACCES,
            path=path,
        )


def prepare_output_folder(
    folder: str | os.PathLike[str], *, what: str = "output"
) -> None:
    """Create ``folder`` (and its parents) if missing; refuse an unusable one.

    Raises
    ------
    OutputNotFileError
        Something that is not a folder has that name (a file, FIFO, device),
        the folder cannot be created, or it cannot be written.
    """
    path = Path(folder)
    if not os.path.lexists(path):
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputNotFileError.from_os_error(
                f"cannot create the {what} folder", exc, path
            ) from exc
    check_output_folder(path, what=what)


def _existing(output: Path) -> os.stat_result | None:
    """``lstat`` ``output``; ``None`` when nothing has that name."""
    try:
        return os.lstat(output)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ENOTDIR, ELOOP in a parent, EACCES ...
        raise OutputNotFileError.from_os_error(
            "cannot use the output", exc, output
        ) from exc


def _target(output: Path, link: os.stat_result) -> os.stat_result | None:
    """Return what ``output`` names, a link followed (``None`` if dangling)."""
    if not stat.S_ISLNK(link.st_mode):
        return link
    try:
        return output.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno_codes.ELOOP:
            raise OutputNotFileError(
                "the output is a symbolic link loop", errno=exc.errno, path=output
            ) from exc
        raise OutputNotFileError.from_os_error(
            "cannot use the output", exc, output
        ) from exc


def check_output_path(
    output: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str]] = (),
    *,
    overwrite: bool = False,
    hint: str = "",
) -> None:
    """Refuse ``output`` before any work when it cannot be written as a new file.

    ``inputs`` are the files the command reads: the output may be none of
    them, whatever ``overwrite`` says. ``hint`` ends the "already exists"
    message (``" (use --overwrite)"``).

    Raises
    ------
    OutputIsInputError
        ``output`` is one of ``inputs`` (same path, hard link or symbolic link).
    OutputNotFileError
        ``output`` is a folder, FIFO, device, socket, a link to one or a link
        loop; or its folder is missing, not a folder, or read-only.
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    """
    path = Path(output)
    for source in inputs:
        if same_file(path, source):
            raise OutputIsInputError(
                f"the output is the input {Path(source)}; choose another name "
                "(an input is never replaced, not even with --overwrite)",
                path=path,
            )
    link = _existing(path)
    if link is None:
        check_output_folder(path.parent)
        return
    target = _target(path, link)
    if target is not None and not stat.S_ISREG(target.st_mode):
        raise OutputNotFileError(
            f"the output is {_kind(target.st_mode)}, not a regular file; "
            "give a file name",
            path=path,
        )
    if not overwrite:
        raise TargetExistsError(
            f"file already exists; it is never overwritten{hint}", path=path
        )
    check_output_folder(path.parent)
