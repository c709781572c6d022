"""Ready-made stream definitions for the usual kinds of recorded data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fsr_core.format.streams import StreamKind, StreamSpec

__all__ = [
    "LIFECYCLE_STREAM",
    "camera_streams",
    "geometry_streams",
    "geometry_transform_stream",
    "json_stream",
    "lifecycle_stream",
    "numeric_stream",
    "render_state_stream",
]

LIFECYCLE_STREAM = "run.lifecycle"


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
    name: str = "render.state", *, required: bool = False
) -> StreamSpec:
    """Poses, velocities and packed float32 particles, zlib level 1."""
    return StreamSpec(name, StreamKind.RENDER_STATE, "arrays+zlib", required=required)


def geometry_streams(prefix: str = "scene.geometry") -> list[StreamSpec]:
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
    bodies: list[str], prefix: str = "scene.geometry"
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
