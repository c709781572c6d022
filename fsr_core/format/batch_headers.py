"""Prove that every batch header on disk agrees with the footer (no payload read).

This is the open path's per-batch work, so it is kept to one positional read,
two CRC-32s and one comparison with the index per batch, through memoryviews
(no copies); every comparison between the headers and the directory is done
on whole numpy arrays afterwards. Only when that pass finds a problem are the
batches checked one by one, so the error names the first bad batch and its
first failed check, as a batch-by-batch check would.
"""

from __future__ import annotations

import struct

import numpy as np

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    IndexCorruptionError,
    SchemaError,
)
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.record_index import RecordIndex
from fsr_core.format.records import BATCH_HEADER_SIZE, BATCH_MAGIC, ENTRY_SIZE, crc32
from fsr_core.format.safe_open import ByteSource

__all__ = ["HEADER_DTYPE", "verify_batch_headers"]

DIGEST_SIZE = 32
# batch_seq, total_length, stream_id, record_count at offset 8 of the header.
_FIELDS = struct.Struct("<QQII")

_Row = tuple[int, int, int, int, int]
"""A directory row as plain integers: offset, total length, first index row,
stream id, record count."""

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


def _read_into(
    raws: list[bytes], source: ByteSource, rows: list[_Row], strong: bool
) -> None:
    """Append each batch's header and tables to ``raws``, in order.

    ``rows`` are the directory rows; a read that fails leaves the batches
    read before it in ``raws``.
    """
    per_record = ENTRY_SIZE + (DIGEST_SIZE if strong else 0)
    for offset, _, _, _, count in rows:
        size = BATCH_HEADER_SIZE + count * per_record
        raws.append(source.read_at(offset, size, section="batch"))


def _check_one(
    raw: bytes, index: bytes, row: _Row, number: int, strong: bool, origin: int = 0
) -> None:
    """Check one batch's header and tables (``raw``) against the directory and index."""
    offset, total_length, first_row, stream_id, count = row
    table_size = count * ENTRY_SIZE
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
    first = first_row * ENTRY_SIZE - origin
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


def _all_intact(
    raws: list[bytes],
    rows: list[_Row],
    headers: np.ndarray,
    directory: np.ndarray,
    index: bytes,
    strong: bool,
    base: int,
) -> bool:
    """Whether every batch passes every check of :func:`_check_one`, at once.

    The same conditions on whole columns, with the tables and digests read
    through memoryviews (no copies) and ``crc32``, which is
    :func:`~fsr_core.format.records.crc32` without the call around it.
    """
    views = [memoryview(raw) for raw in raws]
    ends = [BATCH_HEADER_SIZE + row[4] * ENTRY_SIZE for row in rows]
    tables = [
        view[BATCH_HEADER_SIZE:end] for view, end in zip(views, ends, strict=True)
    ]
    origin = rows[0][2] * ENTRY_SIZE if rows else 0  # ``index`` starts there
    firsts = [row[2] * ENTRY_SIZE - origin for row in rows]
    numbers = np.arange(base, base + len(raws), dtype=np.uint64)
    fields_agree = (
        (headers["magic"] == BATCH_MAGIC)
        & (headers["batch_seq"] == numbers)
        & (headers["total_length"] == directory["total_length"])
        & (headers["stream_id"] == directory["stream_id"])
        & (headers["record_count"] == directory["record_count"])
    )
    intact = (
        bool(fields_agree.all())
        and bool(
            _crcs([view[8:BATCH_HEADER_SIZE] for view in views])
            == headers["header_crc"].tolist()
        )
        and all(map(index.startswith, tables, firsts))
        and bool(_crcs(tables) == headers["table_crc"].tolist())
    )
    if intact and strong:
        digests = [view[end:] for view, end in zip(views, ends, strict=True)]
        return bool(_crcs(digests) == headers["digests_crc"].tolist())
    return intact


def _crcs(parts: list[memoryview]) -> list[int]:
    """Return the CRC-32 of each part."""
    return list(map(crc32, parts))


