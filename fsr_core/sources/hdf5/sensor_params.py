"""ManiSkill's recorded camera matrices as each frame's calibration.

Beside ``obs/sensor_data/<camera>/{rgb, depth}`` ManiSkill's ``RecordEpisode``
stores, one row per observation, ``obs/sensor_param/<camera>/``:

* ``intrinsic_cv`` (3x3): the camera matrix ``K``, in pixels;
* ``extrinsic_cv`` (3x4): ``[R | t]`` from the world to the camera, in
  OpenCV's camera axes (x right, y down, z forward);
* ``cam2world_gl`` (4x4): from the camera to the world, in OpenGL's camera
  axes (x right, y up, z backward).

A :class:`~fsr_core.calibration.CameraPose` is camera to world in OpenCV's
axes, so it is ``extrinsic_cv`` inverted: ``R.T`` and ``-R.T @ t``. Without
``extrinsic_cv`` it is ``cam2world_gl`` with its y and z axes turned. Each
frame of the camera (its colour and its depth alike) gets its own row; a new
calibration epoch starts where ``K`` changes (the pose may change every frame,
a camera on the hand). The matrices are a few numbers a step, read whole when
the episode is opened, so a row that is no calibration (``K`` not a pinhole,
a pose that is no rotation) is a note of the report, that frame shown
without calibration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import (
    Calibration,
    CalibrationProfile,
    CameraPose,
    calibration_digest,
    quaternion_from_matrix,
)
from fsr_core.errors import CalibrationError
from fsr_core.sources.hdf5.arrays import (
    MATRIX_SHAPES,
    SENSOR_PARAM,
    ArrayInfo,
    read_channel,
)

__all__ = ["SensorCalibration", "read_sensor_calibration", "sensor_of"]

SENSOR_DATA: Final = "sensor_data"
INTRINSIC: Final = "intrinsic_cv"
EXTRINSIC: Final = "extrinsic_cv"
CAM2WORLD_GL: Final = "cam2world_gl"

ROTATION_TOLERANCE: Final = 1e-4
"""Largest deviation of ``R.T @ R`` from the identity accepted as a rotation
(the matrices are stored as float32)."""

_GL_TO_CV: Final = np.diag([1.0, -1.0, -1.0])
"""OpenGL's camera axes (y up, z backward) to OpenCV's (y down, z forward)."""


def sensor_of(key: str) -> str | None:
    """Return the ``sensor_param`` group of a camera array (``None``: not one).

    ``obs/sensor_data/base_camera/rgb`` gives ``obs/sensor_param/base_camera``.
    """
    parts = key.split("/")
    if len(parts) < 3 or parts[-3] != SENSOR_DATA:
        return None
    return "/".join([*parts[:-3], SENSOR_PARAM, parts[-2]])


@dataclass(frozen=True)
class SensorCalibration:
    """One camera's calibration of every recorded row."""

    rows: tuple[Calibration | None, ...]
    epochs: int
    """Intrinsic calibration epochs (``K`` changes)."""
    pose_from: str
    """Which matrix gives the pose (``extrinsic_cv``, ``cam2world_gl`` or ``""``)."""

    def at(self, index: int) -> Calibration | None:
        """Return the calibration of frame ``index`` (``None`` when it has none)."""
        return self.rows[index] if 0 <= index < len(self.rows) else None


def _profile(k: FloatArray, width: int, height: int) -> CalibrationProfile:
    if not np.allclose(k[1, 0], 0.0) or not np.allclose(k[2], (0.0, 0.0, 1.0)):
        raise CalibrationError(
            f"{INTRINSIC} is not a pinhole camera matrix (its last rows are "
            f"{k[1].tolist()}, {k[2].tolist()})",
            section="calibration profile",
        )
    return CalibrationProfile(
        width=width,
        height=height,
        fx=float(k[0, 0]),
        fy=float(k[1, 1]),
        cx=float(k[0, 2]),
        cy=float(k[1, 2]),
        skew=float(k[0, 1]),
    )


def _pose(rotation: FloatArray, position: FloatArray) -> CameraPose:
    """Return the pose of a camera-to-world rotation (OpenCV axes) and position."""
    quaternion = quaternion_from_matrix(rotation, atol=ROTATION_TOLERANCE)
    return CameraPose.normalized(position, quaternion)


