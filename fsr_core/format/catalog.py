"""Ready-made stream definitions for the usual kinds of recorded data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fsr_core.format.streams import StreamKind, StreamSpec

__all__ = [
    "APPLIED_CONTROL_STREAM",
    "AUTHORED_CONTROL_STREAM",
    "EVENTS_STREAM",
    "GEOMETRY_MESHES_STREAM",
    "GEOMETRY_PREFIX",
    "GEOMETRY_TRANSFORMS_STREAM",
    "LIFECYCLE_STREAM",
    "RENDER_STATE_STREAM",
    "TASK_STREAM",
    "camera_streams",
    "geometry_streams",
    "geometry_transform_stream",
    "json_stream",
    "lifecycle_stream",
    "numeric_stream",
    "render_state_stream",
]

# The stream names every simulator writes alike; define a name here once and
# import it wherever a recorder, a replay or a reader needs it.
LIFECYCLE_STREAM = "run.lifecycle"
"""Start, generation resets, the terminal cut and completion."""
AUTHORED_CONTROL_STREAM = "control.authored"
"""The control chunks a run was given (what a resimulation submits again)."""
APPLIED_CONTROL_STREAM = "control.applied"
"""What the actuators received (evidence only, never replayed)."""
EVENTS_STREAM = "events"
"""Named events (pushes, switches, calibration changes)."""
TASK_STREAM = "task.context"
"""The task and the overlay drawn over the scene."""
RENDER_STATE_STREAM = "render.state"
"""The visual state a re-render applies frame by frame."""
GEOMETRY_PREFIX = "scene.geometry"
"""The prefix of the scene geometry streams."""
GEOMETRY_MESHES_STREAM = f"{GEOMETRY_PREFIX}.meshes"
"""Meshes of the scene geometry, stored once."""
GEOMETRY_TRANSFORMS_STREAM = f"{GEOMETRY_PREFIX}.transforms"
"""Body poses of the scene geometry over time."""


def numeric_stream(
    name: str,
    channels: Sequence[str],
    units: str | Sequence[str] = "",
    *,
    dtype: str = "float64",
    required: bool = True,
    attributes: dict[str, Any] | None = None,
) -> StreamSpec:
    """One atomic record per tick holding every channel of a source."""
    return StreamSpec(
        name=name,
        kind=StreamKind.NUMERIC,
        codec="raw",
        dtype=dtype,
        shape=(len(channels),),
        channels=tuple(channels),
        units=units if isinstance(units, str) else tuple(units),
        required=required,
        attributes=attributes or {},
    )


def camera_streams(
    camera: str,
    *,
    width: int,
    height: int,
    codec: str = "jpeg",
    prefix: str = "sensors",
    required: bool = True,
    rate_hz: float | None = None,
) -> list[StreamSpec]:
    """Define the four streams of a camera: RGB, intrinsics, translation, quaternion."""
    base = f"{prefix}.{camera}.camera"
    attributes: dict[str, Any] = {} if rate_hz is None else {"rate_hz": rate_hz}
    return [
        StreamSpec(
            f"{base}.rgb",
            StreamKind.CAMERA_RGB,
            codec,
            shape=(height, width, 3),
            camera=camera,
            required=required,
            attributes=attributes,
        ),
        StreamSpec(
            f"{base}.intrinsics",
            StreamKind.CAMERA_INTRINSICS,
            "raw",
            units="px",
            camera=camera,
            required=required,
        ),
        StreamSpec(
            f"{base}.extrinsics.translation",
            StreamKind.CAMERA_TRANSLATION,
            "raw",
            units="m",
            camera=camera,
            required=required,
        ),
        StreamSpec(
            f"{base}.extrinsics.quaternion_xyzw",
            StreamKind.CAMERA_QUATERNION,
            "raw",
            camera=camera,
            required=required,
        ),
    ]


def lifecycle_stream() -> StreamSpec:
    """Define ``run.lifecycle``: start, generation resets, terminal cut, completion."""
    return StreamSpec(
        LIFECYCLE_STREAM, StreamKind.LIFECYCLE, "json", schema="fsr.lifecycle/1"
    )


def json_stream(
    name: str,
    kind: StreamKind = StreamKind.JSON,
    *,
    schema: str = "",
    required: bool = True,
) -> StreamSpec:
    """Define a stream of canonical JSON records (events, task, control ...)."""
    return StreamSpec(name, kind, "json", schema=schema, required=required)


def render_state_stream(
    name: str = RENDER_STATE_STREAM, *, required: bool = False
) -> StreamSpec:
    """Poses, velocities and packed float32 particles, zlib level 1."""
    return StreamSpec(name, StreamKind.RENDER_STATE, "arrays+zlib", required=required)


def geometry_streams(prefix: str = GEOMETRY_PREFIX) -> list[StreamSpec]:
    """Define the mesh stream of scene geometry (meshes are stored once).

    One record per mesh: ``vertices`` float32 (N, 3) and ``faces`` uint32
    (M, 3), with metadata ``mesh_id`` and ``body``. Body poses over time go to
    :func:`geometry_transform_stream`.
    """
    return [
        StreamSpec(
            f"{prefix}.meshes", StreamKind.GEOMETRY_MESH, "arrays+zlib", required=False
        ),
    ]


def geometry_transform_stream(
    bodies: list[str], prefix: str = GEOMETRY_PREFIX
) -> StreamSpec:
    """Dynamic body transforms: float64 ``(len(bodies), 7)`` per sample."""
    return StreamSpec(
        f"{prefix}.transforms",
        StreamKind.GEOMETRY_TRANSFORM,
        "raw",
        dtype="float64",
        shape=(len(bodies), 7),
        units="m",
        required=False,
        attributes={"bodies": list(bodies), "layout": "x y z qx qy qz qw"},
    )
