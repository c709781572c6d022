"""Camera extrinsics: :class:`CameraPose` (camera to world) and :func:`look_at`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.calibration._fields import POSE_SECTION, points_array, vector_field
from fsr_core.calibration.rotations import (
    matrix_from_quaternion,
    quaternion_from_matrix,
)
from fsr_core.errors import CalibrationError

__all__ = ["QUATERNION_NORM_TOLERANCE", "CameraPose", "look_at"]


#: Largest accepted deviation of a stored quaternion's norm from 1.
QUATERNION_NORM_TOLERANCE: Final = 1e-6


@dataclass(frozen=True, eq=False)
class CameraPose:
    """Pose of a camera in the world: the transform from camera to world.

    A point ``p_c`` in the camera frame is at ``R @ p_c + translation_m`` in the
    world, where ``R = rotation_matrix()``.

    Parameters
    ----------
    translation_m
        Camera position in the world, shape (3,), metres.
    quaternion_xyzw
        Camera orientation (camera to world), shape (4,), ``(x, y, z, w)``;
        its norm must be within :data:`QUATERNION_NORM_TOLERANCE` of 1 (use
        :meth:`normalized` to build a pose from an unnormalised quaternion).

    Raises
    ------
    CalibrationError
        Wrong shape, non-finite components or a non-unit quaternion.
    """

    translation_m: FloatArray
    quaternion_xyzw: FloatArray

    def __post_init__(self) -> None:
        """Copy both arrays read-only and check them."""
        translation = vector_field(self.translation_m, 3, "/translation_m")
        quaternion = vector_field(self.quaternion_xyzw, 4, "/quaternion_xyzw")
        norm = float(np.linalg.norm(quaternion))
        if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
            raise CalibrationError(
                f"/quaternion_xyzw: norm is {norm:.9g}, expected 1 within "
                f"{QUATERNION_NORM_TOLERANCE:g}",
                section=POSE_SECTION,
            )
        object.__setattr__(self, "translation_m", translation)
        object.__setattr__(self, "quaternion_xyzw", quaternion)

    @classmethod
    def normalized(
        cls, translation_m: npt.ArrayLike, quaternion_xyzw: npt.ArrayLike
    ) -> CameraPose:
        """Build a pose, normalising the quaternion first.

        Parameters
        ----------
        translation_m
            Camera position in the world, shape (3,), metres.
        quaternion_xyzw
            Any non-zero finite quaternion ``(x, y, z, w)``.

        Returns
        -------
        CameraPose
            The pose with a unit quaternion.

        Raises
        ------
        CalibrationError
            Wrong shape, non-finite values or a zero quaternion.
        """
        quaternion = vector_field(quaternion_xyzw, 4, "/quaternion_xyzw")
        norm = float(np.linalg.norm(quaternion))
        if not norm > 1e-12:
            raise CalibrationError(
                "/quaternion_xyzw: zero quaternion cannot be normalised",
                section=POSE_SECTION,
            )
        return cls(
            translation_m=np.asarray(translation_m, dtype=np.float64),
            quaternion_xyzw=quaternion / norm,
        )

    def rotation_matrix(self) -> FloatArray:
        """Return the camera-to-world rotation as a read-only (3, 3) array."""
        return matrix_from_quaternion(self.quaternion_xyzw)

    def world_to_camera(self, points_world: npt.ArrayLike) -> FloatArray:
        """Express world points in the camera frame.

        Parameters
        ----------
        points_world
            Points in the world, shape (N, 3), metres.

        Returns
        -------
        numpy.ndarray
            The same points in the camera frame, shape (N, 3).

        Raises
        ------
        ValueError
            ``points_world`` does not have shape (N, 3).
        """
        points = points_array(points_world, "points_world")
        # (R.T @ (p - t).T).T == (p - t) @ R
        result: FloatArray = (points - self.translation_m) @ self.rotation_matrix()
        return result

    def camera_to_world(self, points_camera: npt.ArrayLike) -> FloatArray:
        """Express camera-frame points in the world (inverse of world_to_camera).

        Parameters
        ----------
        points_camera
            Points in the camera frame, shape (N, 3), metres.

        Returns
        -------
        numpy.ndarray
            The same points in the world, shape (N, 3).
        """
        points = points_array(points_camera, "points_camera")
        result: FloatArray = points @ self.rotation_matrix().T + self.translation_m
        return result

    def __eq__(self, other: object) -> bool:
        """Compare component-wise (``q`` and ``-q`` are different values)."""
        if not isinstance(other, CameraPose):
            return NotImplemented
        return bool(
            np.array_equal(self.translation_m, other.translation_m)
            and np.array_equal(self.quaternion_xyzw, other.quaternion_xyzw)
        )

    def __hash__(self) -> int:
        """Hash the component bytes (consistent with ``__eq__``)."""
        return hash((self.translation_m.tobytes(), self.quaternion_xyzw.tobytes()))


def look_at(
    eye_m: npt.ArrayLike,
    target_m: npt.ArrayLike,
    up: npt.ArrayLike = (0.0, 0.0, 1.0),
) -> CameraPose:
    """Return the pose of an OpenCV-frame camera at ``eye_m`` looking at a target.

    The camera's z axis points from ``eye_m`` to ``target_m``, its x axis
    (image right) is ``forward x up`` and its y axis (image down) completes the
    right-handed frame, so ``up`` appears towards the top of the image.

    Parameters
    ----------
    eye_m
        Camera position in the world, shape (3,), metres.
    target_m
        Point the optical axis passes through, shape (3,), metres.
    up
        World direction that should appear up in the image.

    Returns
    -------
    CameraPose
        The camera-to-world pose.

    Raises
    ------
    ValueError
        Non-finite input, ``eye_m == target_m``, or ``up`` parallel to the
        viewing direction.
    """
    eye, target, up_dir = (
        np.asarray(value, dtype=np.float64) for value in (eye_m, target_m, up)
    )
    for name, value in (("eye_m", eye), ("target_m", target), ("up", up_dir)):
        if value.shape != (3,) or not np.isfinite(value).all():
            raise ValueError(f"{name} must be 3 finite numbers, got {value!r}")
    forward = target - eye
    distance = float(np.linalg.norm(forward))
    if not distance > 0.0:
        raise ValueError("eye_m and target_m coincide; the view direction is undefined")
    forward /= distance
    right = np.cross(forward, up_dir)
    right_norm = float(np.linalg.norm(right))
    if not right_norm > 1e-9 * float(np.linalg.norm(up_dir)):
        raise ValueError("up is parallel to the view direction (or zero)")
    right /= right_norm
    down = np.cross(forward, right)
    rotation = np.column_stack([right, down, forward])
    return CameraPose(
        translation_m=eye, quaternion_xyzw=quaternion_from_matrix(rotation)
    )
