"""Growable sample arrays that keep only their newest rows in memory.

A channel followed live grows without end: a 1 kHz stream of seven joints
adds about 230 MB an hour. While an array is small it lives in memory; once
it passes :data:`SPILL_FROM_BYTES` its rows move to a file in the spill
directory (:func:`spill_directory`), mapped shared into memory, and the rows
older than the newest :data:`RESIDENT_BYTES` are handed back to the kernel
(``madvise(MADV_DONTNEED)``) as the array grows. Views of the array stay
valid and read the same values: an old row faults back in from the page
cache or the disk when a view touches it (scrubbing back), and is handed
back again at the next release.

The file is unlinked as it is made, so nothing is left behind even after a
crash, and its blocks are reserved (``posix_fallocate``) before they are
mapped, so a full disk is an error with a message, never a ``SIGBUS``. The
disk an array may take is checked against :data:`~fsr_core.budgets.LIVE_DISK`
before it grows; an array that cannot spill (no spill directory, a platform
without ``madvise``) stays in memory under the memory budget.
"""

from __future__ import annotations

import mmap
import os
import sys
import tempfile
import weakref
from pathlib import Path
from typing import IO, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import LIVE_DISK, MEMORY, check_budget
from fsr_core.errors import LimitExceededError

__all__ = [
    "RESIDENT_BYTES",
    "SPILL_DIR_VARIABLE",
    "SPILL_FROM_BYTES",
    "SpillArray",
    "spill_directory",
]

SPILL_FROM_BYTES: Final = 4 << 20
"""An array larger than this moves to its spill file."""

RESIDENT_BYTES: Final = 4 << 20
"""The newest rows of a spilled array kept in memory (about a minute of a
1 kHz seven-column channel)."""

_RELEASE_STEP: Final = 1 << 20
"""Bytes appended behind the resident rows before they are handed back."""

SPILL_DIR_VARIABLE: Final = "FSR_VIEWER_SPILL_DIR"
"""Names the directory spill files go to (default: the user's cache)."""

_CAN_SPILL: Final = (
    sys.platform.startswith("linux")
    and hasattr(mmap, "MADV_DONTNEED")
    and hasattr(os, "posix_fallocate")
)


def spill_directory() -> Path | None:
    """Return the directory live channels spill to, made if missing (None: none).

    ``$FSR_VIEWER_SPILL_DIR``, else ``fsr-viewer/live`` in the user's cache
    (``$XDG_CACHE_HOME`` or ``~/.cache``): on a disk, where ``/tmp`` may be
    memory. The system's temporary directory when neither can be made.
    """
    chosen = os.environ.get(SPILL_DIR_VARIABLE)
    if chosen:
        candidates = [Path(chosen)]
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        candidates = [Path(cache) / "fsr-viewer" / "live", Path(tempfile.gettempdir())]
    for candidate in candidates:
        try:
            candidate.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(candidate, os.W_OK | os.X_OK):
            return candidate
    return None


class SpillArray:
    """A float64 array of ``capacity`` rows that grows, spilling to disk when big.

    ``width`` ``None`` makes a 1-D array, else ``(capacity, width)``. Rows
    never written read as ``fill`` while the array is in memory; a spilled
    array's new rows are whatever the file holds, so a writer writes whole
    rows and a reader reads only the rows written.
    """

    def __init__(self, rows: int, width: int | None, what: str, fill: float) -> None:
        self._width = width
        self._what = what
        self._fill = fill
        self._file: IO[bytes] | None = None
        self._map: mmap.mmap | None = None
        self._released = 0
        self._directory: Path | None = None
        self._data: FloatArray = np.full(self._shape(rows), fill)

    @property
    def data(self) -> FloatArray:
        """The whole array, every row of its capacity (valid until it grows)."""
        return self._data

    @property
    def capacity(self) -> int:
        """Rows the array holds now."""
        return int(self._data.shape[0])

    @property
    def spilled(self) -> bool:
        """Whether the rows live in a spill file."""
        return self._map is not None

    @property
    def nbytes(self) -> int:
        """Bytes the array spans (memory, or file when spilled)."""
        return int(self._data.nbytes)

    @property
    def row_bytes(self) -> int:
        """Bytes one row takes."""
        return 8 * (self._width or 1)

    def grow(self, rows: int, kept: int) -> None:
        """Give the array room for ``rows`` rows, keeping its first ``kept`` rows."""
        if rows <= self.capacity:
            return
        size = rows * self.row_bytes
        if self._map is None and (size <= SPILL_FROM_BYTES or not _CAN_SPILL):
            check_budget(MEMORY, size, self._what)
            self._data = self._in_memory(rows, kept)
            return
        check_budget(LIVE_DISK, size, f"{self._what} (spilled to disk)")
        if self._map is None:
            self._file = self._spill_file()
            if self._file is None:
                check_budget(MEMORY, size, self._what)
                self._data = self._in_memory(rows, kept)
                return
        self._data = self._mapped(rows, kept)

    def release(self, keep_from: int) -> None:
        """Hand the rows before ``keep_from`` back to the kernel (still readable).

        Does nothing for an array in memory, or until a step's worth of rows
        lies behind the last release.
        """
        if self._map is None:
            return
        end = keep_from * self.row_bytes
        if end - self._released < _RELEASE_STEP:
            return
        end -= end % mmap.PAGESIZE
        if end > 0:
            self._map.madvise(mmap.MADV_DONTNEED, 0, end)
        self._released = end

    def _shape(self, rows: int) -> tuple[int, ...]:
        return (rows,) if self._width is None else (rows, self._width)

    def _in_memory(self, rows: int, kept: int) -> FloatArray:
        grown = np.full(self._shape(rows), self._fill)
        grown[:kept] = self._data[:kept]
        return grown

    def _spill_file(self) -> IO[bytes] | None:
        directory = spill_directory()
        if directory is None:
            return None
        try:
            # Kept open for the array's life, closed by the finalizer below.
            spill = tempfile.TemporaryFile(dir=directory, prefix="fsr-live-")  # noqa: SIM115
        except OSError:
            return None
        self._directory = directory
        weakref.finalize(self, spill.close)  # the mappings hold their own
        return spill

    def _mapped(self, rows: int, kept: int) -> FloatArray:
        """Map ``rows`` rows of the spill file; move the rows from memory first.

        New rows are not filled (that would make them resident): the caller
        writes whole rows. The old mapping, still read by older views, is
        handed back whole.
        """
        assert self._file is not None
        size = rows * self.row_bytes
        try:
            os.posix_fallocate(self._file.fileno(), 0, size)
        except OSError as exc:
            raise LimitExceededError(
                f"{self._what}: no room to spill {size:,} bytes to "
                f"{self._directory} ({exc.strerror}); set {SPILL_DIR_VARIABLE} "
                "to a directory with room"
            ) from exc
        mapped = mmap.mmap(self._file.fileno(), size, access=mmap.ACCESS_WRITE)
        data: FloatArray = np.frombuffer(mapped, dtype=np.float64).reshape(
            self._shape(rows)
        )
        if self._map is None:
            data[:kept] = self._data[:kept]
        else:
            self._map.madvise(mmap.MADV_DONTNEED)
        self._map = mapped
        self._released = 0
        return data
