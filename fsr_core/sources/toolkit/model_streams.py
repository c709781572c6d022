"""The parts of a recording model as FSR streams (for ``model_to_fsr``).

Each part declares its streams and writes one record (or one frame with its
calibration) per item: a channel sample, a camera frame, a geometry pose
sample, a mesh, a marker. Items are on the model's play-time axis
(``times_s``); the converter sorts them into one schedule and hands each part
the tick of the item's time in the file's common time base.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.calibration import (
    Calibration,
    CalibrationProfile,
    CameraPose,
    calibration_digest,
    centred_pinhole,
)
from fsr_core.errors import FsrError, SchemaError
from fsr_core.format.catalog import (
    EVENTS_STREAM,
    GEOMETRY_MESHES_STREAM,
    LIFECYCLE_STREAM,
    TASK_STREAM,
    camera_streams,
    geometry_streams,
    geometry_transform_stream,
    json_stream,
)
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    GeometryMesh,
    Marker,
    MarkerKind,
    SceneGeometry,
)
from fsr_core.sources.toolkit.stream_names import NameTable

__all__ = [
    "CAMERA_PREFIX",
    "CHANNEL_PREFIX",
    "CameraPart",
    "ChannelPart",
    "MarkersPart",
    "MeshesPart",
    "Part",
    "PosesPart",
    "TargetsPart",
    "camera_names",
    "channel_part",
    "checked_times",
    "geometry_parts",
    "nominal_profile",
    "targets_part",
]

CHANNEL_PREFIX: Final = "observations."
"""Each channel ``name`` becomes the numeric stream ``observations.<mapped name>``."""
CAMERA_PREFIX: Final = "sensors"
"""Each camera's streams are ``sensors.<mapped name>.camera.*``."""
_CAMERA_SUFFIX: Final = ".camera.extrinsics.quaternion_xyzw"  # the longest one
_MAX_COLUMNS: Final = ReaderLimits().metadata_json.max_items
_MAX_MESH_BYTES: Final = ReaderLimits().max_batch_bytes
_MAX_UNIT_CHARS: Final = 32

Notes = list[str]


