"""Build a trusted :class:`~fsr_core.format.layout.Layout` from a file.

Two ways, same result: from the footer (the normal, fast path: no payload is
read) or by scanning the batches (recovery, and diagnosing a missing trailer).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsr_core.canonical_json import parse_json
from fsr_core.checksums import crc32
from fsr_core.errors import (
    CorruptRecordError,
    FormatError,
    FsrError,
    IndexCorruptionError,
    LimitExceededError,
    SchemaError,
    TruncatedFileError,
)
from fsr_core.format.batch_headers import verify_batch_headers
from fsr_core.format.calibration_refs import check_calibration_refs
from fsr_core.format.footer import check_inventory, summary_inventory
from fsr_core.format.layout import Layout, check_directory, check_entries
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.record_index import RecordIndex, index_crcs
from fsr_core.format.records import (
    DIRECTORY_DTYPE,
    ENTRY_DTYPE,
    ENTRY_SIZE,
    FOOTER_HEADER_SIZE,
    TRAILER_SIZE,
    FooterHeader,
    Trailer,
)
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.scan import ScanResult, scan_batches
from fsr_core.format.streams import CAMERA_KINDS
from fsr_core.heap import release_free_memory

__all__ = ["layout_from_footer", "layout_from_scan", "locate_footer"]


def locate_footer(source: ByteSource, meta: FileMetadata, size: int) -> tuple[int, int]:
    """Read the trailer of a file of ``size`` bytes; return (footer offset, length)."""
    if size < meta.data_start + TRAILER_SIZE + FOOTER_HEADER_SIZE:
        raise TruncatedFileError(
            "file too short for a footer and trailer", section="trailer", offset=size
        )
    trailer = Trailer.decode(
        source.read_at(size - TRAILER_SIZE, TRAILER_SIZE, section="trailer"),
        offset=size - TRAILER_SIZE,
    )
    end = trailer.footer_offset + trailer.footer_length
    if trailer.footer_offset < meta.data_start or end != size - TRAILER_SIZE:
        raise IndexCorruptionError(
            f"trailer locates the footer at {trailer.footer_offset}"
            f"+{trailer.footer_length}, outside "
            f"{meta.data_start}..{size - TRAILER_SIZE}",
            section="trailer",
            offset=size - TRAILER_SIZE,
        )
    return trailer.footer_offset, trailer.footer_length


def _read_footer_header(source: ByteSource, footer_offset: int) -> FooterHeader:
    """Read and check the footer header at ``footer_offset``."""
    return FooterHeader.decode(
        source.read_at(footer_offset, FOOTER_HEADER_SIZE, section="footer"),
        offset=footer_offset,
    )


def layout_from_footer(
    source: ByteSource, meta: FileMetadata, limits: ReaderLimits, *, size: int
) -> Layout:
    """Read footer, directory and index, and prove they match every batch header."""
    footer_offset, footer_length = locate_footer(source, meta, size)
    if footer_length > limits.max_footer_bytes:
        raise LimitExceededError(
            f"footer of {footer_length} bytes exceeds the limit",
            section="footer",
            offset=footer_offset,
        )
    head = _read_footer_header(source, footer_offset)
    _check_footer_head(head, footer_offset, footer_length, limits)
    directory_size = head.batch_count * DIRECTORY_DTYPE.itemsize
    index_offset = (
        footer_offset + FOOTER_HEADER_SIZE + head.json_length + directory_size
    )
    index_size = head.record_count * ENTRY_SIZE
    resident = index_size <= limits.resident_index_bytes
    body = source.read_at(
        footer_offset + FOOTER_HEADER_SIZE,
        head.json_length + directory_size + (index_size if resident else 0),
        section="footer",
    )
    # Views, not slices: the index of a large file is megabytes, copied for nothing.
    view = memoryview(body)
    raw_json = body[: head.json_length]
    binary = view[head.json_length :]
    if resident:
        index_crc = crc32(binary[directory_size:])
    else:
        index_crc, crcs = index_crcs(source, index_offset, head.record_count)
    for what, found, crc in (
        ("footer JSON", crc32(raw_json), head.json_crc),
        ("batch directory", crc32(binary[:directory_size]), head.directory_crc),
        ("record index", index_crc, head.index_crc),
    ):
        if found != crc:
            raise CorruptRecordError(
                f"{what} CRC 0x{found:08x}, expected 0x{crc:08x}",
                section="footer",
                offset=footer_offset,
            )
    document = parse_json(raw_json, limits=limits.metadata_json, what="footer JSON")
    directory = np.frombuffer(
        binary, dtype=DIRECTORY_DTYPE, count=head.batch_count, offset=0
    )
    stream_count = len(meta.streams)
    if resident:
        entries = np.frombuffer(
            binary, dtype=ENTRY_DTYPE, count=head.record_count, offset=directory_size
        )
        index = RecordIndex.resident(entries, directory, meta.profile, stream_count)
    else:
        index = RecordIndex.on_disk(
            index_offset, crcs, head.record_count, directory, meta.profile, stream_count
        )
    body_lengths = check_directory(
        directory, meta.data_start, footer_offset, meta.profile, limits
    )
    summaries = check_entries(meta, index, body_lengths, source)
    body_digests, record_digests = verify_batch_headers(
        source, index, body_lengths, meta.profile
    )
    if not isinstance(document, dict):
        raise SchemaError("footer must be an object", section="footer")
    batches_per_stream = np.bincount(
        directory["stream_id"].astype(np.int64), minlength=stream_count
    )
    check_inventory(
        document,
        [
            summary_inventory(spec, summary, int(batches_per_stream[i]))
            for i, (spec, summary) in enumerate(
                zip(meta.streams, summaries, strict=True)
            )
        ],
    )
    digests = _calibration_digests(document)
    check_calibration_refs(meta, index, set(digests), source)
    if not resident:
        release_free_memory()  # the checks' temporaries were index-sized
    return Layout(
        index=index,
        summaries=summaries,
        record_digests=record_digests,
        batch_digests=body_digests,
        calibration_digests=digests,
        footer=document,
        data_end=footer_offset,
    )


def _check_footer_head(
    head: FooterHeader, footer_offset: int, footer_length: int, limits: ReaderLimits
) -> None:
    """Check the footer header's counts and sizes against the limits and trailer."""
    if head.batch_count > limits.max_batches or head.record_count > limits.max_records:
        raise LimitExceededError(
            "footer declares more batches or records than the limits allow",
            section="footer",
            offset=footer_offset,
        )
    if head.section_length != footer_length or head.data_end != footer_offset:
        raise IndexCorruptionError(
            "footer sizes do not add up to the length the trailer gives",
            section="footer",
            offset=footer_offset,
        )
    if head.json_length > limits.metadata_json.max_bytes:
        raise LimitExceededError(
            f"footer JSON of {head.json_length} bytes exceeds the limit",
            section="footer",
            offset=footer_offset,
        )


