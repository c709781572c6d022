"""A raw numeric stream read whole: many records per read, one decode per span.

Reading record by record costs a read, a CRC and a decode each: 3.6 million
records of a 1 kHz stream over an hour took tens of seconds. Here the records
are read in spans of up to :data:`SPAN_BYTES` (one ``pread`` each), every
record's CRC (and the profile's digest) is still checked, and the payloads
of the span are gathered into the values array with one numpy indexing. A
span never reads over more than :data:`SPAN_GAP_BYTES` of other streams'
records: a sparse stream (a few bytes a frame between camera batches) reads
its own batches, not the whole file. Anything unusual (a payload of another
length) returns ``None`` so the caller reads record by record, and any check
that fails raises exactly what the record-by-record read raises for that
record.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fsr_core.checksums import crc32
from fsr_core.errors import CorruptRecordError, SchemaError
from fsr_core.format.layout import Layout
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.runs import runs_within
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.streams import StreamSpec

__all__ = ["SPAN_BYTES", "SPAN_GAP_BYTES", "read_raw_series"]

SPAN_BYTES = 8 << 20
"""Most bytes one read of a span covers (8 MiB)."""

SPAN_GAP_BYTES = 64 << 10
"""Most bytes of other records a span reads over between two of its own
(64 KiB); past that, another ``pread`` costs less than the bytes skipped."""

PART_ROWS = 1 << 16
"""Records whose index entries are read at a time (4 MiB of entries)."""


def read_raw_series(
    source: ByteSource,
    layout: Layout,
    rows: npt.NDArray[np.int64],
    spec: StreamSpec,
    profile: IntegrityProfile,
    verify_batch: Callable[[int], None],
) -> npt.NDArray[np.generic] | None:
    """Return the values of ``rows`` (one stream, file order), or ``None``.

    ``None`` means the fast path does not apply (records out of file order,
    or a payload not of the stream's fixed size); read record by record then.

    Raises
    ------
    CorruptRecordError
        A record fails its CRC or digest.
    SchemaError
        A value of a finite stream is NaN or infinite.
    """
    dtype = spec.numpy_dtype
    size = spec.element_count * dtype.itemsize
    if len(rows) == 0:
        return None
    values = np.empty((len(rows), size), dtype=np.uint8)
    read = _Part(source, layout, spec, profile, verify_batch)
    for first in range(0, len(rows), PART_ROWS):
        part = rows[first : first + PART_ROWS]
        if first and int(part[0]) <= int(rows[first - 1]):
            return None
        if not read.into(part, values[first : first + PART_ROWS]):
            return None
    decoded = values.view(dtype).reshape(len(rows), *spec.shape)
    if spec.finite and dtype.kind == "f" and not np.isfinite(decoded).all():
        raise SchemaError("NaN or infinite value in a finite stream", stream=spec.name)
    return decoded


@dataclass(frozen=True)
class _Part:
    """Reads the values of one part of a stream's rows (index entries of a part)."""

    source: ByteSource
    layout: Layout
    spec: StreamSpec
    profile: IntegrityProfile
    verify_batch: Callable[[int], None]

    def into(self, rows: npt.NDArray[np.int64], values: npt.NDArray[np.uint8]) -> bool:
        """Fill ``values`` with the payloads of ``rows``; False: not the fast path."""
        size = values.shape[1]
        index = self.layout.index
        entries = index.take(rows, self.source)
        if np.any(entries["payload_length"] != size):
            return False
        offsets = index.record_offsets(entries, rows)
        if np.any(np.diff(offsets) <= 0):
            return False
        meta = entries["meta_length"].astype(np.int64)
        lengths = meta + size
        ends = offsets + lengths
        strong = self.profile is IntegrityProfile.STRONG
        digests = self.layout.record_digests if strong else None
        spans = runs_within(offsets, ends, SPAN_BYTES, max_gap=SPAN_GAP_BYTES)
        for first, last in spans:
            start = int(offsets[first])
            data = self.source.read_at(
                start, int(ends[last - 1]) - start, section="record"
            )
            local = offsets[first:last] - start
            problem = _first_bad_record(
                data,
                local,
                lengths[first:last],
                entries["record_crc"][first:last],
                None if digests is None else digests[rows[first:last]],
            )
            if problem is not None:
                row, reason = problem
                raise CorruptRecordError(
                    reason,
                    stream=self.spec.name,
                    record=int(entries["stream_seq"][first + row]),
                    offset=int(offsets[first + row]),
                )
            if self.profile is IntegrityProfile.FAST:
                for batch in np.unique(index.batch_of(rows[first:last])).tolist():
                    self.verify_batch(int(batch))
            _gather(data, local + meta[first:last], size, values[first:last])
        return True


def _gather(
    data: bytes, starts: npt.NDArray[np.int64], size: int, out: npt.NDArray[np.uint8]
) -> None:
    """Copy ``size`` bytes at each of ``starts`` into the rows of ``out``.

    Records of one batch follow each other at a fixed stride, so each run of
    equal strides is one strided copy (no index array as big as the data).
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    steps = np.diff(starts)
    breaks: list[int] = (
        (np.flatnonzero(steps[1:] != steps[:-1]) + 1).tolist() if len(steps) > 1 else []
    )
    edges = [0, *(int(b) + 1 for b in breaks), len(starts)]
    for begin, end in itertools.pairwise(edges):
        if begin >= end:
            continue
        stride = int(steps[begin]) if end - begin > 1 else size
        first = int(starts[begin])
        out[begin:end] = np.lib.stride_tricks.as_strided(
            raw[first:], shape=(end - begin, size), strides=(stride, 1), writeable=False
        )


def _first_bad_record(
    data: bytes,
    local: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
    crcs: npt.NDArray[np.generic],
    digests: npt.NDArray[np.generic] | None,
) -> tuple[int, str] | None:
    """Return ``(row, why)`` of the first record of a span that fails its checks."""
    view = memoryview(data)
    for row, (begin, length, crc) in enumerate(
        zip(local.tolist(), lengths.tolist(), crcs.tolist(), strict=True)
    ):
        record = view[begin : begin + length]
        if crc32(record) != crc:
            return row, "record fails its CRC"
        if (
            digests is not None
            and hashlib.sha256(record).digest() != digests[row].tobytes()
        ):
            return row, "record fails its SHA-256"
    return None