class Part(Protocol):
    """Streams of one part of the model and how to write its items."""

    @property
    def times_s(self) -> FloatArray:
        """Play time of each item, non-decreasing."""
        ...

    def specs(self) -> list[StreamSpec]:
        """Return the streams the part writes."""
        ...

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Write item ``index`` at ``tick`` (sim time: the item's play time)."""
        ...


def checked_times(times: Any, count: int, what: str, path: Path) -> FloatArray:
    """Return ``times`` as float64 when finite, non-decreasing and ``count`` long.

    Raises
    ------
    SchemaError
        Wrong length, a non-finite time, or a time before the previous one.
    """
    array = np.asarray(times, dtype=np.float64)
    if array.ndim != 1 or len(array) != count:
        raise SchemaError(
            f"{what}: {count} samples but times of shape {list(array.shape)}",
            path=path,
        )
    if not np.isfinite(array).all():
        raise SchemaError(f"{what}: a time is not finite", path=path)
    backwards = np.flatnonzero(np.diff(array) < 0)
    if len(backwards):
        at = int(backwards[0]) + 1
        raise SchemaError(
            f"{what}: time goes backwards at sample {at} "
            f"({array[at]!r} s after {array[at - 1]!r} s)",
            path=path,
        )
    return array


@dataclasses.dataclass(frozen=True)
class _SampledPart:
    """A part with one stream and one array record per sample of ``times_s``."""

    spec: StreamSpec
    times_s: FloatArray

    def specs(self) -> list[StreamSpec]:
        """Return the part's one stream."""
        return [self.spec]

    def sample(self, index: int) -> Any:
        """Return the array of sample ``index``."""
        raise NotImplementedError

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Write sample ``index``."""
        writer.write(
            self.spec.name,
            self.sample(index),
            tick=tick,
            sim_time_s=float(self.times_s[index]),
        )


# ------------------------------------------------------------------ channels
@dataclasses.dataclass(frozen=True)
class ChannelPart(_SampledPart):
    """One numeric channel: one record per sample."""

    values: FloatArray
    """Shape (N, C), float64."""

    def sample(self, index: int) -> Any:
        """Return the values of sample ``index``."""
        return self.values[index]


def _column_names(
    what: str, channel: Channel, width: int, notes: Notes
) -> tuple[tuple[str, ...], list[str] | None]:
    """Return the stream's column names and the originals when they differ."""
    columns = tuple(str(column) for column in channel.columns)
    if not columns:
        return (), None
    if len(columns) != width or width > _MAX_COLUMNS:
        notes.append(
            f"{what}: {len(columns)} column names for {width} columns, left out"
        )
        return (), None
    table = NameTable()
    mapped = tuple(table.add(column, f"c{j}") for j, column in enumerate(columns))
    return mapped, (None if mapped == columns else list(columns))


def _unit(unit: str) -> tuple[str, str | None]:
    """Return the stream's unit and the original when it cannot be stored."""
    if len(unit) <= _MAX_UNIT_CHARS and unit.isprintable():
        return unit, None
    return "", unit


def channel_part(
    key: str, channel: Channel, names: NameTable, path: Path, notes: Notes
) -> ChannelPart | None:
    """Return the part of the channel ``key``, or ``None`` (noted) when empty.

    ``key`` is the channel's name in the model (kept as ``channel_name``).

    Raises
    ------
    SchemaError
        Values that are not numbers, or times that do not fit the values.
    """
    what = f"channel {key!r}"
    try:
        values = np.asarray(channel.values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"{what}: values are not numbers ({exc})", path=path) from exc
    if values.ndim == 0:
        raise SchemaError(f"{what}: values are one number, not a series", path=path)
    scalar = values.ndim == 1
    values = values.reshape(values.shape[0], math.prod(values.shape[1:]))
    times = checked_times(channel.times_s, len(values), what, path)
    if not len(values) or values.shape[1] == 0:
        notes.append(f"{what} has no samples or no columns, left out")
        return None
    columns, original_columns = _column_names(what, channel, values.shape[1], notes)
    unit, original_unit = _unit(str(channel.unit))
    attributes: dict[str, Any] = {
        "channel_name": key,
        "label": channel.label,
        "scalar": scalar,
    }
    if original_columns is not None:
        attributes["columns"] = original_columns
    if original_unit is not None:
        attributes["unit"] = original_unit
    spec = StreamSpec(
        name=names.add(key, "channel"),
        kind=StreamKind.NUMERIC,
        codec="raw",
        dtype="float64",
        shape=(values.shape[1],),
        channels=columns,
        units=unit,
        finite=False,
        attributes=attributes,
    )
    return ChannelPart(spec, times, values)


# ------------------------------------------------------------------- cameras
def nominal_profile(width: int, height: int) -> CalibrationProfile:
    """Return the stand-in intrinsics of a frame the source gives none for.

    A pinhole without distortion, ``fx = fy = max(width, height)`` (about a
    53 degree field of view across the longer side), centred.
    """
    return centred_pinhole(width, height, float(max(width, height)))


def _same_pose(pose: CameraPose, other: CameraPose | None) -> bool:
    return (
        other is not None
        and np.array_equal(pose.translation_m, other.translation_m)
        and np.array_equal(pose.quaternion_xyzw, other.quaternion_xyzw)
    )


class CameraPart:
    """One camera: frames fetched one at a time, each with its calibration.

    The first frame is fetched when the part is made (its size declares the
    image stream) and kept until it is written; its intrinsics are declared
    at the file's first tick (:meth:`declare`). An intrinsics record is
    written whenever a frame's calibration differs from the previous frame's
    (a new epoch), the pose (translation and quaternion records) whenever it
    differs from the last one written. A frame without calibration gets
    :func:`nominal_profile`, its intrinsics record marked ``"nominal": true``.
    """

    def __init__(
        self,
        track: CameraTrack,
        camera: str,
        codec: str,
        path: Path,
        cancel: Callable[[], None] | None,
    ) -> None:
        self.track = track
        self.camera = camera
        self.path = path
        self.times_s = checked_times(
            track.times_s, len(track.times_s), f"camera {track.name!r}", path
        )
        if cancel is not None:
            cancel()
        self._first: tuple[RGBFrame, Calibration | None] | None = self._fetch(0)
        frame = self._first[0]
        self.size = (frame.width, frame.height)
        limit = ReaderLimits().max_pixels
        if frame.width * frame.height > limit:
            raise SchemaError(
                f"camera {track.name!r}: frames of {frame.width}x{frame.height} "
                f"exceed {limit} pixels",
                path=path,
            )
        streams = camera_streams(
            camera,
            width=frame.width,
            height=frame.height,
            codec=codec,
            prefix=CAMERA_PREFIX,
        )
        rgb = dataclasses.replace(streams[0], attributes={"camera_name": track.name})
        self._specs = [rgb, *streams[1:]]
        self._digest: str | None = None
        self._pose: CameraPose | None = None
        self.nominal_frames = 0

    def specs(self) -> list[StreamSpec]:
        """Return the RGB, intrinsics, translation and quaternion streams."""
        return list(self._specs)

    def _fetch(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        try:
            frame, calibration = self.track.fetch(index)
        except FsrError as exc:
            exc.locate(path=self.path)
            raise
        if not isinstance(frame, RGBFrame):
            raise SchemaError(
                f"camera {self.track.name!r} frame {index} is "
                f"{type(frame).__name__}, not an RGB frame",
                path=self.path,
            )
        return frame, calibration

    def _frame(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        if index == 0 and self._first is not None:
            first, self._first = self._first, None
            return first
        return self._fetch(index)

    def declare(self, writer: Any, tick: int, sim_time_s: float) -> None:
        """Write the first frame's intrinsics at the start of the file.

        Declared at the first tick rather than with the frame, the first epoch
        begins with the recording, so the FSR source marks only real changes.
        """
        assert self._first is not None
        frame, calibration = self._first
        profile = self._profile(frame, calibration)
        meta = {"nominal": True} if calibration is None else None
        writer.write(
            self._specs[1].name,
            profile,
            tick=tick,
            sim_time_s=sim_time_s,
            metadata=meta,
        )
        self._digest = calibration_digest(profile)

    @staticmethod
    def _profile(
        frame: RGBFrame, calibration: Calibration | None
    ) -> CalibrationProfile:
        if calibration is None:
            return nominal_profile(frame.width, frame.height)
        return calibration.profile

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Fetch frame ``index``; write its calibration (when new), frame, pose."""
        frame, calibration = self._frame(index)
        if (frame.width, frame.height) != self.size:
            raise SchemaError(
                f"camera {self.track.name!r} frame {index} is "
                f"{frame.width}x{frame.height}, its first frame "
                f"{self.size[0]}x{self.size[1]} (one size per camera)",
                path=self.path,
            )
        time_s = float(self.times_s[index])
        rgb, intrinsics, translation, quaternion = (s.name for s in self._specs)
        self.nominal_frames += calibration is None
        profile = self._profile(frame, calibration)
        digest = calibration_digest(profile)
        if digest != self._digest:
            meta = {"nominal": True} if calibration is None else None
            writer.write(
                intrinsics, profile, tick=tick, sim_time_s=time_s, metadata=meta
            )
            self._digest = digest
        writer.write(rgb, frame, tick=tick, sim_time_s=time_s)
        pose = None if calibration is None else calibration.pose
        if pose is not None and not _same_pose(pose, self._pose):
            writer.write(translation, pose.translation_m, tick=tick, sim_time_s=time_s)
            writer.write(quaternion, pose.quaternion_xyzw, tick=tick, sim_time_s=time_s)
            self._pose = pose


def camera_names(tracks: tuple[CameraTrack, ...]) -> list[str]:
    """Return each camera's FSR name (mapped, unique, short enough)."""
    room = 256 - len(CAMERA_PREFIX) - 1 - len(_CAMERA_SUFFIX)
    table = NameTable(max_bytes=room)
    return [table.add(track.name, f"camera{i}") for i, track in enumerate(tracks)]


# ------------------------------------------------------------------ geometry
def _unique_bodies(bodies: tuple[str, ...], notes: Notes) -> list[str]:
    seen: set[str] = set()
    unique = []
    for body in bodies:
        name, count = str(body), 1
        while name in seen:
            count += 1
            name = f"{body}-{count}"
        if name != body:
            notes.append(f"geometry body {body!r} listed twice, renamed {name!r}")
        seen.add(name)
        unique.append(name)
    return unique


@dataclasses.dataclass(frozen=True)
class PosesPart(_SampledPart):
    """Every body's world pose per sample (``geometry.transform``)."""

    poses: FloatArray
    """Shape (T, bodies, 7)."""

    def sample(self, index: int) -> Any:
        """Return every body's pose at sample ``index``."""
        return self.poses[index]


@dataclasses.dataclass(frozen=True)
class MeshesPart:
    """The meshes, written once at the start (``geometry.mesh``)."""

    times_s: FloatArray
    records: list[tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]]

    def specs(self) -> list[StreamSpec]:
        """Return the mesh stream."""
        return geometry_streams()

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Write mesh ``index``."""
        value, metadata = self.records[index]
        writer.write(
            GEOMETRY_MESHES_STREAM,
            value,
            tick=tick,
            sim_time_s=float(self.times_s[index]),
            metadata=metadata,
        )


def _mesh_record(
    mesh: GeometryMesh, bodies: list[str], notes: Notes
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]] | None:
    vertices = np.asarray(mesh.vertices_m, dtype=np.float64)
    faces = np.asarray(mesh.faces, dtype=np.int64)
    what = f"geometry mesh {mesh.name!r}"
    if vertices.ndim != 2 or vertices.shape[1] != 3 or not len(vertices):
        notes.append(f"{what}: vertices of shape {list(vertices.shape)}, left out")
        return None
    if faces.ndim != 2 or faces.shape[1] != 3:
        notes.append(f"{what}: faces of shape {list(faces.shape)}, left out")
        return None
    if not np.isfinite(vertices).all() or not 0 <= mesh.body < len(bodies):
        notes.append(f"{what}: vertices not finite or no such body, left out")
        return None
    if len(faces) and (faces.min() < 0 or faces.max() >= len(vertices)):
        notes.append(f"{what}: a face points past the vertices, left out")
        return None
    if vertices.nbytes + faces.nbytes > _MAX_MESH_BYTES:
        notes.append(f"{what}: {vertices.nbytes + faces.nbytes} bytes, left out")
        return None
    metadata: dict[str, Any] = {
        "mesh_id": mesh.name,
        "body": bodies[mesh.body],
        "frame": "body",
        "geom_type": mesh.kind,
    }
    rgba = [float(v) for v in mesh.rgba]
    if all(math.isfinite(v) for v in rgba):
        metadata["rgba"] = rgba
    return {"vertices": vertices, "faces": faces.astype(np.uint32)}, metadata


def geometry_parts(
    geometry: SceneGeometry | None, start_s: float, path: Path, notes: Notes
) -> tuple[PosesPart, MeshesPart] | None:
    """Return the pose and mesh parts, or ``None`` when there is nothing to draw.

    Raises
    ------
    SchemaError
        The poses do not have the shape (T, bodies, 7) of the times.
    """
    if geometry is None:
        return None
    bodies = _unique_bodies(tuple(geometry.bodies), notes)
    times = checked_times(geometry.times_s, len(geometry.times_s), "geometry", path)
    poses = np.asarray(geometry.poses, dtype=np.float64)
    if poses.shape != (len(times), len(bodies), 7):
        raise SchemaError(
            f"geometry: poses of shape {list(poses.shape)}, expected "
            f"[{len(times)}, {len(bodies)}, 7]",
            path=path,
        )
    records = [
        record
        for record in (_mesh_record(mesh, bodies, notes) for mesh in geometry.meshes)
        if record is not None
    ]
    if not bodies or not records or not len(times):
        notes.append("scene geometry without bodies, meshes or poses, left out")
        return None
    spec = dataclasses.replace(geometry_transform_stream(bodies), finite=False)
    meshes = MeshesPart(np.full(len(records), start_s), records)
    return PosesPart(spec, times, poses), meshes


# ------------------------------------------------------- targets and markers
@dataclasses.dataclass(frozen=True)
class TargetsPart:
    """The scene's 3D targets: one ``task`` record (``targets_3d``)."""

    times_s: FloatArray
    value: dict[str, Any]

    def specs(self) -> list[StreamSpec]:
        """Return the task stream."""
        return [json_stream(TASK_STREAM, StreamKind.TASK, schema="fsr.task/1")]

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Write the targets."""
        time_s = float(self.times_s[index])
        writer.write(TASK_STREAM, self.value, tick=tick, sim_time_s=time_s)


def targets_part(geometry: SceneGeometry | None, start_s: float) -> TargetsPart | None:
    """Return the part of the geometry's targets (finite ones), if any."""
    if geometry is None:
        return None
    targets = [
        {
            "name": target.name,
            "pos_m": [float(v) for v in target.position_m],
            "radius_m": float(target.radius_m),
        }
        for target in geometry.targets
        if all(map(math.isfinite, (*target.position_m, target.radius_m)))
    ]
    if not targets:
        return None
    return TargetsPart(np.array([start_s]), {"targets_3d": targets})


class MarkersPart:
    """Markers: the first terminal cut as a lifecycle record, others as events.

    Calibration markers are left out: the FSR source makes them again from
    the calibration epochs written with the frames.
    """

    def __init__(self, markers: tuple[Marker, ...], notes: Notes) -> None:
        kept = [m for m in markers if m.kind is not MarkerKind.CALIBRATION]
        finite = [m for m in kept if math.isfinite(m.play_time_s)]
        if len(finite) < len(kept):
            notes.append(f"{len(kept) - len(finite)} marker(s) at no finite time")
        self._markers = sorted(finite, key=lambda m: m.play_time_s)
        cuts = [
            i for i, m in enumerate(self._markers) if m.kind is MarkerKind.TERMINAL_CUT
        ]
        self._cut = cuts[0] if cuts else None
        self.times_s: FloatArray = np.array(
            [m.play_time_s for m in self._markers], dtype=np.float64
        )

    def specs(self) -> list[StreamSpec]:
        """Return the events stream, when a marker is not the terminal cut."""
        if len(self._markers) > (self._cut is not None):
            return [json_stream(EVENTS_STREAM, StreamKind.EVENT, schema="fsr.event/1")]
        return []

    def write(self, writer: Any, index: int, tick: int) -> None:
        """Write marker ``index``."""
        marker = self._markers[index]
        time_s = float(self.times_s[index])
        if index == self._cut:
            value: dict[str, Any] = {"event": "terminal_semantic_cut"}
            writer.write(LIFECYCLE_STREAM, value, tick=tick, sim_time_s=time_s)
            return
        value = {"name": marker.label, "marker": marker.kind.value}
        end = marker.end_play_s
        if end is not None and math.isfinite(end):
            value["end_play_s"] = float(end)
        writer.write(EVENTS_STREAM, value, tick=tick, sim_time_s=time_s)
