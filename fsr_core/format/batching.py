"""Bounded batches and the byte stream of a file being written.

:class:`BatchSink` receives encoded records in capture order, groups them into
per-stream batches bounded by record count, bytes and sim-time span (a new
generation always closes a batch), writes each batch as soon as it closes, and
finally writes the footer and trailer. It runs on the writer's worker thread.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import LimitExceededError
from fsr_core.format.footer import inventory_for
from fsr_core.format.layout import DIGEST_SIZE
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.records import (
    BATCH_HEADER_SIZE,
    DIRECTORY_DTYPE,
    ENTRY_DTYPE,
    BatchHeader,
    FooterHeader,
    Trailer,
    crc32,
)
from fsr_core.format.streams import StreamKind, StreamSpec

__all__ = [
    "MAX_BATCH_BODY_BYTES",
    "BatchLimits",
    "BatchSink",
    "EncodedRecord",
    "RecordSlot",
]

# The largest batch body a writer produces: the reader's default batch limit
# (64 MiB) less the header, one entry and one strong digest.
MAX_BATCH_BODY_BYTES = (64 << 20) - 80 - 64 - 32


@dataclass(frozen=True)
class BatchLimits:
    """When a batch closes: whichever bound is reached first.

    Parameters
    ----------
    max_records
        Records per batch.
    max_bytes
        Body bytes per batch (metadata plus payloads).
    max_span_s
        Sim-time span of one batch, seconds.
    """

    max_records: int = 256
    max_bytes: int = 4 << 20
    max_span_s: float = 1.0

    def __post_init__(self) -> None:
        """Refuse bounds that would make batches a reader refuses."""
        # 65,536 entries (6 MiB of tables) plus 32 MiB of body stay well inside
        # the reader's 64 MiB batch limit; one larger record gets a batch alone.
        if not 1 <= self.max_records <= 1 << 16:
            raise ValueError("max_records must be in 1..65536")
        if not 1 <= self.max_bytes <= 32 << 20:
            raise ValueError("max_bytes must be in 1..33554432 (32 MiB)")
        if not self.max_span_s > 0:
            raise ValueError("max_span_s must be positive")


@dataclass(frozen=True)
class RecordSlot:
    """Where a record goes: its stream, sequence numbers, clocks and metadata.

    The writer's checks settle all of it before the payload is encoded.
    """

    stream_id: int
    stream_seq: int
    capture_seq: int
    generation: int
    tick: int
    sim_time_s: float
    calibration_ref: int
    metadata: bytes


_SLOT_FIELDS = tuple(f.name for f in fields(RecordSlot))


@dataclass(frozen=True)
class EncodedRecord(RecordSlot):
    """A record ready to be stored."""

    payload: bytes
    raw_length: int

    @classmethod
    def fill(cls, slot: RecordSlot, payload: bytes, raw_length: int) -> EncodedRecord:
        """Return ``slot``'s fields (only those) with the encoded payload."""
        placed = {name: getattr(slot, name) for name in _SLOT_FIELDS}
        return cls(**placed, payload=payload, raw_length=raw_length)


@dataclass
class _Pending:
    records: list[EncodedRecord] = field(default_factory=list)
    body_bytes: int = 0