def _calibration_digests(document: dict[str, Any]) -> dict[int, str]:
    calibration = document.get("calibration")
    if not isinstance(calibration, dict) or not isinstance(
        calibration.get("digests"), list
    ):
        raise SchemaError("footer calibration table is malformed", section="footer")
    digests = calibration["digests"]
    if not all(
        isinstance(d, str) and d.startswith("sha256:") and len(d) == 71 for d in digests
    ):
        raise SchemaError(
            "footer calibration digest is not sha256:<64 hex>", section="footer"
        )
    if len(set(digests)) != len(digests):
        raise SchemaError("footer calibration digests repeat", section="footer")
    if not isinstance(calibration.get("epochs"), list):
        raise SchemaError("footer calibration epochs must be a list", section="footer")
    return dict(enumerate(digests))


def layout_from_scan(
    source: ByteSource, meta: FileMetadata, limits: ReaderLimits
) -> tuple[Layout, ScanResult]:
    """Scan and fully check every batch up to the first untrusted byte."""
    scan = scan_batches(source, meta, limits, full=True)
    directory = scan.directory()
    entries = scan.entries()
    body_lengths = np.array(
        [b.header.body_length for b in scan.batches], dtype=np.int64
    )
    index = RecordIndex.resident(entries, directory, meta.profile, len(meta.streams))
    summaries = check_entries(meta, index, body_lengths, source)
    digests = _digests_from_bodies(meta, scan, entries)
    check_calibration_refs(meta, index, set(digests), source)
    record_digests = None
    if scan.batches and scan.batches[0].digests:
        record_digests = np.frombuffer(
            b"".join(b.digests for b in scan.batches), dtype=np.uint8
        ).reshape(-1, 32)
    layout = Layout(
        index=index,
        summaries=summaries,
        record_digests=record_digests,
        batch_digests=[b.header.body_sha256 for b in scan.batches],
        calibration_digests=digests,
        footer=None,
        data_end=scan.end,
    )
    return layout, scan


