"""The first bytes of a file, read without ever blocking: what sources sniff.

The path is opened through :func:`fsr_core.format.safe_open.open_source`
(``O_NONBLOCK | O_NOFOLLOW``, then ``fstat``), so a FIFO, a device, a socket, a
directory or a symbolic link is refused with an :class:`~fsr_core.errors.FsrError`
naming the file before a byte is read, and a FIFO cannot hang the caller.
"""

from __future__ import annotations

import os
from pathlib import Path

from fsr_core.format.safe_open import open_source

__all__ = ["HEAD_BYTES", "read_head"]

HEAD_BYTES = 64
"""How many bytes :func:`read_head` returns at most (enough for any signature)."""


def read_head(path: str | os.PathLike[str], size: int = HEAD_BYTES) -> bytes:
    """Return the first ``size`` bytes of the regular file at ``path`` (fewer if short).

    Raises
    ------
    SymlinkRefusedError
        The final path component is a symbolic link (a link loop included).
    NotRegularFileError
        The path is a FIFO, device, socket or directory.
    OpenFailedError
        Any other refusal by the operating system (missing file, permission).
    """
    source = open_source(Path(path))
    try:
        return source.read_at(0, min(size, source.size), section="header")
    finally:
        source.close()
