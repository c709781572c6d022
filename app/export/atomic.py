"""Atomic export output (HOSTILE.md W14, U11, U12).

The encoder writes into ``.<name>.partial`` in the target folder. Only a
complete file is published: ``fsync`` → hard link to the final name (never
overwriting) → ``fsync`` of the folder → removal of the partial name. With
``overwrite=True`` an existing final file is replaced in one step instead
(``os.replace`` of the partial name), so readers see the old file or the new
one, never a mixture. On cancel or error the partial file is deleted, so a file
browser never shows a final-named file that does not play (an MP4 without its
``moov`` atom).
"""

from __future__ import annotations

import errno as errno_codes
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from fsr_core.errors import TargetExistsError, WriteFailedError
from fsr_core.format.file_ops import FileOps

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
        Creating, writing, syncing or publishing failed; nothing is left then.
    """
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
        try:
            fd = file_ops.create(staging, dir_fd)
        except TargetExistsError as exc:
            raise TargetExistsError(
                f"{staging} exists: another export is writing this file, or one "
                "was killed (remove it and retry)",
                path=final,
            ) from exc
        try:
            with os.fdopen(fd, "w+b", closefd=False) as handle:
                yield handle
                _flush(handle, final)
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
            free = f"{shutil.disk_usage(final.parent).free / 1e6:.1f} MB free"
        except OSError:
            free = "free space unknown"
        need = (
            ""
            if needed_bytes is None
            else f", about {needed_bytes / 1e6:.1f} MB needed"
        )
        reason += f" ({free} in {final.parent}{need})"
    return WriteFailedError(reason, errno=exc.errno, path=final)
