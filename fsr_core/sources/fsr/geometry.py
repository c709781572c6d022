"""The recorded 3D scene of an FSR file: meshes, body poses over time, targets.

A recording with scene geometry has one ``geometry.mesh`` stream (one record
per mesh, written once: ``vertices`` (N, 3) and ``faces`` (M, 3) in the frame
of the body named by the record's ``body`` metadata) and one
``geometry.transform`` stream (every body's world pose ``x y z qx qy qz qw``
per sample; its ``bodies`` attribute names them). Task records may list 3D
targets (``targets_3d``: name, ``pos_m``, ``radius_m``). The viewer draws the
scene from these alone, without the simulator that made it.

Geometry is optional and only drawn, so a mesh that does not fit (wrong
shape, a face pointing past the vertices, an unknown body) is left out with a
warning naming the file and record rather than refusing the whole recording.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.recording import GeometryMesh, SceneGeometry, SceneTarget, Timeline

__all__ = ["load_geometry", "play_times"]

logger = logging.getLogger(__name__)


def _stream(reader: FsrReader, kind: StreamKind) -> str | None:
    for info in reader.streams.values():
        if info.spec.kind is kind and info.record_count:
            return info.name
    return None


def play_times(reader: FsrReader, stream: str, timeline: Timeline) -> FloatArray:
    """Return the play time of every record of ``stream`` on ``timeline``."""
    times: FloatArray = reader.column(stream, "sim_time_s").astype(
        np.float64, copy=False
    )
    # Each generation is one run of rows: shifted in place, run by run.
    firsts, lasts = reader.generation_runs(stream)
    for first, last in zip(firsts, lasts, strict=True):
        rows = slice(int(first["stream_seq"]), int(last["stream_seq"]) + 1)
        segment = timeline.segment(int(first["generation"]))
        run = times[rows]  # a view: Timeline.play_time's sum, done in place
        np.subtract(run, segment.first_sim_time_s, out=run)
        np.add(run, segment.start_play_s, out=run)
    return times


def _rgba(value: Any) -> tuple[float, float, float, float] | None:
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    try:
        rgba = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in rgba):
        return None
    r, g, b, a = (min(max(v, 0.0), 1.0) for v in rgba)
    return r, g, b, a


def _mesh(
    value: Any, metadata: dict[str, Any], bodies: tuple[str, ...]
) -> GeometryMesh | str:
    """Return the mesh of one record, or why it is left out."""
    if not isinstance(value, dict):
        return "not a vertices/faces record"
    vertices = np.asarray(value.get("vertices"), dtype=np.float64)
    faces = np.asarray(value.get("faces"))
    if vertices.ndim != 2 or vertices.shape[1] != 3 or not len(vertices):
        return f"vertices have shape {vertices.shape}, expected (N, 3)"
    if faces.ndim != 2 or faces.shape[1] != 3 or faces.dtype.kind not in "iu":
        return f"faces have shape {faces.shape} ({faces.dtype}), expected (M, 3) ints"
    if len(faces) and (faces.min() < 0 or faces.max() >= len(vertices)):
        return f"a face points past the {len(vertices)} vertices"
    if not np.isfinite(vertices).all():
        return "vertices are not finite"
    body = metadata.get("body")
    if body not in bodies:
        return f"its body {body!r} has no recorded pose"
    rgba = _rgba(metadata.get("rgba"))
    name = str(metadata.get("mesh_id", body))
    kind = str(metadata.get("geom_type", "mesh"))
    mesh = GeometryMesh(
        name, bodies.index(body), kind, vertices, faces.astype(np.int64)
    )
    if rgba is not None:
        mesh = GeometryMesh(name, mesh.body, kind, vertices, mesh.faces, rgba)
    return mesh


def _targets(reader: FsrReader) -> tuple[SceneTarget, ...]:
    targets: list[SceneTarget] = []
    for info in reader.streams.values():
        if info.spec.kind is not StreamKind.TASK:
            continue
        for record in reader.iter_records(info.name):
            value = record.decoded if isinstance(record.decoded, dict) else {}
            listed = value.get("targets_3d")
            if not isinstance(listed, list):
                continue
            targets.clear()  # the latest task record lists them all
            for item in listed:
                try:
                    x, y, z = (float(v) for v in item["pos_m"])
                    target = SceneTarget(
                        str(item.get("name", "")), (x, y, z), float(item["radius_m"])
                    )
                except (KeyError, TypeError, ValueError):
                    continue
                if all(map(math.isfinite, (x, y, z, target.radius_m))):
                    targets.append(target)
    return tuple(targets)


def load_geometry(reader: FsrReader, timeline: Timeline) -> SceneGeometry | None:
    """Return the recorded 3D scene, or ``None`` when the file has none.

    Parameters
    ----------
    reader
        The open recording.
    timeline
        Its play-time axis (pose samples are placed on it).
    """
    meshes_stream = _stream(reader, StreamKind.GEOMETRY_MESH)
    poses_stream = _stream(reader, StreamKind.GEOMETRY_TRANSFORM)
    if meshes_stream is None or poses_stream is None:
        return None
    spec = reader.streams[poses_stream].spec
    bodies = tuple(str(name) for name in spec.attributes.get("bodies", ()))
    _, _, values = reader.read_series(poses_stream)
    poses = np.asarray(values, dtype=np.float64)
    if poses.ndim != 3 or poses.shape[1:] != (len(bodies), 7):
        logger.warning(
            "%s: %s has shape %s, expected (T, %d, 7); no 3D scene drawn",
            reader.path,
            poses_stream,
            poses.shape,
            len(bodies),
        )
        return None
    meshes: list[GeometryMesh] = []
    for record in reader.iter_records(meshes_stream):
        mesh = _mesh(record.decoded, record.metadata or {}, bodies)
        if isinstance(mesh, str):
            logger.warning(
                "%s: %s record %d left out of the 3D scene: %s",
                reader.path,
                meshes_stream,
                record.stream_seq,
                mesh,
            )
            continue
        meshes.append(mesh)
    if not meshes:
        return None
    return SceneGeometry(
        bodies=bodies,
        meshes=tuple(meshes),
        times_s=play_times(reader, poses_stream, timeline),
        poses=poses,
        targets=_targets(reader),
    )
