"""The inspector's ``genesis`` section of a trajectory's report.

``manifest`` (writer version, source digest, backend, precision, mode, chunk
size, dt, layout, solver configurations), ``fields`` (the rows of the chunk
frames and of the INFO records; the LAST frame's rows are counted),
``records`` (every kept CHNK, INFO and LAST with its offset and length),
``frames`` and ``integrity`` (the cut, if any).
"""

from __future__ import annotations

from typing import Any

from fsr_core.sources.genesis.container import Field, Manifest, TrajectoryIndex

__all__ = ["trajectory_report"]


def _row(item: Field) -> dict[str, Any]:
    return {
        "name": item.name,
        "kind": item.kind,
        "shape": list(item.shape),
        "dtype": item.dtype,
        "offset": item.offset,
        "nbytes": item.nbytes,
        "axes": list(item.axes),
    }


def manifest_facts(manifest: Manifest) -> dict[str, Any]:
    """Return what a trajectory says of itself: format, Genesis, backend, mode, dt."""
    return {
        "format": f"GSTRAJ{manifest.version}",
        "genesis": manifest.genesis,
        "source_digest": manifest.source_digest,
        "backend": manifest.backend,
        "precision": manifest.precision,
        "mode": manifest.mode,
        "dt": manifest.dt,
    }


def trajectory_report(index: TrajectoryIndex, notes: list[str]) -> dict[str, Any]:
    """Return the source section of the report (plain JSON data)."""
    manifest = index.manifest
    raw = manifest.raw
    records: list[dict[str, Any]] = [
        {
            "tag": "CHNK",
            "offset": chunk.offset,
            "length": chunk.payload_length,
            "crc32": f"{chunk.crc:08x}",
            "first_frame": chunk.first_frame,
            "frames": chunk.frame_count,
        }
        for chunk in index.chunks
    ]
    records += [
        {
            "tag": "INFO",
            "offset": info.offset,
            "length": info.payload_length,
            "crc32": f"{info.crc:08x}",
            "first_frame": info.first_frame,
        }
        for info in index.infos
    ]
    if index.last is not None:
        records.append(
            {
                "tag": "LAST",
                "offset": index.last.offset,
                "length": index.last.payload_length,
                "crc32": f"{index.last.crc:08x}",
                "frame": index.chunk_frames,
            }
        )
    records.sort(key=lambda record: int(record["offset"]))
    cut = index.cut
    return {
        "manifest": {
            **manifest_facts(manifest),
            "chunk_size": manifest.chunk_size,
            "layout": raw.get("layout", {}),
            "configs": raw.get("configs", {}),
            "frame_size": manifest.frame_size,
            "last_frame_size": manifest.last_frame_size,
        },
        "description": {
            "offset": index.description_offset,
            "length": index.description_length,
        },
        "fields": [_row(item) for item in manifest.fields],
        "info_fields": [_row(item) for item in manifest.info_fields],
        "last_fields": len(manifest.last_fields),
        "records": records,
        "frames": index.n_frames,
        "chunk_frames": index.chunk_frames,
        "has_last": index.last is not None,
        "integrity": {
            "cut": None
            if cut is None
            else {
                "offset": cut.offset,
                "frames_before": cut.frames_before,
                "reason": cut.reason,
                "text": cut.describe(),
            }
        },
        "notes": list(notes),
    }
