"""Projection of world points to pixels through a camera's intrinsics and pose."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import BoolArray, FloatArray
from fsr_core.calibration._fields import points_array
from fsr_core.calibration.pose import CameraPose
from fsr_core.calibration.profile import CalibrationProfile

__all__ = ["project_points"]


def _distort(xy: FloatArray, profile: CalibrationProfile) -> FloatArray:
    """Apply the profile's lens distortion to normalised image coordinates."""
    model = profile.distortion_model
    if model == "none":
        return xy
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    if model == "plumb_bob":
        k1, k2, p1, p2, k3 = profile.distortion
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        x_d = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        y_d = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        return np.column_stack([x_d, y_d])
    k1, k2, k3, k4 = profile.distortion  # equidistant
    r = np.sqrt(r2)
    theta = np.arctan(r)
    t2 = theta * theta
    theta_d = theta * (1.0 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))
    scale = np.divide(theta_d, r, out=np.ones_like(r), where=r > 0.0)
    return xy * scale[:, np.newaxis]


def project_points(
    points_world: npt.ArrayLike,
    profile: CalibrationProfile,
    pose: CameraPose | None,
) -> tuple[FloatArray, BoolArray]:
    """Project world points to pixel coordinates.

    Points are moved into the camera frame by ``pose``, divided by depth,
    distorted by the profile's model (OpenCV's ``plumb_bob`` or fisheye
    ``equidistant`` definition) and mapped through ``K``.

    Parameters
    ----------
    points_world
        Points, shape (N, 3), metres. With ``pose=None`` they are taken to be
        in the camera frame already.
    profile
        The camera's intrinsics.
    pose
        The camera's pose in the world, or None.

    Returns
    -------
    pixels : numpy.ndarray
        Shape (N, 2) float64, ``(u, v)`` in pixels; NaN where ``in_front`` is
        False. Pixels may lie outside the image; with a distortion polynomial
        they are only meaningful inside the calibrated field of view.
    in_front : numpy.ndarray
        Shape (N,) bool; True where the point is finite and has positive depth.

    Raises
    ------
    ValueError
        ``points_world`` does not have shape (N, 3).
    """
    points = points_array(points_world, "points_world")
    camera = points if pose is None else pose.world_to_camera(points)
    in_front: BoolArray = np.isfinite(camera).all(axis=1) & (camera[:, 2] > 0.0)
    pixels: FloatArray = np.full((points.shape[0], 2), np.nan, dtype=np.float64)
    front = camera[in_front]
    with np.errstate(over="ignore", invalid="ignore"):
        xy = _distort(front[:, :2] / front[:, 2:3], profile)
        pixels[in_front, 0] = (
            profile.fx * xy[:, 0] + profile.skew * xy[:, 1] + profile.cx
        )
        pixels[in_front, 1] = profile.fy * xy[:, 1] + profile.cy
    return pixels, in_front