def _check_each(
    raws: list[bytes], index: bytes, rows: list[_Row], strong: bool, base: int
) -> None:
    """Raise the first problem of the batches in ``raws`` (batch ``base`` on).

    ``index`` holds the index entries from the first of ``rows`` on.
    """
    origin = rows[0][2] * ENTRY_SIZE if rows else 0
    for number, raw in enumerate(raws):
        _check_one(raw, index, rows[number], base + number, strong, origin)


def _first_bad(mask: np.ndarray) -> int | None:
    bad = np.flatnonzero(~mask)
    return int(bad[0]) if len(bad) else None


def _first_other_generation(
    entries: np.ndarray, headers: np.ndarray, group: list[_Row]
) -> int | None:
    """Return the row of the first entry of ``group`` not of its batch's generation."""
    counts = np.array([row[4] for row in group], dtype=np.int64)
    same = entries["generation"] == np.repeat(headers["generation"], counts)
    found = _first_bad(same)
    return None if found is None else group[0][2] + found


def _check_fields(
    headers: np.ndarray,
    directory: np.ndarray,
    bad_generation: int | None,
    body_lengths: np.ndarray,
) -> None:
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
    row = bad_generation
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


GROUP_BYTES = 4 << 20
"""Most bytes of batch headers and tables read and checked at once (4 MiB):
the check needs a few times that beside the index, not a second copy of it."""


def _index_end(rows: list[_Row]) -> int:
    """Return the byte just past the index entries of the last of ``rows``."""
    last = rows[-1]
    return (last[2] + last[4]) * ENTRY_SIZE


def _groups(rows: list[_Row], strong: bool) -> list[tuple[int, int]]:
    """Split the directory rows into runs whose headers and tables fit a group."""
    per_record = ENTRY_SIZE + (DIGEST_SIZE if strong else 0)
    groups: list[tuple[int, int]] = []
    first, size = 0, 0
    for number, row in enumerate(rows):
        size += BATCH_HEADER_SIZE + row[4] * per_record
        if size >= GROUP_BYTES:
            groups.append((first, number + 1))
            first, size = number + 1, 0
    if first < len(rows):
        groups.append((first, len(rows)))
    return groups


def verify_batch_headers(
    source: ByteSource,
    index: RecordIndex,
    body_lengths: np.ndarray,
    profile: IntegrityProfile,
) -> tuple[list[bytes], np.ndarray | None]:
    """Check every batch header and entry table against the directory and index.

    Returns each batch's body SHA-256 field and, for the strong profile, the
    per-record digest table (one row of 32 bytes per record, index order).
    """
    strong = profile is IntegrityProfile.STRONG
    directory = index.directory
    rows: list[_Row] = directory.tolist()
    bad_generation: int | None = None
    header_parts: list[bytes] = []
    digest_parts: list[bytes] = []
    for first, stop in _groups(rows, strong):
        raws: list[bytes] = []
        group = rows[first:stop]
        # The index entries of this group's batches (a copy the size of a group).
        group_entries = index.span(group[0][2], _index_end(group) // ENTRY_SIZE, source)
        table = group_entries.tobytes()
        try:
            _read_into(raws, source, group, strong)
        except FsrError:
            _check_each(raws, table, group, strong, first)  # an earlier batch first
            raise
        heads = b"".join([raw[:BATCH_HEADER_SIZE] for raw in raws])
        headers = np.frombuffer(heads, dtype=HEADER_DTYPE)
        if not _all_intact(
            raws, group, headers, directory[first:stop], table, strong, first
        ):
            _check_each(raws, table, group, strong, first)  # which check, which batch
        header_parts.append(heads)
        if bad_generation is None:
            bad_generation = _first_other_generation(group_entries, headers, group)
        if strong:
            digest_parts.extend(
                raw[BATCH_HEADER_SIZE + row[4] * ENTRY_SIZE :]
                for raw, row in zip(raws, group, strict=True)
            )
    headers = np.frombuffer(b"".join(header_parts), dtype=HEADER_DTYPE)
    _check_fields(headers, directory, bad_generation, body_lengths)
    _check_digest_fields(headers, directory, profile)
    body_digests = [row.tobytes() for row in headers["body_sha256"]]
    if not strong:
        return body_digests, None
    digest_table = np.frombuffer(b"".join(digest_parts), dtype=np.uint8)
    return body_digests, digest_table.reshape(-1, DIGEST_SIZE)
