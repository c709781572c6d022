"""Copy every record of an open reader into a writer, byte for byte."""

from __future__ import annotations

from typing import Any

from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.format.writer import FsrWriter

__all__ = ["copy_records"]


def copy_records(
    reader: FsrReader, writer: FsrWriter, recovered: dict[str, Any] | None = None
) -> int:
    """Copy all records in capture order; return how many were copied."""
    count = 0
    for record in reader.iter_records():
        value = None
        if record.spec.codec == "json":
            value = record.decoded
        elif record.spec.kind is StreamKind.CAMERA_INTRINSICS:
            value = record.metadata.get("profile")
        metadata = {
            k: v
            for k, v in record.metadata.items()
            if record.spec.kind is not StreamKind.CAMERA_INTRINSICS
            or k not in ("profile", "calibration_digest")
        }
        raw_length = (
            len(record.payload)
            if record.spec.codec != "arrays+zlib"
            else reader._raw_length(record)
        )
        writer.write_encoded(
            record.stream,
            record.payload,
            raw_length=raw_length,
            tick=record.tick,
            sim_time_s=record.sim_time_s,
            generation=record.generation,
            metadata=metadata,
            value=value,
        )
        count += 1
    if recovered is not None:
        gaps = (
            []
            if reader.footer is None
            else [
                {
                    "stream": g.stream,
                    "after_seq": g.after_seq,
                    "lost": g.lost,
                    "reason": g.reason,
                }
                for g in reader.footer.gaps
            ]
        )
        writer.mark_recovered(recovered, gaps)
    return count
