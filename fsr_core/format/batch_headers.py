"""Prove that every batch header on disk agrees with the footer (no payload read).

This is the open path's per-batch work, so it is kept to one positional read
and two CRC-32s per batch; every comparison between the headers and the
directory and index is done on whole numpy arrays afterwards.
"""

from __future__ import annotations

import struct

import numpy as np

from fsr_core.errors import CorruptRecordError, IndexCorruptionError, SchemaError
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.records import BATCH_HEADER_SIZE, BATCH_MAGIC, ENTRY_SIZE, crc32
from fsr_core.format.safe_open import ByteSource

__all__ = ["HEADER_DTYPE", "verify_batch_headers"]

DIGEST_SIZE = 32
# batch_seq, total_length, stream_id, record_count at offset 8 of the header.
_FIELDS = struct.Struct("<QQII")

# The 80-byte batch header as a numpy record (records.BatchHeader's layout).
HEADER_DTYPE = np.dtype(
    [
        ("magic", "S4"),
        ("header_crc", "<u4"),
        ("batch_seq", "<u8"),
        ("total_length", "<u8"),
        ("stream_id", "<u4"),
        ("record_count", "<u4"),
        ("generation", "<u4"),
        ("body_length", "<u4"),
        ("table_crc", "<u4"),
        ("digests_crc", "<u4"),
        ("body_sha256", "u1", (DIGEST_SIZE,)),
    ]
)


def _read_one(
    source: ByteSource,
    index: bytes,
    row: tuple[int, int, int, int, int],
    number: int,
    strong: bool,
) -> tuple[bytes, bytes]:
    """Read one batch's header and tables; check the CRCs; return header and digests.

    ``row`` is the batch's directory row as plain integers: offset, total
    length, first index row, stream id, record count.
    """
    offset, total_length, first_row, stream_id, count = row
    table_size = count * ENTRY_SIZE
    digest_size = count * DIGEST_SIZE if strong else 0
    raw = source.read_at(
        offset, BATCH_HEADER_SIZE + table_size + digest_size, section="batch"
    )
    view = memoryview(raw)
    header = raw[:BATCH_HEADER_SIZE]
    if header[:4] != BATCH_MAGIC:
        raise CorruptRecordError(
            f"expected batch magic FSRB, found {header[:4]!r}",
            section="batch",
            record=number,
            offset=offset,
        )
    stored_crc = int.from_bytes(header[4:8], "little")
    actual_crc = crc32(view[8:BATCH_HEADER_SIZE])
    if actual_crc != stored_crc:
        raise CorruptRecordError(
            f"batch header has CRC 0x{actual_crc:08x}, expected 0x{stored_crc:08x}",
            section="batch",
            record=number,
            offset=offset,
        )
    if _FIELDS.unpack_from(header, 8) != (number, total_length, stream_id, count):
        raise IndexCorruptionError(
            "batch header disagrees with the footer's directory",
            section="batch",
            record=number,
            offset=offset,
        )
    first = first_row * ENTRY_SIZE
    # The batch's own entry table must be byte-identical to the footer's index:
    # a flip in either is found at open, not only by a later salvage scan.
    # (bytes, not memoryview, comparisons: those are a memcmp.)
    table = raw[BATCH_HEADER_SIZE : BATCH_HEADER_SIZE + table_size]
    if table != index[first : first + table_size]:
        raise IndexCorruptionError(
            "footer index differs from the batch's own entry table",
            section="batch",
            record=number,
            offset=offset,
        )
    table_crc = int.from_bytes(header[40:44], "little")
    if crc32(table) != table_crc:
        raise IndexCorruptionError(
            "batch entry table fails its CRC",
            section="batch",
            record=number,
            offset=offset,
        )
    digests = raw[BATCH_HEADER_SIZE + table_size :]
    if strong and crc32(digests) != int.from_bytes(header[44:48], "little"):
        raise CorruptRecordError(
            "record digest table CRC mismatch",
            section="batch",
            record=number,
            offset=offset,
        )
    return header, digests


def _first_bad(mask: np.ndarray) -> int | None:
    bad = np.flatnonzero(~mask)
    return int(bad[0]) if len(bad) else None


def _check_fields(
    headers: np.ndarray,
    directory: np.ndarray,
    entries: np.ndarray,
    body_lengths: np.ndarray,
) -> None:
    counts = directory["record_count"].astype(np.int64)
    agrees = (
        (headers["batch_seq"] == np.arange(len(headers), dtype=np.uint64))
        & (headers["total_length"] == directory["total_length"])
        & (headers["stream_id"] == directory["stream_id"])
        & (headers["record_count"] == directory["record_count"])
        & (headers["body_length"].astype(np.int64) == body_lengths)
    )
    number = _first_bad(agrees)
    if number is not None:
        raise IndexCorruptionError(
            "batch header disagrees with the footer's directory",
            section="batch",
            record=number,
            offset=int(directory["offset"][number]),
        )
    same_generation = entries["generation"] == np.repeat(headers["generation"], counts)
    row = _first_bad(same_generation)
    if row is not None:
        number = int(np.searchsorted(directory["first_row"], row, side="right")) - 1
        raise IndexCorruptionError(
            "record generation differs from its batch's",
            section="batch",
            record=number,
            offset=int(directory["offset"][number]),
        )


def _check_digest_fields(
    headers: np.ndarray, directory: np.ndarray, profile: IntegrityProfile
) -> None:
    """Each profile has exactly its own digest fields: no more, no fewer."""
    fast = profile is IntegrityProfile.FAST
    strong = profile is IntegrityProfile.STRONG
    has_body_digest = headers["body_sha256"].any(axis=1)
    if fast:
        body_reason = "fast profile but the batch carries no body digest"
    else:
        body_reason = f"{profile.value} profile but the batch carries a body digest"
    rules = (
        (has_body_digest == fast, body_reason),
        (
            (headers["digests_crc"] == 0) | strong,
            "record digest table declared outside the strong profile",
        ),
    )
    for ok, reason in rules:
        number = _first_bad(ok)
        if number is not None:
            raise SchemaError(
                reason,
                section="batch",
                record=number,
                offset=int(directory["offset"][number]),
            )


def verify_batch_headers(
    source: ByteSource,
    directory: np.ndarray,
    entries: np.ndarray,
    body_lengths: np.ndarray,
    profile: IntegrityProfile,
) -> tuple[list[bytes], np.ndarray | None]:
    """Check every batch header and entry table against the directory and index.

    Returns each batch's body SHA-256 field and, for the strong profile, the
    per-record digest table (one row of 32 bytes per record, index order).
    """
    strong = profile is IntegrityProfile.STRONG
    index = entries.tobytes()
    header_parts: list[bytes] = []
    digest_parts: list[bytes] = []
    for number, row in enumerate(directory.tolist()):
        header, digests = _read_one(source, index, row, number, strong)
        header_parts.append(header)
        digest_parts.append(digests)
    headers = np.frombuffer(b"".join(header_parts), dtype=HEADER_DTYPE)
    _check_fields(headers, directory, entries, body_lengths)
    _check_digest_fields(headers, directory, profile)
    body_digests = [row.tobytes() for row in headers["body_sha256"]]
    if not strong:
        return body_digests, None
    table = np.frombuffer(b"".join(digest_parts), dtype=np.uint8)
    return body_digests, table.reshape(-1, DIGEST_SIZE)
