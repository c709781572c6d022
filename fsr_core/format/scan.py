"""Linear scan of the data section: the path for files without a usable footer.

The scan walks batches from the end of the metadata, trusting nothing it has
not checked: each batch's header CRC, its position in the batch sequence, its
entry-table CRC, and (with ``full``) every record's CRC and the profile's
digests. It stops at the first byte it cannot trust and says why.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from fsr_core.errors import CorruptRecordError, FsrError, TruncatedFileError
from fsr_core.format.layout import (
    DIGEST_SIZE,
    batch_tables_size,
    check_header_digest_field,
)
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.records import (
    BATCH_HEADER_SIZE,
    DIRECTORY_DTYPE,
    ENTRY_DTYPE,
    ENTRY_SIZE,
    FOOTER_MAGIC,
    BatchHeader,
    crc32,
)
from fsr_core.format.safe_open import ByteSource

__all__ = ["ScanResult", "ScannedBatch", "read_batch", "scan_batches"]


@dataclass(frozen=True)
class ScannedBatch:
    """One batch the scan accepted."""

    offset: int
    header: BatchHeader
    entries: np.ndarray
    digests: bytes
    body: bytes | None


@dataclass(frozen=True)
class ScanResult:
    """What a scan found: accepted batches, where trust ends, and why."""

    batches: list[ScannedBatch]
    end: int
    stop: str
    error: FsrError | None

    def directory(self) -> np.ndarray:
        """Return the batch directory of the accepted batches."""
        rows = np.zeros(len(self.batches), dtype=DIRECTORY_DTYPE)
        first = 0
        for index, batch in enumerate(self.batches):
            rows[index] = (
                batch.offset,
                batch.header.total_length,
                first,
                batch.header.stream_id,
                batch.header.record_count,
            )
            first += batch.header.record_count
        return rows

    def entries(self) -> np.ndarray:
        """Return the concatenated entry tables of the accepted batches."""
        if not self.batches:
            return np.zeros(0, dtype=ENTRY_DTYPE)
        return np.concatenate([batch.entries for batch in self.batches])


def scan_batches(
    source: ByteSource, meta: FileMetadata, limits: ReaderLimits, *, full: bool
) -> ScanResult:
    """Walk the batches up to the footer or the first byte that cannot be trusted."""
    position = meta.data_start
    batches: list[ScannedBatch] = []
    while True:
        if position == source.size:
            return ScanResult(batches, position, "end of file", None)
        if (
            position + 4 <= source.size
            and source.read_at(position, 4, section="footer") == FOOTER_MAGIC
        ):
            return ScanResult(batches, position, "footer", None)
        if len(batches) >= limits.max_batches:
            return ScanResult(batches, position, "batch limit", None)
        try:
            batch = _read_batch(source, meta, limits, position, len(batches), full=full)
        except FsrError as exc:
            return ScanResult(
                batches,
                position,
                "truncated" if isinstance(exc, TruncatedFileError) else "corrupt",
                exc,
            )
        batches.append(batch)
        position += batch.header.total_length


def read_batch(
    source: ByteSource,
    meta: FileMetadata,
    limits: ReaderLimits,
    offset: int,
    number: int,
) -> ScannedBatch:
    """Read batch ``number`` at ``offset`` whole, checking what the full scan checks.

    Its header (CRC, sequence, stream, lengths), its tables and every
    record's CRC and the profile's digests; a live follower reads each
    batch this way once it is whole.

    Raises
    ------
    FsrError
        The batch cannot be trusted (TruncatedFileError: it is not whole).
    """
    return _read_batch(source, meta, limits, offset, number, full=True)


def _read_batch(
    source: ByteSource,
    meta: FileMetadata,
    limits: ReaderLimits,
    offset: int,
    number: int,
    *,
    full: bool,
) -> ScannedBatch:
    header = BatchHeader.decode(
        source.read_at(offset, BATCH_HEADER_SIZE, section="batch"), offset=offset
    )
    problem = _header_problem(header, meta, limits, number)
    if problem:
        raise _corrupt(problem, number, offset)
    if offset + header.total_length > source.size:
        raise TruncatedFileError(
            "batch runs past the end of the file",
            section="batch",
            record=number,
            offset=offset,
        )
    count = header.record_count
    table = source.read_at(
        offset + BATCH_HEADER_SIZE, count * ENTRY_SIZE, section="batch"
    )
    if crc32(table) != header.table_crc:
        raise _corrupt("batch entry table CRC mismatch", number, offset)
    digests = b""
    if meta.profile is IntegrityProfile.STRONG:
        digests = source.read_at(
            offset + BATCH_HEADER_SIZE + count * ENTRY_SIZE,
            count * DIGEST_SIZE,
            section="batch",
        )
        if crc32(digests) != header.digests_crc:
            raise _corrupt("batch digest table CRC mismatch", number, offset)
    entries = np.frombuffer(table, dtype=ENTRY_DTYPE).copy()
    if (entries["generation"] != header.generation).any():
        raise _corrupt("record generation differs from its batch's", number, offset)
    check_header_digest_field(header, meta.profile, number, offset)
    body = None
    if full:
        body_start = offset + BATCH_HEADER_SIZE + batch_tables_size(count, meta.profile)
        body = source.read_at(body_start, header.body_length, section="batch")
        _check_body(body, entries, digests, header, meta.profile, number, offset)
    return ScannedBatch(offset, header, entries, digests, body)


def _header_problem(
    header: BatchHeader, meta: FileMetadata, limits: ReaderLimits, number: int
) -> str:
    if header.batch_seq != number:
        return (
            f"batch sequence {header.batch_seq}, expected {number} "
            "(batches missing or swapped)"
        )
    if header.stream_id >= len(meta.streams):
        return (
            f"batch names stream id {header.stream_id}, "
            f"only {len(meta.streams)} declared"
        )
    if header.record_count < 1:
        return "batch with no records"
    if header.total_length > limits.max_batch_bytes:
        return (
            f"batch of {header.total_length} bytes exceeds the limit "
            f"of {limits.max_batch_bytes}"
        )
    expected = (
        BATCH_HEADER_SIZE
        + batch_tables_size(header.record_count, meta.profile)
        + header.body_length
    )
    if header.total_length != expected:
        return (
            f"batch length {header.total_length} does not match its tables "
            f"and body ({expected})"
        )
    return ""


def _corrupt(reason: str, number: int, offset: int) -> FsrError:
    return CorruptRecordError(reason, section="batch", record=number, offset=offset)


def _check_body(
    body: bytes,
    entries: np.ndarray,
    digests: bytes,
    header: BatchHeader,
    profile: IntegrityProfile,
    number: int,
    offset: int,
) -> None:
    view = memoryview(body)
    for index, entry in enumerate(entries):
        start = int(entry["body_offset"])
        end = start + int(entry["meta_length"]) + int(entry["payload_length"])
        if end > len(body):
            raise _corrupt("record runs past its batch body", number, offset)
        chunk = view[start:end]
        if crc32(chunk) != int(entry["record_crc"]):
            raise _corrupt(f"record {index} of the batch fails its CRC", number, offset)
        if profile is IntegrityProfile.STRONG and (
            hashlib.sha256(chunk).digest()
            != digests[index * DIGEST_SIZE : (index + 1) * DIGEST_SIZE]
        ):
            raise _corrupt(
                f"record {index} of the batch fails its SHA-256", number, offset
            )
    if (
        profile is IntegrityProfile.FAST
        and hashlib.sha256(body).digest() != header.body_sha256
    ):
        raise _corrupt("batch body fails its SHA-256", number, offset)
