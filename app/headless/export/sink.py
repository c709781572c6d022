"""The file an encoder writes through, keeping the real cause of a failed write.

PyAV calls ``write``, ``seek`` and ``tell`` of a Python file from its own C
code; when one of them raises (a full disk, a file-size limit, an I/O error)
FFmpeg only hears a failed callback, and the export would end with a bare
"Error in PyAV callback". :class:`WriteSink` passes every call through to the
real file and remembers the first :class:`OSError`, so the export can say what
happened (docs/robustness.md, U12: ENOSPC with the free space and the size
needed).
"""

from __future__ import annotations

import os
from typing import BinaryIO

__all__ = ["WriteSink"]


class WriteSink:
    """A binary file wrapper that remembers the first ``OSError`` it raised."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self.error: OSError | None = None

    def _failed(self, exc: OSError) -> None:
        if self.error is None:
            self.error = exc

    def write(self, data: bytes) -> int:
        """Write ``data``; a failure is remembered and raised.

        Once a write has failed the export is lost: later writes (the muxer
        still flushes its buffer and trailer) write nothing and raise nothing,
        so PyAV keeps the first error instead of printing it as "dropped".
        """
        if self.error is not None:
            return 0
        try:
            return self._handle.write(data)
        except OSError as exc:
            self._failed(exc)
            raise

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """Move to ``offset`` (the MP4 muxer goes back to patch its header).

        After a failed write nothing moves (seeking would flush the buffer that
        failed once more); the position asked for is returned.
        """
        if self.error is not None:
            return offset if whence == os.SEEK_SET else self._handle.tell()
        try:
            return self._handle.seek(offset, whence)
        except OSError as exc:
            self._failed(exc)
            raise

    def tell(self) -> int:
        """Return the current position."""
        return self._handle.tell()

    def seekable(self) -> bool:
        """Say whether the file can seek (the partial file is a regular one)."""
        return self._handle.seekable()

    def flush(self) -> None:
        """Flush the underlying file's buffer; a failure is remembered."""
        try:
            self._handle.flush()
        except OSError as exc:
            self._failed(exc)
            raise
