"""The inspector's ``genesis`` section of a trajectory's report.

``manifest`` (writer version, source digest, backend, precision, mode, chunk
size, dt, layout, solver configurations), ``fields`` (the rows of the chunk
frames and of the INFO records; the LAST frame's rows are counted),
``records`` (every kept CHNK, INFO and LAST with its offset and length),
``frames`` and ``integrity`` (the cut, if any), and ``last_frame``: the LAST
record's whole final state, scratch included, field by field (kind, shape,
dtype, smallest and largest value, the first values).
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.sources.genesis.container import Field, Manifest, TrajectoryIndex

__all__ = ["last_frame_rows", "trajectory_report"]

_SHOWN_VALUES: Final = 8
"""Values of a LAST field shown in the report; the rest are counted."""


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


def _number(value: Any) -> float | int | str:
    """Return a value as JSON can hold it (non-finite numbers as text)."""
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, int | np.integer):
        return int(value)
    number = float(value)
    return number if math.isfinite(number) else str(number)


def last_frame_rows(
    fields: tuple[Field, ...], values: dict[str, npt.NDArray[Any]]
) -> list[dict[str, Any]]:
    """Return each LAST field with its kind, shape, dtype, range and first values."""
    rows = []
    for item in fields:
        row: dict[str, Any] = {
            "name": item.name,
            "kind": item.kind,
            "shape": list(item.shape),
            "dtype": item.dtype,
        }
        found = values.get(item.name)
        if found is not None and found.size:
            flat = found.reshape(-1)
            numbers = flat.astype(np.float64)
            finite = numbers[np.isfinite(numbers)]
            if finite.size:
                row["min"] = _number(finite.min())
                row["max"] = _number(finite.max())
            row["values"] = [_number(value) for value in flat[:_SHOWN_VALUES]]
            if flat.size > _SHOWN_VALUES:
                row["more_values"] = int(flat.size - _SHOWN_VALUES)
        rows.append(row)
    return rows


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


def trajectory_report(
    index: TrajectoryIndex,
    notes: list[str],
    last: dict[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """Return the source section of the report (plain JSON data).

    ``last``: the LAST frame's arrays, when they were read.
    """
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
        "last_frame": []
        if last is None
        else last_frame_rows(manifest.last_fields, last),
    }
