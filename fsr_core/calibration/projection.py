"""Projection of world points to pixels through a camera's intrinsics and pose."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import BoolArray, FloatArray
from fsr_core.calibration._fields import points_array
from fsr_core.calibration.pose import CameraPose
from fsr_core.calibration.profile import CalibrationProfile

__all__ = ["project_points"]

#: Distorts normalised image coordinates ``x, y`` with a model's coefficients.
_Distortion: TypeAlias = Callable[
    [FloatArray, FloatArray, tuple[float, ...]], tuple[FloatArray, FloatArray]
]


def _no_distortion(
    x: FloatArray, y: FloatArray, _: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    return x, y


def _with_tangential(
    x: FloatArray, y: FloatArray, radial: FloatArray, p1: float, p2: float
) -> tuple[FloatArray, FloatArray]:
    """Scale by ``radial`` and add OpenCV's tangential terms ``p1, p2``."""
    r2 = x * x + y * y
    x_d = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    y_d = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
    return x_d, y_d


def _plumb_bob(
    x: FloatArray, y: FloatArray, coefficients: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    """OpenCV's 5-coefficient model: ``k1, k2, p1, p2, k3``."""
    k1, k2, p1, p2, k3 = coefficients
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    return _with_tangential(x, y, radial, p1, p2)


def _rational_polynomial(
    x: FloatArray, y: FloatArray, coefficients: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    """OpenCV's 8-coefficient model: ``k1, k2, p1, p2, k3, k4, k5, k6``.

    The radial factor is ``(1 + k1 r² + k2 r⁴ + k3 r⁶) / (1 + k4 r² + k5 r⁴ +
    k6 r⁶)``; the tangential terms are those of ``plumb_bob``.
    """
    k1, k2, p1, p2, k3, k4, k5, k6 = coefficients
    r2 = x * x + y * y
    numerator = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    denominator = 1.0 + r2 * (k4 + r2 * (k5 + r2 * k6))
    return _with_tangential(x, y, numerator / denominator, p1, p2)


def _equidistant(
    x: FloatArray, y: FloatArray, coefficients: tuple[float, ...]
) -> tuple[FloatArray, FloatArray]:
    """OpenCV's fisheye model: ``theta_d = theta (1 + k1 theta² + ... + k4 theta⁸)``."""
    k1, k2, k3, k4 = coefficients
    r = np.sqrt(x * x + y * y)
    theta = np.arctan(r)
    t2 = theta * theta
    theta_d = theta * (1.0 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))
    scale = np.divide(theta_d, r, out=np.ones_like(r), where=r > 0.0)
    return x * scale, y * scale


#: The distortion function of every model :data:`DISTORTION_LENGTHS` names; a new
#: model is one entry here and one there.
_DISTORTIONS: Final[Mapping[str, _Distortion]] = MappingProxyType(
    {
        "none": _no_distortion,
        "plumb_bob": _plumb_bob,
        "rational_polynomial": _rational_polynomial,
        "equidistant": _equidistant,
    }
)


def project_points(
    points_world: npt.ArrayLike,
    profile: CalibrationProfile,
    pose: CameraPose | None,
) -> tuple[FloatArray, BoolArray]:
    """Project world points to pixel coordinates.

    Points are moved into the camera frame by ``pose``, divided by depth,
    distorted by the profile's model (OpenCV's ``plumb_bob``,
    ``rational_polynomial`` or fisheye ``equidistant`` definition) and mapped
    through ``K``.

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
        distort = _DISTORTIONS[profile.distortion_model]
        x, y = distort(
            front[:, 0] / front[:, 2], front[:, 1] / front[:, 2], profile.distortion
        )
        pixels[in_front, 0] = profile.fx * x + profile.skew * y + profile.cx
        pixels[in_front, 1] = profile.fy * y + profile.cy
    return pixels, in_front
