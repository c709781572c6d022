"""The in-memory layout of an open file, and the checks that make it trusted.

:func:`layout_from_footer` reads the trailer, footer, batch directory and
record index, then proves that every batch header on disk agrees with them
(without reading payloads). :func:`layout_from_scan` walks the batches from the
start instead, reading and checking each one completely; it is used for files
without a usable footer (a crashed writer's staging file). Both produce the
same :class:`Layout`, and both end in :func:`check_entries`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    IndexCorruptionError,
    LimitExceededError,
    SchemaError,
)
from fsr_core.format.index_columns import RowColumns
from fsr_core.format.limits import MAX_RECORD_METADATA_BYTES, ReaderLimits
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.record_index import RecordIndex
from fsr_core.format.records import (
    BATCH_HEADER_SIZE,
    ENTRY_SIZE,
    NO_CALIBRATION,
    BatchHeader,
)
from fsr_core.format.runs import runs_within
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.streams import CAMERA_KINDS, StreamSpec

__all__ = [
    "Layout",
    "StreamSummary",
    "batch_tables_size",
    "check_entries",
    "check_header_digest_field",
]

DIGEST_SIZE = 32
CHECK_BLOCK_ROWS = 1 << 18
"""Index rows checked at a time at open (temporaries of a few arrays of this many)."""


@dataclass
class Layout:
    """Everything the reader knows about where records are."""

    @property
    def directory(self) -> np.ndarray:
        """The batch directory (one row per batch, file order)."""
        return self.index.directory

    index: RecordIndex
    summaries: list[StreamSummary]
    record_digests: np.ndarray | None
    batch_digests: list[bytes]
    calibration_digests: dict[int, str]
    footer: dict[str, Any] | None
    data_end: int
    notes: list[str] = field(default_factory=list)


def batch_tables_size(count: int, profile: IntegrityProfile) -> int:
    """Bytes between a batch header and its body: entries, then strong digests."""
    digests = count * DIGEST_SIZE if profile is IntegrityProfile.STRONG else 0
    return count * ENTRY_SIZE + digests


@dataclass(frozen=True)
class StreamSummary:
    """What the checks at open learned of one stream: its size and generations.

    ``firsts`` and ``lasts`` are the index entries that begin and end each
    generation, in order (generations never go back within a stream).
    """

    records: int
    payload_bytes: int
    firsts: np.ndarray
    lasts: np.ndarray


def check_entries(
    meta: FileMetadata,
    index: RecordIndex,
    body_lengths: np.ndarray,
    source: ByteSource,
) -> list[StreamSummary]:
    """Check every index entry against the stream table and the batches.

    Returns what was learned of each stream, in stream order.

    Raises
    ------
    IndexCorruptionError
        Entries are inconsistent with their batches (packing, stream, generation).
    CorruptRecordError
        Sequences or clocks are not continuous within a stream.
    """
    directory = index.directory
    counts = directory["record_count"].astype(np.int64)
    if len(index) != int(counts.sum()):
        raise IndexCorruptionError(
            f"index has {len(index)} entries, the batches hold {int(counts.sum())}",
            section="index",
        )
    if len(index) == 0:
        return [_summary(index, i, [], 0, source) for i in range(len(meta.streams))]
    last_capture = max(
        _check_block(index, body_lengths, first, stop, source)
        for first, stop in _batch_blocks(counts)
    )
    if not _captures_distinct(index, last_capture, source):
        raise CorruptRecordError(
            "two records share a capture sequence number", section="index"
        )
    _check_stream_ids(directory, len(meta.streams))
    return [
        _check_stream_rows(meta, stream_id, index, source)
        for stream_id in range(len(meta.streams))
    ]


def _batch_blocks(counts: np.ndarray) -> list[tuple[int, int]]:
    """Split the batches into runs of about :data:`CHECK_BLOCK_ROWS` records.

    The row checks run block by block, so their temporaries are a few
    arrays of one block, not of an index of millions of records.
    """
    ends = np.cumsum(counts)
    return runs_within(ends - counts, ends, CHECK_BLOCK_ROWS)


def _check_block(
    index: RecordIndex,
    body_lengths: np.ndarray,
    first: int,
    stop: int,
    source: ByteSource,
) -> int:
    """Check the entries of batches ``first:stop``: packing, stream, flags, times.

    Returns the largest capture sequence number among them.
    """
    directory = index.directory[first:stop]
    base = int(directory["first_row"][0])
    counts = directory["record_count"].astype(np.int64)
    block = index.span(base, base + int(counts.sum()), source)
    first_rows = directory["first_row"].astype(np.int64) - base
    _check_packing(block, first_rows, counts, body_lengths[first:stop], (base, first))
    batch_of_row = np.repeat(np.arange(len(directory), dtype=np.int64), counts)
    wrong = block["stream_id"] != directory["stream_id"][batch_of_row]
    if wrong.any():
        raise IndexCorruptionError(
            "index entry names another stream than its batch",
            section="index",
            record=base + int(np.flatnonzero(wrong)[0]),
        )
    if (block["flags"] != 0).any():
        raise IndexCorruptionError("index entry has unknown flags set", section="index")
    if not np.isfinite(block["sim_time_s"]).all():
        raise CorruptRecordError("record with a non-finite sim time", section="index")
    return int(block["capture_seq"].max())


def _captures_distinct(index: RecordIndex, last: int, source: ByteSource) -> bool:
    """Whether no two entries share a capture sequence number (``last``: the most).

    Writers number captures 0, 1, 2, ...: then one flag per number, set part
    by part, finds a repeat in a byte per record. Sparser numbers (only a
    hostile file has them) are sorted instead.
    """
    count = len(index)
    if last >= 4 * count + 1024:
        captures = index.whole_column("capture_seq", source)
        # Stable (a merge of the batches' sorted runs): several times faster here.
        captures.sort(kind="stable")
        return not (len(captures) > 1 and (captures[1:] == captures[:-1]).any())
    seen = np.zeros(last + 1, dtype=bool)
    marked = 0
    for _, part in index.parts(source):
        seen[part["capture_seq"]] = True
        marked += len(part)
        if int(np.count_nonzero(seen)) != marked:
            return False
    return True


def _check_packing(
    entries: np.ndarray,
    first_rows: np.ndarray,
    counts: np.ndarray,
    body_lengths: np.ndarray,
    origin: tuple[int, int],
) -> None:
    """Check that records tile each body (``origin``: row and batch of the 0th)."""
    base, first_batch = origin
    starts = entries["body_offset"].astype(np.int64)
    ends = (
        starts
        + entries["meta_length"].astype(np.int64)
        + entries["payload_length"].astype(np.int64)
    )
    is_first = np.zeros(len(entries), dtype=bool)
    is_first[first_rows] = True
    if (starts[is_first] != 0).any():
        raise IndexCorruptionError(
            "a batch's first record does not start its body", section="index"
        )
    misplaced = starts[1:] != ends[:-1]
    misplaced &= ~is_first[1:]
    if misplaced.any():
        row = int(np.flatnonzero(misplaced)[0]) + 1
        raise IndexCorruptionError(
            "records overlap or leave a gap inside a batch body",
            section="index",
            record=base + row,
        )
    last_rows = first_rows + counts - 1
    if (ends[last_rows] != body_lengths).any():
        batch = int(np.flatnonzero(ends[last_rows] != body_lengths)[0])
        raise IndexCorruptionError(
            "records do not fill their batch body exactly",
            section="index",
            record=first_batch + batch,
        )


def _check_stream_ids(directory: np.ndarray, stream_count: int) -> None:
    """Check that every batch names a declared stream."""
    ids = directory["stream_id"].astype(np.int64)
    if len(ids) and int(ids.max()) >= stream_count:
        raise IndexCorruptionError(
            f"record names stream id {int(ids.max())}, only {stream_count} declared",
            section="index",
        )


def _check_stream_rows(
    meta: FileMetadata, stream_id: int, index: RecordIndex, source: ByteSource
) -> StreamSummary:
    """Check one stream's rows, a block at a time (each block from the row before)."""
    spec = meta.streams[stream_id]
    length = index.stream_length(stream_id)
    run_starts: list[int] = []
    payload_bytes = 0
    for start in range(0, length, CHECK_BLOCK_ROWS):
        first = max(start - 1, 0)
        rows = index.stream_rows(stream_id, slice(first, start + CHECK_BLOCK_ROWS))
        part = index.columns(rows, source)
        _check_stream_part(spec, part, first)
        generations = part["generation"]
        changes = np.flatnonzero(generations[1:] != generations[:-1]) + 1 + first
        run_starts.extend(changes.tolist())
        payload_bytes += int(
            part["payload_length"][start - first :].sum(dtype=np.int64)
        )
    if length:
        run_starts.insert(0, 0)
    return _summary(index, stream_id, run_starts, payload_bytes, source)


