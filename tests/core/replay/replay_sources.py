"""Small planar-arm recordings to replay, and a copier that edits one on the way.

Imported by the tests of this folder (``from replay_sources import ...``) and
by its ``conftest.py``.

Sources are short (0.3 s, no camera unless asked, a 16x12 camera when asked)
so each records and replays in a fraction of a second. :func:`rewrite` copies a
recording record by record, payloads as they are, with edits to its metadata,
its stream table or its authored chunks: that is how the bad sources of the
preflight tests are made. :data:`RESIMULATE` and :data:`RENDER` are the
default options of each replay mode.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.values import Record
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

AUTHORED = "control.authored"
RESIMULATE = ReplayOptions(mode=ReplayMode.RESIMULATE)
RENDER = ReplayOptions(mode=ReplayMode.RENDER)

# An edit of the authored stream returns, for one record, the records to write
# in its place: (chunk JSON, generation, tick) each.
Written = tuple[dict[str, Any], int, int]
ChunkEdit = Callable[[int, Record], list[Written]]


def scenario_document(**changes: Any) -> dict[str, Any]:
    """Return a 0.3 s computed-torque reach of a three-link arm, no camera."""
    document: dict[str, Any] = {
        "name": "short_reach",
        "duration_s": 0.3,
        "dt_s": 0.002,
        "arm": {
            "base_m": [0.0, 1.15],
            "links": [
                {"length_m": 0.45, "mass_kg": 1.2},
                {"length_m": 0.35, "mass_kg": 0.9},
                {"length_m": 0.25, "mass_kg": 0.5},
            ],
        },
        "initial": {"q_rad": [-1.2, 0.6, 0.3]},
        "task": {"kind": "reach", "target_xy": [0.55, 1.35]},
        "controller": {"kind": "computed_torque", "kp": 400.0, "kd": 40.0},
        "cameras": [],
    }
    document.update(changes)
    return document


TINY_CAMERA = {
    "name": "front",
    "width": 16,
    "height": 12,
    "fov_deg": 60.0,
    "eye_m": [0.1, -2.9, 1.15],
    "look_at_m": [0.1, 0.0, 1.05],
    "rate_hz": 30.0,
    "codec": "png",
}


def record(
    path: Path, document: dict[str, Any], pushes: tuple[ExternalPush, ...] = ()
) -> Path:
    """Record ``document`` to ``path`` and return it."""
    record_run(Scenario.from_json(document), path, external_pushes=pushes)
    return path


def rewrite(
    source: Path,
    output: Path,
    *,
    metadata: Callable[[dict[str, Any]], None] | None = None,
    streams: Callable[[list[StreamSpec]], list[StreamSpec]] | None = None,
    chunks: ChunkEdit | None = None,
) -> Path:
    """Copy ``source`` to ``output`` with edits (see the module docstring)."""
    with FsrReader.open(source) as reader:
        meta = copy.deepcopy(reader.metadata)
        if metadata is not None:
            metadata(meta)
        specs = [info.spec for info in reader.streams.values()]
        kept = specs if streams is None else streams(specs)
        names = {spec.name for spec in kept}
        authored = 0
        with FsrWriter(output, kept, metadata=meta) as writer:
            for item in reader.iter_records():
                if item.stream not in names:
                    continue
                if item.stream == AUTHORED and chunks is not None:
                    _write_chunk(writer, chunks(authored, item))
                    authored += 1
                else:
                    _copy(reader, writer, item)
    return output


def _write_chunk(writer: FsrWriter, edited: list[Written]) -> None:
    for value, generation, tick in edited:
        writer.write(
            AUTHORED, value, tick=tick, sim_time_s=tick * 0.002, generation=generation
        )


def _copy(reader: FsrReader, writer: FsrWriter, item: Record) -> None:
    """Copy one record as it is (the rules of ``copy_records``)."""
    kind = item.spec.kind
    value = None
    if item.spec.codec == "json":
        value = item.decoded
    elif kind is StreamKind.CAMERA_INTRINSICS:
        value = item.metadata.get("profile")
    metadata = {
        key: field
        for key, field in item.metadata.items()
        if kind is not StreamKind.CAMERA_INTRINSICS
        or key not in ("profile", "calibration_digest")
    }
    packed = item.spec.codec == "arrays+zlib"
    writer.write_encoded(
        item.stream,
        item.payload,
        raw_length=reader._raw_length(item) if packed else len(item.payload),
        tick=item.tick,
        sim_time_s=item.sim_time_s,
        generation=item.generation,
        metadata=metadata,
        value=value,
    )