class BatchSink:
    """Turns encoded records into batches on disk, then seals the file."""

    def __init__(
        self,
        specs: tuple[StreamSpec, ...],
        profile: IntegrityProfile,
        limits: BatchLimits,
        data_start: int,
        write: Callable[[bytes], None],
    ) -> None:
        self._specs = specs
        self._profile = profile
        self._limits = limits
        self._write = write
        self._offset = data_start
        self._pending = [_Pending() for _ in specs]
        self._tables: list[bytes] = []
        self._directory: list[tuple[int, int, int, int, int]] = []
        self._record_total = 0
        self._swept: tuple[int, float] | None = None  # generation, next sweep time
        intrinsics = {
            spec.camera: i
            for i, spec in enumerate(specs)
            if spec.kind is StreamKind.CAMERA_INTRINSICS
        }
        # A camera batch may reference the calibration epoch of a pending
        # intrinsics record: that record goes to disk first, so every prefix of
        # the file (a crash) is self-consistent.
        self._depends_on = {
            i: intrinsics[spec.camera]
            for i, spec in enumerate(specs)
            if spec.camera is not None
            and spec.kind is not StreamKind.CAMERA_INTRINSICS
            and spec.camera in intrinsics
        }

    @property
    def offset(self) -> int:
        """Bytes written so far."""
        return self._offset

    def add(self, record: EncodedRecord) -> None:
        """Append a record to its stream's batch, closing the batch first if needed.

        Raises
        ------
        LimitExceededError
            The record alone would make a batch larger than readers accept.
        """
        if len(record.metadata) + len(record.payload) > MAX_BATCH_BODY_BYTES:
            size = len(record.metadata) + len(record.payload)
            raise LimitExceededError(
                f"record of {size} bytes exceeds the {MAX_BATCH_BODY_BYTES}-byte "
                "limit of one batch",
                stream=self._specs[record.stream_id].name,
                record=record.stream_seq,
            )
        pending = self._pending[record.stream_id]
        if pending.records:
            first = pending.records[0]
            size = len(record.metadata) + len(record.payload)
            if (
                record.generation != first.generation
                or len(pending.records) >= self._limits.max_records
                or pending.body_bytes + size > self._limits.max_bytes
                or record.sim_time_s - first.sim_time_s > self._limits.max_span_s
            ):
                self.flush_stream(record.stream_id)
                pending = self._pending[record.stream_id]
        pending.records.append(record)
        pending.body_bytes += len(record.metadata) + len(record.payload)
        self._close_stale(record)

    def _close_stale(self, now: EncodedRecord) -> None:
        """Close other streams' batches once they span ``max_span_s`` of sim time.

        A stream that records rarely (the task, events, authored chunks, one
        calibration) would otherwise keep its batch open until the file is
        sealed, and a crashed writer would lose it with everything after it.
        Checked every eighth of the span, and whenever the generation changes.
        """
        swept = self._swept
        if (
            swept is not None
            and swept[0] == now.generation
            and now.sim_time_s < swept[1]
        ):
            return
        span_s = self._limits.max_span_s
        self._swept = (now.generation, now.sim_time_s + span_s / 8)
        for stream_id, pending in enumerate(self._pending):
            if stream_id == now.stream_id or not pending.records:
                continue
            first = pending.records[0]
            if (
                first.generation != now.generation
                or now.sim_time_s - first.sim_time_s > span_s
            ):
                self.flush_stream(stream_id)

    def flush_stream(self, stream_id: int) -> None:
        """Write the stream's open batch, if any."""
        pending = self._pending[stream_id]
        if not pending.records:
            return
        dependency = self._depends_on.get(stream_id)
        if dependency is not None:
            self.flush_stream(dependency)
        records = pending.records
        self._pending[stream_id] = _Pending()
        entries = np.zeros(len(records), dtype=ENTRY_DTYPE)
        body_parts: list[bytes] = []
        digests: list[bytes] = []
        position = 0
        for index, rec in enumerate(records):
            chunk = rec.metadata + rec.payload
            entries[index] = (
                rec.stream_seq,
                rec.capture_seq,
                rec.tick,
                rec.sim_time_s,
                rec.generation,
                rec.calibration_ref,
                position,
                len(rec.metadata),
                len(rec.payload),
                stream_id,
                0,
                rec.raw_length,
                crc32(chunk),
            )
            if self._profile is IntegrityProfile.STRONG:
                digests.append(hashlib.sha256(chunk).digest())
            body_parts.append(chunk)
            position += len(chunk)
        body = b"".join(body_parts)
        table = entries.tobytes()
        digest_table = b"".join(digests)
        total = BATCH_HEADER_SIZE + len(table) + len(digest_table) + len(body)
        header = BatchHeader(
            batch_seq=len(self._directory),
            total_length=total,
            stream_id=stream_id,
            record_count=len(records),
            generation=records[0].generation,
            body_length=len(body),
            table_crc=crc32(table),
            digests_crc=crc32(digest_table) if digest_table else 0,
            body_sha256=hashlib.sha256(body).digest()
            if self._profile is IntegrityProfile.FAST
            else bytes(DIGEST_SIZE),
        )
        self._write(header.encode() + table + digest_table + body)
        self._directory.append(
            (self._offset, total, self._record_total, stream_id, len(records))
        )
        self._tables.append(table)
        self._record_total += len(records)
        self._offset += total

    def flush_all(self) -> None:
        """Write every open batch (in stream order)."""
        for stream_id in range(len(self._specs)):
            self.flush_stream(stream_id)

    def seal(self, footer_fields: dict[str, Any]) -> None:
        """Flush, then write footer, directory, index and trailer."""
        self.flush_all()
        directory = (
            np.array(self._directory, dtype=DIRECTORY_DTYPE)
            if self._directory
            else np.zeros(0, dtype=DIRECTORY_DTYPE)
        )
        index = b"".join(self._tables)
        entries = (
            np.frombuffer(index, dtype=ENTRY_DTYPE)
            if index
            else np.zeros(0, dtype=ENTRY_DTYPE)
        )
        inventory = []
        for stream_id, spec in enumerate(self._specs):
            mask = entries["stream_id"] == stream_id
            batches = (
                int((directory["stream_id"] == stream_id).sum())
                if len(directory)
                else 0
            )
            inventory.append(inventory_for(spec, entries[mask], batches))
        document = dict(footer_fields)
        document["inventory"] = inventory
        document["integrity"] = {"profile": self._profile.value, "digest": "sha256"}
        raw_json = canonical_dumps(document)
        directory_bytes = directory.tobytes()
        head = FooterHeader(
            batch_count=len(directory),
            record_count=len(entries),
            json_length=len(raw_json),
            json_crc=crc32(raw_json),
            directory_crc=crc32(directory_bytes),
            index_crc=crc32(index),
            data_end=self._offset,
        )
        footer = head.encode() + raw_json + directory_bytes + index
        trailer = Trailer(footer_offset=self._offset, footer_length=len(footer))
        self._write(footer + trailer.encode())
        self._offset += len(footer) + 32