def _summary(
    index: RecordIndex,
    stream_id: int,
    run_starts: list[int],
    payload_bytes: int,
    source: ByteSource,
) -> StreamSummary:
    """Return a stream's summary from where its generations start."""
    length = index.stream_length(stream_id)
    starts = np.array(run_starts, dtype=np.int64)
    ends = np.append(starts[1:] - 1, length - 1) if len(starts) else starts
    found = index.take(
        index.stream_rows(stream_id, np.concatenate((starts, ends))), source
    )
    return StreamSummary(
        length, payload_bytes, found[: len(starts)], found[len(starts) :]
    )


def _check_stream_part(
    spec: StreamSpec, rows: RowColumns | np.ndarray, first: int
) -> None:
    """Check rows ``first ...`` of a stream (continuity within them, sizes)."""
    name = spec.name
    seqs = rows["stream_seq"]
    if (seqs != np.arange(first, first + len(seqs), dtype=seqs.dtype)).any():
        raise CorruptRecordError(
            "stream sequence numbers are not 0, 1, 2, ... (batches missing or swapped)",
            stream=name,
            section="index",
        )
    if len(rows) > 1 and (np.diff(rows["capture_seq"].astype(np.int64)) <= 0).any():
        raise CorruptRecordError(
            "capture sequence numbers do not increase", stream=name, section="index"
        )
    generations = rows["generation"].astype(np.int64)
    same_gen = np.diff(generations) == 0
    if (np.diff(generations) < 0).any():
        raise CorruptRecordError(
            "generation goes backwards", stream=name, section="index"
        )
    for key in ("tick", "sim_time_s"):
        # Compared, not subtracted: np.diff of int64 ticks wraps for spans over 2^63.
        backwards = rows[key][1:] < rows[key][:-1]
        if (same_gen & backwards).any():
            record = first + int(np.flatnonzero(same_gen & backwards)[0]) + 1
            raise CorruptRecordError(
                f"{key} goes backwards within generation",
                stream=name,
                record=record,
                section="index",
            )
    _check_payload_sizes(spec, rows, first)
    refs = rows["calibration_ref"]
    if spec.kind in CAMERA_KINDS:
        if (refs == NO_CALIBRATION).any():
            raise CorruptRecordError(
                "camera record without a calibration digest",
                stream=name,
                section="index",
            )
    elif (refs != NO_CALIBRATION).any():
        raise CorruptRecordError(
            "non-camera record references a calibration", stream=name, section="index"
        )


