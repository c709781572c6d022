"""Bounds the reader enforces before it allocates or parses anything."""

from __future__ import annotations

from dataclasses import dataclass, field

from fsr_core.canonical_json import JsonLimits

__all__ = ["MAX_RECORD_METADATA_BYTES", "ReaderLimits"]

# The format's bound on one record's metadata JSON: writers never exceed it and
# the index check refuses entries that do. ``ReaderLimits`` may only lower it.
MAX_RECORD_METADATA_BYTES = 64 << 10


@dataclass(frozen=True)
class ReaderLimits:
    """Configurable reader limits (docs/robustness.md, Budgets and limits).

    Parameters
    ----------
    metadata_json
        Limits for the file metadata and footer JSON.
    record_metadata_bytes
        Largest per-record metadata JSON.
    max_streams
        Streams per file.
    max_batch_bytes
        Largest batch (header, tables and body).
    max_batches
        Batches per file.
    max_records
        Records per file.
    max_pixels
        Pixels of one decoded image.
    max_footer_bytes
        Largest footer section (JSON, directory and index).
    resident_index_bytes
        Largest record index held in memory; a larger one is read from the
        file a block at a time (docs/format.md, section 17).
    """

    metadata_json: JsonLimits = field(default_factory=JsonLimits)
    record_metadata_bytes: int = MAX_RECORD_METADATA_BYTES
    max_streams: int = 4096
    max_batch_bytes: int = 64 << 20
    max_batches: int = 10_000_000
    max_records: int = 50_000_000
    max_pixels: int = 1 << 26
    max_footer_bytes: int = 4 << 30
    resident_index_bytes: int = 16 << 20
