"""The record index of an open file: held in memory, or read from it on demand.

Every record has a 64-byte index entry. A one-hour recording with a 1 kHz
stream has millions of them, so holding the index costs hundreds of
megabytes: more than everything else the viewer keeps. A small index (at
most :attr:`~fsr_core.format.limits.ReaderLimits.resident_index_bytes`) is
held in memory; a larger one stays in the file's footer and is read a block
of :data:`BLOCK_ROWS` entries at a time, with the last :data:`CACHED_BLOCKS`
blocks kept. Each block's CRC-32 is taken when the index is checked at
open, and a block read later must have it again, so an index changed on
disk after its checks is refused (``CorruptRecordError``), never trusted.

Everything derived per record (a record's batch and file offset, a stream's
rows) is computed from the batch directory, a few numbers per batch, when
asked. Callers get entries as the same structured arrays either way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from fsr_core.checksums import crc32
from fsr_core.errors import CorruptRecordError
from fsr_core.format.index_columns import RowColumns
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.records import BATCH_HEADER_SIZE, ENTRY_DTYPE, ENTRY_SIZE
from fsr_core.format.safe_open import ByteSource

__all__ = ["BLOCK_ROWS", "CACHED_BLOCKS", "RecordIndex", "SeqSelection", "index_crcs"]

BLOCK_ROWS = 1024
"""Entries per block read from the file (64 KiB); each block has its own CRC."""

CACHED_BLOCKS = 256
"""Blocks kept after a single-block read (16 MiB at most)."""

RUN_BLOCKS = 64
"""Most blocks read in one call when a request spans many (4 MiB)."""

DIGEST_SIZE = 32

#: Which records of a stream: a slice or an array of sequence numbers.
SeqSelection = slice | np.ndarray


class RecordIndex:
    """The index entries of a file, by row, with each stream's rows and offsets.

    Make one with :meth:`resident` (entries in memory) or :meth:`on_disk`
    (entries in the file at ``offset``, checked block by block).
    """

    def __init__(
        self,
        directory: np.ndarray,
        profile: IntegrityProfile,
        stream_count: int,
        count: int,
    ) -> None:
        self.directory = directory
        self._count = count
        self._first_rows = directory["first_row"].astype(np.int64)
        self._counts = directory["record_count"].astype(np.int64)
        body_starts = (
            directory["offset"].astype(np.int64)
            + BATCH_HEADER_SIZE
            + self._counts * ENTRY_SIZE
        )
        if profile is IntegrityProfile.STRONG:
            body_starts = body_starts + self._counts * DIGEST_SIZE
        self._body_starts = body_starts
        ids = directory["stream_id"].astype(np.int64)
        self._stream_batches = [
            np.flatnonzero(ids == stream_id) for stream_id in range(stream_count)
        ]
        self._stream_ends = [
            np.cumsum(self._counts[batches]) for batches in self._stream_batches
        ]
        self._entries: np.ndarray | None = None
        self._offset = 0
        self._block_crcs: np.ndarray | None = None
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- making
    @classmethod
    def resident(
        cls,
        entries: np.ndarray,
        directory: np.ndarray,
        profile: IntegrityProfile,
        stream_count: int,
    ) -> RecordIndex:
        """Return an index held in memory as ``entries``."""
        made = cls(directory, profile, stream_count, len(entries))
        made._entries = entries
        return made

    @classmethod
    def on_disk(
        cls,
        offset: int,
        block_crcs: np.ndarray,
        count: int,
        directory: np.ndarray,
        profile: IntegrityProfile,
        stream_count: int,
    ) -> RecordIndex:
        """Return an index of ``count`` entries read from the file at ``offset``.

        ``block_crcs`` holds the CRC-32 of each block of :data:`BLOCK_ROWS`
        entries (the last may be shorter), as taken when the index was checked.
        """
        made = cls(directory, profile, stream_count, count)
        made._offset = offset
        made._block_crcs = block_crcs
        return made

    @property
    def in_memory(self) -> bool:
        """Whether the entries are held in memory (not read from the file)."""
        return self._entries is not None

    @property
    def file_offset(self) -> int | None:
        """Where the entries start in the file, when they are read from it."""
        return None if self._entries is not None else self._offset

    @property
    def nbytes(self) -> int:
        """Memory this index holds: the entries if resident, else cache and tables."""
        tables = (
            self._first_rows.nbytes
            + self._counts.nbytes
            + self._body_starts.nbytes
            + sum(part.nbytes for part in self._stream_batches)
            + sum(part.nbytes for part in self._stream_ends)
        )
        if self._entries is not None:
            return int(self._entries.nbytes + tables)
        assert self._block_crcs is not None
        cached = len(self._cache) * BLOCK_ROWS * ENTRY_SIZE
        return int(tables + self._block_crcs.nbytes + cached)

    def __len__(self) -> int:
        """Return the number of entries."""
        return self._count

    # ----------------------------------------------------------------- rows
    def stream_length(self, stream_id: int) -> int:
        """Return how many records stream ``stream_id`` has."""
        ends = self._stream_ends[stream_id]
        return int(ends[-1]) if len(ends) else 0

    def stream_rows(
        self, stream_id: int, seqs: SeqSelection | None = None
    ) -> np.ndarray:
        """Return the index rows of records ``seqs`` (default: all) of a stream.

        Raises ``IndexError`` for a sequence number out of range, as indexing
        an array of the stream's rows would.
        """
        batches = self._stream_batches[stream_id]
        ends = self._stream_ends[stream_id]
        length = int(ends[-1]) if len(ends) else 0
        if seqs is None or (isinstance(seqs, slice) and seqs == slice(None)):
            sizes = self._counts[batches]
            # Row i of the stream lies in batch b: first_row[b] + (i - rows before b).
            shift = np.repeat(self._first_rows[batches] - (ends - sizes), sizes)
            every: np.ndarray = np.arange(length, dtype=np.int64) + shift
            return every
        if isinstance(seqs, slice):
            wanted = np.arange(*seqs.indices(length), dtype=np.int64)
        else:
            wanted = np.asarray(seqs).astype(np.int64, copy=True).reshape(-1)
            wanted[wanted < 0] += length
            if len(wanted) and (int(wanted.min()) < 0 or int(wanted.max()) >= length):
                raise IndexError(
                    f"record out of range for a stream of {length} records"
                )
        at = np.searchsorted(ends, wanted, side="right")
        mine = batches[at]
        rows: np.ndarray = (
            self._first_rows[mine] + wanted - (ends[at] - self._counts[mine])
        )
        return rows

    def batch_of(self, rows: np.ndarray) -> np.ndarray:
        """Return the batch of each of ``rows``."""
        found: np.ndarray = (
            np.searchsorted(self._first_rows, np.asarray(rows, np.int64), "right") - 1
        )
        return found

    def record_offsets(self, entries: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Return the file offset of each of ``rows``, given their ``entries``."""
        offsets: np.ndarray = self._body_starts[self.batch_of(rows)] + entries[
            "body_offset"
        ].astype(np.int64)
        return offsets

    # -------------------------------------------------------------- entries
    def take(self, rows: np.ndarray, source: ByteSource) -> np.ndarray:
        """Return the entries at ``rows`` (a new array, in the order given)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if self._entries is not None:
            found: np.ndarray = np.take(self._entries, rows)
            return found
        if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= self._count):
            raise IndexError(f"row out of range for an index of {self._count}")
        order = None
        if len(rows) > 1 and bool((rows[1:] < rows[:-1]).any()):
            order = np.argsort(rows, kind="stable")
            rows = rows[order]
        out = np.empty(len(rows), dtype=ENTRY_DTYPE)
        start = 0
        while start < len(rows):
            first_block = int(rows[start]) // BLOCK_ROWS
            limit = (first_block + RUN_BLOCKS) * BLOCK_ROWS
            stop = int(np.searchsorted(rows, limit, side="left"))
            last_block = int(rows[stop - 1]) // BLOCK_ROWS
            span = self._blocks(first_block, last_block + 1, source)
            out[start:stop] = np.take(span, rows[start:stop] - first_block * BLOCK_ROWS)
            start = stop
        if order is None:
            return out
        placed = np.empty_like(out)
        placed[order] = out
        return placed

    def span(self, first: int, stop: int, source: ByteSource) -> np.ndarray:
        """Return the entries of rows ``first .. stop - 1`` (read-only)."""
        stop = min(stop, self._count)
        if self._entries is not None:
            part: np.ndarray = self._entries[first:stop]
            return part
        if stop <= first:
            return np.zeros(0, dtype=ENTRY_DTYPE)
        first_block = first // BLOCK_ROWS
        last_block = (stop - 1) // BLOCK_ROWS
        if last_block - first_block < RUN_BLOCKS:
            blocks = self._blocks(first_block, last_block + 1, source)
            base = first_block * BLOCK_ROWS
            return blocks[first - base : stop - base]
        return self.take(np.arange(first, stop, dtype=np.int64), source)

    def entry(self, row: int, source: ByteSource) -> np.void:
        """Return the entry of one row."""
        if self._entries is not None:
            found: np.void = self._entries[row]
            return found
        if not 0 <= row < self._count:
            raise IndexError(f"row {row} out of range for an index of {self._count}")
        block = row // BLOCK_ROWS
        entry: np.void = self._blocks(block, block + 1, source)[
            row - block * BLOCK_ROWS
        ]
        return entry

    def column(self, key: str, rows: np.ndarray, source: ByteSource) -> np.ndarray:
        """Return field ``key`` of the entries at ``rows``."""
        if self._entries is not None:
            found: np.ndarray = np.take(self._entries[key], rows)
            return found
        column: np.ndarray = self.take(rows, source)[key]
        return np.ascontiguousarray(column)

    def columns(self, rows: np.ndarray, source: ByteSource) -> RowColumns | np.ndarray:
        """Return the entries at ``rows`` for reading a few fields by name.

        In memory each field is gathered when asked (no 64-byte copies of a
        long stream); from the file the entries are read once.
        """
        if self._entries is not None:
            return RowColumns(self._entries, rows)
        return self.take(rows, source)

    def body_start(self, batch: int) -> int:
        """Return the file offset of batch ``batch``'s body."""
        return int(self._body_starts[batch])

    def whole_column(self, key: str, source: ByteSource) -> np.ndarray:
        """Return field ``key`` of every entry, in row order (a new array)."""
        if self._entries is not None:
            return np.array(self._entries[key])
        column = np.empty(self._count, dtype=ENTRY_DTYPE[key])
        for first, part in self.parts(source):
            column[first : first + len(part)] = part[key]
        return column

    def parts(self, source: ByteSource) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(first row, entries)`` over the whole index, a run of blocks each."""
        step = RUN_BLOCKS * BLOCK_ROWS
        for first in range(0, self._count, step):
            yield first, self.span(first, first + step, source)

    # ------------------------------------------------------------- reading
    def _blocks(self, first: int, stop: int, source: ByteSource) -> np.ndarray:
        """Return the entries of blocks ``first .. stop - 1``, each checked."""
        if stop - first == 1:
            with self._lock:
                cached = self._cache.get(first)
                if cached is not None:
                    self._cache.move_to_end(first)
                    return cached
        begin = first * BLOCK_ROWS
        end = min(stop * BLOCK_ROWS, self._count)
        data = source.read_at(
            self._offset + begin * ENTRY_SIZE,
            (end - begin) * ENTRY_SIZE,
            section="index",
        )
        assert self._block_crcs is not None
        view = memoryview(data)
        block_bytes = BLOCK_ROWS * ENTRY_SIZE
        for number in range(first, stop):
            part = view[
                (number - first) * block_bytes : (number - first + 1) * block_bytes
            ]
            if crc32(part) != int(self._block_crcs[number]):
                raise CorruptRecordError(
                    "record index changed on disk since the file was opened: reload it",
                    section="index",
                    record=number * BLOCK_ROWS,
                    offset=self._offset + number * block_bytes,
                )
        entries = np.frombuffer(data, dtype=ENTRY_DTYPE)
        if stop - first == 1:
            with self._lock:
                self._cache[first] = entries
                while len(self._cache) > CACHED_BLOCKS:
                    self._cache.popitem(last=False)
        return entries


def index_crcs(source: ByteSource, offset: int, count: int) -> tuple[int, np.ndarray]:
    """Read an index of ``count`` entries at ``offset`` in runs of blocks.

    Returns the CRC-32 of the whole index (the footer's ``index_crc``) and
    the CRC-32 of each block, for :meth:`RecordIndex.on_disk`.
    """
    running = 0
    crcs: list[np.ndarray] = []
    step = RUN_BLOCKS * BLOCK_ROWS
    block_bytes = BLOCK_ROWS * ENTRY_SIZE
    for first in range(0, count, step):
        size = min(step, count - first) * ENTRY_SIZE
        data = memoryview(
            source.read_at(offset + first * ENTRY_SIZE, size, section="index")
        )
        running = crc32(data, running)
        crcs.append(
            np.array(
                [
                    crc32(data[at : at + block_bytes])
                    for at in range(0, size, block_bytes)
                ],
                dtype=np.uint32,
            )
        )
    return running, np.concatenate(crcs) if crcs else np.zeros(0, np.uint32)
