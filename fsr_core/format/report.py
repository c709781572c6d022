"""The validation report of a file: what ``fsr-viewer inspect`` prints.

The report is plain data (a JSON-compatible dict) so the CLI, the GUI's
inspector and scripts all show the same facts.
"""

from __future__ import annotations

from typing import Any

from fsr_core.format.reader import FsrReader

__all__ = ["inspection_report"]


def _stream_entry(reader: FsrReader, name: str) -> dict[str, Any]:
    info = reader.streams[name]
    spec = info.spec
    entry: dict[str, Any] = {
        "name": name,
        "kind": spec.kind.value,
        "codec": spec.codec,
        "schema": spec.schema,
        "required": spec.required,
        "records": info.record_count,
        "first_tick": info.first_tick,
        "last_tick": info.last_tick,
        "first_sim_time_s": info.first_sim_time_s,
        "last_sim_time_s": info.last_sim_time_s,
        "rate_hz": None if info.rate_hz is None else round(info.rate_hz, 6),
        "generations": list(info.generations),
        "payload_bytes": info.payload_bytes,
    }
    if spec.dtype is not None:
        entry["dtype"] = spec.dtype
        entry["shape"] = list(spec.shape)
    if spec.camera is not None:
        entry["camera"] = spec.camera
    if spec.channels:
        entry["channels"] = list(spec.channels)
    return entry


def inspection_report(reader: FsrReader, *, verify: bool = False) -> dict[str, Any]:
    """Describe an open file: profile, streams, epochs, lifecycle, gaps, provenance.

    With ``verify``, every record is read and checked (CRC, digests, decoding)
    and the problems are listed; ``verified`` is true only when a digest
    profile (``fast`` or ``strong``) covered every payload and no problem was
    found.
    """
    footer = reader.footer
    report: dict[str, Any] = {
        "path": reader.path,
        "valid": True,
        "version": reader.version,
        "profile": reader.profile.value,
        "size_bytes": reader.size_bytes,
        "records": reader.record_count,
        "metadata": reader.metadata,
        "streams": [_stream_entry(reader, name) for name in reader.streams],
        "calibration_epochs": [
            {
                "camera": e.camera,
                "generation": e.generation,
                "epoch": e.epoch,
                "digest": e.digest,
                "first_tick": e.first_tick,
                "first_sim_time_s": e.first_sim_time_s,
                "width": e.profile.width,
                "height": e.profile.height,
                "K": [list(map(float, row)) for row in e.profile.K],
            }
            for e in reader.calibration_epochs()
        ],
        "lifecycle": _lifecycle(reader),
        "terminal_cut": footer.terminal_cut if footer else None,
        "completion": footer.completion if footer else None,
        "degraded": footer.degraded if footer else True,
        "gaps": [] if footer is None else [g.__dict__ for g in footer.gaps],
        "provenance": footer.provenance if footer else {},
        "recovered": _recovered(reader),
    }
    if verify:
        problems = reader.verify()
        report["verification"] = {
            "checked_records": reader.record_count,
            "problems": [str(p) for p in problems[:100]],
            "problem_count": len(problems),
            "payloads_digest_verified": reader.profile.value != "structural"
            and not problems,
        }
        report["valid"] = not problems
    return report


def _lifecycle(reader: FsrReader) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for spec in (info.spec for info in reader.streams.values()):
        if spec.kind.value != "lifecycle":
            continue
        for record in reader.iter_records(spec.name):
            value = record.decoded
            events.append(
                {
                    "stream": spec.name,
                    "generation": record.generation,
                    "tick": record.tick,
                    "sim_time_s": record.sim_time_s,
                    **(value if isinstance(value, dict) else {"value": value}),
                }
            )
    return events


def _recovered(reader: FsrReader) -> dict[str, Any] | None:
    if reader.recovery is not None:
        info = reader.recovery
        return {
            "in_this_open": True,
            "reason": info.reason,
            "trusted_bytes": info.trusted_bytes,
            "file_bytes": info.file_bytes,
            "kept_fraction": round(info.kept_fraction, 4),
            "batches_kept": info.batches_kept,
            "records_kept": info.records_kept,
        }
    if reader.footer is not None and reader.footer.recovered is not None:
        return {"in_this_open": False, **reader.footer.recovered}
    return None