def _check_payload_sizes(
    spec: StreamSpec, rows: RowColumns | np.ndarray, first: int
) -> None:
    if spec.codec in ("raw", "rgb24"):
        expected = spec.element_count * spec.numpy_dtype.itemsize
        lengths = rows["payload_length"]
        if (lengths != expected).any():
            record = int(np.flatnonzero(lengths != expected)[0])
            found = int(lengths[record])
            raise CorruptRecordError(
                f"payload length {found}, the stream's {list(spec.shape)} "
                f"{spec.dtype} needs {expected}",
                stream=spec.name,
                record=first + record,
                section="index",
            )
    if (
        spec.codec != "arrays+zlib"
        and (rows["raw_length"] != rows["payload_length"]).any()
    ):
        raise CorruptRecordError(
            "raw length differs from payload length for an uncompressed codec",
            stream=spec.name,
            section="index",
        )
    if (rows["meta_length"] > MAX_RECORD_METADATA_BYTES).any():
        raise LimitExceededError(
            "record metadata larger than 64 KiB", stream=spec.name, section="index"
        )


def check_directory(
    directory: np.ndarray,
    data_start: int,
    data_end: int,
    profile: IntegrityProfile,
    limits: ReaderLimits,
) -> np.ndarray:
    """Check the batch directory tiles the data section exactly; return body lengths."""
    if len(directory) == 0:
        if data_end != data_start:
            raise IndexCorruptionError(
                "no batches listed but the data section is not empty", section="footer"
            )
        return np.zeros(0, dtype=np.int64)
    offsets = directory["offset"].astype(np.int64)
    lengths = directory["total_length"].astype(np.int64)
    counts = directory["record_count"].astype(np.int64)
    if (directory["offset"] > np.uint64(data_end)).any() or (
        directory["total_length"] > np.uint64(limits.max_batch_bytes)
    ).any():
        raise IndexCorruptionError(
            "batch directory points past the data section or at an oversized batch",
            section="footer",
        )
    ends = offsets + lengths
    if (
        offsets[0] != data_start
        or (offsets[1:] != ends[:-1]).any()
        or ends[-1] != data_end
    ):
        raise IndexCorruptionError(
            "batches overlap, leave gaps, or do not tile the data section",
            section="footer",
        )
    if (counts < 1).any():
        raise IndexCorruptionError("a batch with no records", section="footer")
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    if (directory["first_row"].astype(np.int64) != first).any():
        raise IndexCorruptionError(
            "batch directory rows do not match the record index", section="footer"
        )
    digest_size = DIGEST_SIZE if profile is IntegrityProfile.STRONG else 0
    body = lengths - BATCH_HEADER_SIZE - counts * (ENTRY_SIZE + digest_size)
    if (body < 0).any():
        raise IndexCorruptionError("batch shorter than its tables", section="footer")
    return body


def check_header_digest_field(
    header: BatchHeader, profile: IntegrityProfile, number: int, offset: int
) -> None:
    """Check the batch header carries exactly the digest fields its profile has."""
    zero = header.body_sha256 == bytes(DIGEST_SIZE)
    if profile is IntegrityProfile.FAST and zero:
        raise SchemaError(
            "fast profile but the batch carries no body digest",
            section="batch",
            record=number,
            offset=offset,
        )
    if profile is not IntegrityProfile.FAST and not zero:
        raise SchemaError(
            f"{profile.value} profile but the batch carries a body digest",
            section="batch",
            record=number,
            offset=offset,
        )
    if profile is not IntegrityProfile.STRONG and header.digests_crc != 0:
        raise SchemaError(
            "record digest table declared outside the strong profile",
            section="batch",
            record=number,
            offset=offset,
        )


def wrap(exc: FsrError, path: str) -> FsrError:
    """Fill in the path of an error raised below the reader."""
    return exc.with_path(path)
