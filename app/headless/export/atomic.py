"""Atomic export output (docs/robustness.md, faults W14, U11, U12).

The encoder writes into ``.<name>.partial`` in the target folder. Only a
complete file is published: ``fsync`` → hard link to the final name (never
overwriting) → ``fsync`` of the folder → removal of the partial name. With
``overwrite=True`` an existing final file is replaced in one step instead
(``os.replace`` of the partial name), so readers see the old file or the new
one, never a mixture. On cancel or error the partial file is deleted, so a file
browser never shows a final-named file that does not play (an MP4 without its
``moov`` atom). The export holds a lock on its partial file, so one killed
half-way (SIGKILL, power loss) leaves a partial file that the next export of
the same target recognises as stale and replaces.
"""

from __future__ import annotations

import contextlib
import errno as errno_codes
import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from fsr_core.errors import TargetExistsError, WriteFailedError
from fsr_core.format.file_ops import FileOps
from fsr_core.output_paths import check_output_path

__all__ = ["atomic_output", "partial_name"]


def partial_name(final: Path) -> str:
    """Return the staging name of ``final``: ``.<name>.partial``."""
    return f".{final.name}.partial"


@contextmanager
def atomic_output(
    final: Path, *, ops: FileOps | None = None, overwrite: bool = False
) -> Iterator[BinaryIO]:
    """Give a seekable binary file that appears at ``final`` only on success.

    ``overwrite=True`` replaces an existing ``final`` atomically when the new
    file is complete; until then the old file stays untouched.

    Raises
    ------
    TargetExistsError
        ``final`` exists already and ``overwrite`` is false, or another export
        is writing the same partial file.
    WriteFailedError
        ``final`` is not a regular file (a folder, FIFO, device, socket or a
        link loop: never replaced, even with ``overwrite``), or creating,
        writing, syncing or publishing failed; nothing is left then.
    """
    check_output_path(final, overwrite=overwrite, hint=" (use --overwrite)")
    file_ops = ops or FileOps()
    folder = final.parent
    staging = partial_name(final)
    dir_fd = file_ops.open_dir(str(folder))
    try:
        if final.is_dir():
            raise WriteFailedError("the output is a folder", path=final)
        if not overwrite and file_ops.exists(final.name, dir_fd):
            raise TargetExistsError(
                "file already exists; it is never overwritten (use --overwrite)",
                path=final,
            )
        fd = _create_staging(file_ops, staging, dir_fd, final)
        try:
            handle = os.fdopen(fd, "w+b", closefd=False)
            try:
                yield handle
                _flush(handle, final)
            except BaseException:
                # Closing flushes the buffer, which fails again on a full
                # disk; what it held goes with the partial file anyway.
                with contextlib.suppress(OSError):
                    handle.close()
                raise
            handle.close()
            file_ops.fsync(fd, str(final))
            if overwrite:
                _replace(staging, final, dir_fd)
            else:
                file_ops.link(staging, final.name, dir_fd)
            try:
                file_ops.fsync(dir_fd, str(folder))
            except WriteFailedError:
                # A replaced file is complete and the old one is gone: keep it.
                if not overwrite:
                    file_ops.unlink(final.name, dir_fd)
                raise
        finally:
            file_ops.close(fd)
            file_ops.unlink(staging, dir_fd)
    finally:
        file_ops.close(dir_fd)


def _create_staging(file_ops: FileOps, staging: str, dir_fd: int, final: Path) -> int:
    """Create the partial file and hold its lock while the export writes.

    A partial file left by an export that was killed (its lock died with it)
    is removed and created afresh; one whose export still runs is refused.
    """
    for attempt in range(2):
        try:
            fd = file_ops.create(staging, dir_fd)
        except TargetExistsError as exc:
            if attempt == 0 and _remove_if_stale(staging, dir_fd):
                continue
            raise TargetExistsError(
                f"{staging} exists: another export is writing this file",
                path=final,
            ) from exc
        # A filesystem without locks: the name alone guards the file then.
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    raise AssertionError("unreachable")  # pragma: no cover


def _remove_if_stale(staging: str, dir_fd: int) -> bool:
    """Remove ``staging`` when no export holds its lock; return whether it did."""
    try:
        fd = os.open(staging, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # its export is still writing
        # Still the same file under that name (not a newer export's)?
        here = os.stat(staging, dir_fd=dir_fd, follow_symlinks=False)
        held = os.fstat(fd)
        if (here.st_dev, here.st_ino) != (held.st_dev, held.st_ino):
            return False
        os.unlink(staging, dir_fd=dir_fd)
    except OSError:
        return False
    else:
        return True
    finally:
        os.close(fd)


def _replace(staging: str, final: Path, dir_fd: int) -> None:
    """Move the partial file over ``final`` in one rename (replacing it)."""
    try:
        os.replace(staging, final.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError as exc:
        raise write_failed(exc, final) from exc


def _flush(handle: BinaryIO, final: Path) -> None:
    try:
        handle.flush()
    except OSError as exc:
        raise write_failed(exc, final) from exc


def write_failed(
    exc: OSError, final: Path, *, needed_bytes: int | None = None
) -> WriteFailedError:
    """Describe an I/O failure while exporting to ``final``.

    When the disk is full the message gives the free space and, when known,
    an estimate of the size the whole export needs.
    """
    reason = f"export failed: {exc.strerror or exc}"
    if exc.errno == errno_codes.ENOSPC:
        try:
            free = f"{_size_text(shutil.disk_usage(final.parent).free)} free"
        except OSError:
            free = "free space unknown"
        need = (
            "" if needed_bytes is None else f", about {_size_text(needed_bytes)} needed"
        )
        reason += f" ({free} in {final.parent}{need})"
    return WriteFailedError(reason, errno=exc.errno, path=final)


def _size_text(size_bytes: int) -> str:
    """Return a byte count as a person reads it: 0 B, 312 KB, 4.2 MB, 1.07 GB."""
    if size_bytes < 1000:
        return f"{size_bytes} B"
    if size_bytes < 1_000_000:
        return f"{size_bytes / 1e3:.0f} KB"
    if size_bytes < 1_000_000_000:
        return f"{size_bytes / 1e6:.1f} MB"
    return f"{size_bytes / 1e9:.2f} GB"