def _digests_from_bodies(
    meta: FileMetadata, scan: ScanResult, entries: np.ndarray
) -> dict[int, str]:
    """Rebuild the calibration digest table from camera records' metadata."""
    by_ref: dict[int, str] = {}
    for batch in scan.batches:
        if (
            meta.streams[batch.header.stream_id].kind not in CAMERA_KINDS
            or batch.body is None
        ):
            continue
        for entry in batch.entries:
            start = int(entry["body_offset"])
            record_meta = parse_json(
                batch.body[start : start + int(entry["meta_length"])],
                what="record metadata",
            )
            digest = (
                record_meta.get("calibration_digest")
                if isinstance(record_meta, dict)
                else None
            )
            ref = int(entry["calibration_ref"])
            if not isinstance(digest, str) or by_ref.setdefault(ref, digest) != digest:
                raise CorruptRecordError(
                    "camera record's calibration digest is inconsistent",
                    section="batch",
                    offset=batch.offset,
                )
    del entries
    # References are numbered across cameras in first-use order; a crash may
    # keep one camera's epochs and lose another's, so the numbers may have holes.
    if len(set(by_ref.values())) != len(by_ref):
        raise CorruptRecordError(
            "two calibration references name the same digest", section="batch"
        )
    return by_ref


def diagnose_without_trailer(
    source: ByteSource, meta: FileMetadata, limits: ReaderLimits, cause: FsrError
) -> FsrError:
    """Explain a missing trailer: an unfinished file, junk after it, or damage."""
    scan = scan_batches(source, meta, limits, full=False)
    if scan.error is not None and scan.stop == "corrupt":
        return scan.error
    if scan.stop == "footer":
        end = _footer_end(source, meta, limits, scan.end)
        if end is not None and end < source.size:
            return FormatError(
                f"{source.size - end} bytes after the trailer",
                section="trailer",
                offset=end,
            )
        if end is None and _footer_cut_short(source, scan.end):
            return TruncatedFileError(
                f"the file ends at byte {source.size}, inside its footer or trailer: "
                "the writer did not finish (open with recover=True or run "
                "'fsr-viewer recover')",
                section="trailer",
                offset=scan.end,
            )
        return cause
    return TruncatedFileError(
        f"no trailer after {len(scan.batches)} complete batches: the writer did "
        "not finish (open with recover=True or run 'fsr-viewer recover')",
        section="trailer",
        offset=scan.end,
    )


def _footer_cut_short(source: ByteSource, footer_offset: int) -> bool:
    """Whether the footer at ``footer_offset`` needs more bytes than the file has."""
    if footer_offset + FOOTER_HEADER_SIZE > source.size:
        return True
    try:
        head = _read_footer_header(source, footer_offset)
    except FsrError:
        return False
    return footer_offset + head.section_length + TRAILER_SIZE > source.size


def _footer_end(
    source: ByteSource, meta: FileMetadata, limits: ReaderLimits, footer_offset: int
) -> int | None:
    """Return where a sealed file with its footer at ``footer_offset`` ends."""
    try:
        head = _read_footer_header(source, footer_offset)
        length = head.section_length
        end = footer_offset + length + TRAILER_SIZE
        if end > source.size:
            return None
        trailer = Trailer.decode(
            source.read_at(end - TRAILER_SIZE, TRAILER_SIZE, section="trailer"),
            offset=end - TRAILER_SIZE,
        )
    except FsrError:
        return None
    if trailer.footer_offset != footer_offset or trailer.footer_length != length:
        return None
    del meta, limits
    return end