def _pose_from_extrinsic(world_to_camera: FloatArray) -> CameraPose:
    rotation = world_to_camera[:, :3]
    return _pose(rotation.T, -rotation.T @ world_to_camera[:, 3])


def _pose_from_gl(camera_to_world: FloatArray) -> CameraPose:
    return _pose(camera_to_world[:3, :3] @ _GL_TO_CV, camera_to_world[:3, 3])


def _matrices(
    group: Any, params: Mapping[str, ArrayInfo], name: str, path: Path
) -> FloatArray | None:
    info = params.get(name)
    if info is None:
        return None
    values = read_channel(group, info, path)
    matrices: FloatArray = values.reshape(info.rows, *MATRIX_SHAPES[name])
    return matrices


def _runs(rows: list[int]) -> str:
    """Return frame numbers as runs (``3, 7 to 9``)."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    shown = [str(a) if a == b else f"{a} to {b}" for a, b in runs[:5]]
    return ", ".join(shown) + (", ..." if len(runs) > 5 else "")


@dataclass
class _Poses:
    """Each row's pose, the rows without one and why the first of them has none."""

    matrices: FloatArray | None
    convert: Callable[[FloatArray], CameraPose]
    source: str
    missing: list[int] = field(default_factory=list)
    why: str = ""

    def at(self, index: int) -> CameraPose | None:
        """Return row ``index``'s pose (``None``, and noted, when it has none)."""
        if self.matrices is None:
            return None
        why = f"{self.source} has {len(self.matrices)} rows"
        if index < len(self.matrices):
            try:
                return self.convert(self.matrices[index])
            except (CalibrationError, ValueError) as exc:
                why = str(exc)
        self.missing.append(index)
        self.why = self.why or why
        return None


def _poses(group: Any, params: Mapping[str, ArrayInfo], path: Path) -> _Poses:
    """Return the poses of ``extrinsic_cv``, else of ``cam2world_gl``."""
    extrinsics = _matrices(group, params, EXTRINSIC, path)
    if extrinsics is not None:
        return _Poses(extrinsics, _pose_from_extrinsic, EXTRINSIC)
    gl_poses = _matrices(group, params, CAM2WORLD_GL, path)
    if gl_poses is not None:
        return _Poses(gl_poses, _pose_from_gl, CAM2WORLD_GL)
    return _Poses(None, _pose_from_gl, "")


def read_sensor_calibration(
    group: Any,
    sensor: str,
    params: Mapping[str, ArrayInfo],
    size: tuple[int, int],
    rate: float,
    path: Path,
) -> tuple[SensorCalibration | None, list[str]]:
    """Return the calibration of every row of the camera ``sensor`` and notes.

    ``params`` are its recorded matrices by name (``intrinsic_cv`` ...),
    ``size`` the width and height of its frames, ``rate`` the rows per
    second. ``None`` when it records no ``intrinsic_cv``.

    Raises
    ------
    LimitExceededError
        A matrix array is over the memory budget.
    FsrError
        The HDF5 library cannot read it.
    """
    intrinsics = _matrices(group, params, INTRINSIC, path)
    if intrinsics is None:
        return None, []
    poses = _poses(group, params, path)
    width, height = size
    camera = sensor.rsplit("/", 1)[-1]
    rows: list[Calibration | None] = []
    unusable: list[int] = []
    why = ""
    epoch, digest, first = -1, "", 0
    profile: CalibrationProfile | None = None
    for index, k in enumerate(intrinsics):
        if profile is None or not np.array_equal(k, intrinsics[index - 1]):
            try:
                profile = _profile(k, width, height)
            except CalibrationError as exc:
                profile = None
                rows.append(None)
                unusable.append(index)
                why = why or str(exc)
                continue
            found = calibration_digest(profile)
            if found != digest:
                epoch, digest, first = epoch + 1, found, index
        rows.append(
            Calibration(
                camera=camera,
                generation=0,
                epoch=epoch,
                digest=digest,
                profile=profile,
                pose=poses.at(index),
                first_tick=first,
                first_sim_time_s=first / rate,
            )
        )
    notes = []
    if unusable:
        notes.append(f"{sensor}: frame(s) {_runs(unusable)} have no calibration: {why}")
    if poses.missing:
        notes.append(
            f"{sensor}: frame(s) {_runs(poses.missing)} have no camera pose: "
            f"{poses.why}"
        )
    return SensorCalibration(tuple(rows), epoch + 1, poses.source), notes
