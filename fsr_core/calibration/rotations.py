"""Rotation matrices and unit quaternions ``(x, y, z, w)``."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.calibration._fields import POSE_SECTION
from fsr_core.errors import CalibrationError

__all__ = [
    "matrices_from_quaternions",
    "matrix_from_quaternion",
    "quaternion_from_matrix",
    "quaternions_from_matrices",
]


def matrices_from_quaternions(
    quaternions: npt.ArrayLike, *, scalar_first: bool = False, normalise: bool = True
) -> FloatArray:
    """Return the rotation matrices ``(..., 3, 3)`` of quaternions ``(..., 4)``.

    Vectorised, for poses by the thousand (a scene's bodies over time). The
    quaternions are ``(x, y, z, w)``, or ``(w, x, y, z)`` with
    ``scalar_first``. Each is normalised first (one of zero length gives
    NaN) unless ``normalise`` is false: recorded unit quaternions drawn as
    they are.
    """
    q = np.asarray(quaternions, dtype=np.float64)
    if scalar_first:
        q = np.roll(q, -1, axis=-1)
    if normalise:
        with np.errstate(divide="ignore", invalid="ignore"):
            q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    result: FloatArray = np.stack([np.stack(row, -1) for row in rows], -2)
    return result


def matrix_from_quaternion(quaternion_xyzw: npt.ArrayLike) -> FloatArray:
    """Return the rotation matrix of a quaternion.

    Parameters
    ----------
    quaternion_xyzw
        Four numbers ``(x, y, z, w)``; normalised before use.

    Returns
    -------
    numpy.ndarray
        A read-only (3, 3) float64 rotation matrix.

    Raises
    ------
    ValueError
        The input does not have shape (4,).
    CalibrationError
        The quaternion is non-finite or (nearly) zero.
    """
    q = np.asarray(quaternion_xyzw, dtype=np.float64)
    if q.shape != (4,):
        raise ValueError(f"quaternion_xyzw must have shape (4,), got {q.shape}")
    norm = float(np.linalg.norm(q)) if np.isfinite(q).all() else math.nan
    if not norm > 1e-12:
        raise CalibrationError(
            f"quaternion {q.tolist()} cannot be normalised", section=POSE_SECTION
        )
    x, y, z, w = (float(item) for item in q / norm)
    matrix = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ],
        dtype=np.float64,
    )
    matrix.setflags(write=False)
    return matrix


def quaternion_from_matrix(matrix: npt.ArrayLike, *, atol: float = 1e-6) -> FloatArray:
    """Return the unit quaternion ``(x, y, z, w)`` of a rotation matrix.

    Uses Shepperd's method (the largest of the trace and the diagonal picks the
    numerically safest formula), so it is accurate for every rotation,
    including half turns. The result has ``w >= 0``.

    Parameters
    ----------
    matrix
        A (3, 3) rotation matrix.
    atol
        Largest accepted deviation of ``matrix.T @ matrix`` from the identity.

    Returns
    -------
    numpy.ndarray
        A read-only (4,) float64 unit quaternion.

    Raises
    ------
    ValueError
        The input does not have shape (3, 3).
    CalibrationError
        The matrix is non-finite, not orthonormal within ``atol`` or a
        reflection.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.shape != (3, 3):
        raise ValueError(f"matrix must have shape (3, 3), got {m.shape}")
    if not np.isfinite(m).all():
        raise CalibrationError(
            "rotation matrix has non-finite entries", section=POSE_SECTION
        )
    error = float(np.abs(m.T @ m - np.eye(3)).max())
    if error > atol or np.linalg.det(m) <= 0.0:
        raise CalibrationError(
            f"matrix is not a rotation (orthonormality error {error:.3g}, "
            f"determinant {float(np.linalg.det(m)):.6g})",
            section=POSE_SECTION,
        )
    q = _shepperd(m)
    q = q / np.linalg.norm(q)
    if q[3] < 0.0:
        q = -q
    q = q + 0.0
    q.setflags(write=False)
    return q


def _shepperd(m: FloatArray) -> FloatArray:
    """Return ``4 * q_p * q`` for the pivot component ``q_p`` of largest size."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    pivot = int(np.argmax([trace, m[0, 0], m[1, 1], m[2, 2]]))
    if pivot == 0:  # 4 w^2 = 1 + trace
        x, y, z = m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]
        w = 1.0 + trace
    elif pivot == 1:  # 4 x^2 = 1 + m00 - m11 - m22
        x, y, z = (
            1.0 + m[0, 0] - m[1, 1] - m[2, 2],
            m[0, 1] + m[1, 0],
            m[0, 2] + m[2, 0],
        )
        w = m[2, 1] - m[1, 2]
    elif pivot == 2:  # 4 y^2 = 1 - m00 + m11 - m22
        x, y, z = (
            m[0, 1] + m[1, 0],
            1.0 - m[0, 0] + m[1, 1] - m[2, 2],
            m[1, 2] + m[2, 1],
        )
        w = m[0, 2] - m[2, 0]
    else:  # 4 z^2 = 1 - m00 - m11 + m22
        x, y, z = (
            m[0, 2] + m[2, 0],
            m[1, 2] + m[2, 1],
            1.0 - m[0, 0] - m[1, 1] + m[2, 2],
        )
        w = m[1, 0] - m[0, 1]
    return np.array([x, y, z, w], dtype=np.float64)


def quaternions_from_matrices(matrices: npt.ArrayLike) -> FloatArray:
    """Return the unit quaternions ``(..., 4)`` (x, y, z, w) of rotations.

    ``matrices`` is ``(..., 3, 3)``.

    Vectorised Shepperd's method (per matrix, the largest of the trace and
    the diagonal picks the formula), for poses by the thousand; ``w >= 0``.
    The matrices are taken as rotations, unchecked.
    """
    m = np.asarray(matrices, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    pivot = np.argmax(np.stack([trace, m00, m11, m22], -1), axis=-1)
    sum_01, sum_02, sum_12 = (
        m[..., 0, 1] + m[..., 1, 0],
        m[..., 0, 2] + m[..., 2, 0],
        (m[..., 1, 2] + m[..., 2, 1]),
    )
    diff_21, diff_02, diff_10 = (
        m[..., 2, 1] - m[..., 1, 2],
        m[..., 0, 2] - m[..., 2, 0],
        m[..., 1, 0] - m[..., 0, 1],
    )
    candidates = np.stack(
        [
            np.stack([diff_21, diff_02, diff_10, 1.0 + trace], -1),
            np.stack([1.0 + m00 - m11 - m22, sum_01, sum_02, diff_21], -1),
            np.stack([sum_01, 1.0 - m00 + m11 - m22, sum_12, diff_02], -1),
            np.stack([sum_02, sum_12, 1.0 - m00 - m11 + m22, diff_10], -1),
        ],
        -2,
    )
    q = np.take_along_axis(candidates, pivot[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(q[..., 3:4] < 0.0, -q, q) + 0.0
    result: FloatArray = q
    return result
