"""Camera calibration values, calibration epochs and projection math.

A camera's *intrinsics* (image size, focal lengths, principal point, skew and
lens distortion) are held by :class:`CalibrationProfile`; its *extrinsics* (where
the camera sits in the world) by :class:`CameraPose`. The SHA-256 digest of a
profile's canonical JSON (:func:`calibration_digest`) names an intrinsic
calibration epoch: every frame recorded under the same digest shares the same
intrinsics. :class:`Calibration` ties a profile and an optional pose to the
camera, runtime generation and first tick at which that epoch began.

Camera frames follow the OpenCV convention: x to the right of the image, y
down, z forward along the optical axis. Quaternions are stored ``(x, y, z, w)``.
This module depends on numpy only.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.errors import CalibrationError
from fsr_core.format.canonical_json import canonical_dumps

__all__ = [
    "CAMERA_FRAMES",
    "DISTORTION_LENGTHS",
    "LENGTH_UNITS",
    "QUATERNION_NORM_TOLERANCE",
    "Calibration",
    "CalibrationProfile",
    "CameraPose",
    "calibration_digest",
    "look_at",
    "matrix_from_quaternion",
    "project_points",
    "quaternion_from_matrix",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Number of coefficients each supported distortion model takes.
DISTORTION_LENGTHS: Final[Mapping[str, int]] = MappingProxyType(
    {"none": 0, "plumb_bob": 5, "equidistant": 4}
)
#: Camera frame conventions the projection math understands.
CAMERA_FRAMES: Final = frozenset({"opencv"})
#: Length units a profile may declare for world coordinates.
LENGTH_UNITS: Final = frozenset({"m"})
#: Largest accepted deviation of a stored quaternion's norm from 1.
QUATERNION_NORM_TOLERANCE: Final = 1e-6

_PROFILE: Final = "calibration profile"
_POSE: Final = "camera pose"
_EPOCH: Final = "calibration"
_PROFILE_KEYS: Final = (
    "camera_frame",
    "cx",
    "cy",
    "distortion",
    "distortion_model",
    "fx",
    "fy",
    "height",
    "skew",
    "units",
    "width",
)


# ---------------------------------------------------------------------------
# Field checks (each names the offending field as a JSON pointer)
# ---------------------------------------------------------------------------


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _int_field(value: object, pointer: str, section: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CalibrationError(
            f"{pointer}: expected an integer, found {_describe(value)}",
            section=section,
        )
    if value < minimum:
        raise CalibrationError(
            f"{pointer}: expected an integer >= {minimum}, found {value}",
            section=section,
        )
    return value


def _float_field(
    value: object, pointer: str, section: str, *, positive: bool = False
) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalibrationError(
            f"{pointer}: expected a number, found {_describe(value)}",
            section=section,
        )
    number = float(value)
    if not math.isfinite(number):
        raise CalibrationError(
            f"{pointer}: expected a finite number, found {number}", section=section
        )
    if positive and number <= 0.0:
        raise CalibrationError(
            f"{pointer}: expected a positive number, found {number}", section=section
        )
    return number + 0.0  # folds -0.0 into 0.0 so equal values digest equally


def _choice_field(
    value: object, pointer: str, section: str, allowed: Sequence[str] | frozenset[str]
) -> str:
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(item) for item in sorted(allowed))
        raise CalibrationError(
            f"{pointer}: expected one of {options}, found {_describe(value)}",
            section=section,
        )
    return value


def _vector_field(value: object, length: int, pointer: str) -> FloatArray:
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CalibrationError(
            f"{pointer}: expected {length} numbers, found {_describe(value)}",
            section=_POSE,
        ) from exc
    if array.shape != (length,):
        raise CalibrationError(
            f"{pointer}: expected shape ({length},), found {array.shape}",
            section=_POSE,
        )
    if not np.isfinite(array).all():
        raise CalibrationError(f"{pointer}: non-finite component", section=_POSE)
    array = array + 0.0
    array.setflags(write=False)
    return array


def _with_prefix(exc: CalibrationError, where: str) -> CalibrationError:
    if not where:
        return exc
    return CalibrationError(f"{where}{exc.reason}", section=exc.section)


def _points_array(points: npt.ArrayLike, name: str) -> FloatArray:
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3), got {array.shape}")
    return array


# ---------------------------------------------------------------------------
# Intrinsics
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationProfile:
    """Intrinsic calibration of one camera.

    Parameters
    ----------
    width, height
        Image size in pixels; positive.
    fx, fy
        Focal lengths in pixels; positive.
    cx, cy
        Principal point in pixels.
    skew
        Axis skew in pixels (the ``K[0, 1]`` entry).
    distortion_model
        ``"none"``, ``"plumb_bob"`` (coefficients ``k1, k2, p1, p2, k3``) or
        ``"equidistant"`` (``k1, k2, k3, k4``), both as OpenCV defines them.
    distortion
        The model's coefficients, exactly as many as it takes.
    camera_frame
        The camera frame convention; only ``"opencv"`` (x right, y down,
        z forward) is supported.
    units
        Length unit of world coordinates and camera translations; ``"m"``.

    Raises
    ------
    CalibrationError
        A field has the wrong type, is non-finite or out of range; the message
        names the field as a JSON pointer (``/fx``, ``/distortion/2``).
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    skew: float = 0.0
    distortion_model: str = "none"
    distortion: tuple[float, ...] = ()
    camera_frame: str = "opencv"
    units: str = "m"

    def __post_init__(self) -> None:
        """Check every field and normalise numbers to ``float``."""
        for name in ("width", "height"):
            _int_field(getattr(self, name), f"/{name}", _PROFILE, minimum=1)
        for name in ("fx", "fy", "cx", "cy", "skew"):
            positive = name in ("fx", "fy")
            number = _float_field(
                getattr(self, name), f"/{name}", _PROFILE, positive=positive
            )
            object.__setattr__(self, name, number)
        model = _choice_field(
            self.distortion_model,
            "/distortion_model",
            _PROFILE,
            tuple(DISTORTION_LENGTHS),
        )
        object.__setattr__(self, "distortion", self._checked_distortion(model))
        _choice_field(self.camera_frame, "/camera_frame", _PROFILE, CAMERA_FRAMES)
        _choice_field(self.units, "/units", _PROFILE, LENGTH_UNITS)

    def _checked_distortion(self, model: str) -> tuple[float, ...]:
        raw: object = self.distortion
        if not isinstance(raw, tuple | list):
            raise CalibrationError(
                f"/distortion: expected a sequence of numbers, found {_describe(raw)}",
                section=_PROFILE,
            )
        expected = DISTORTION_LENGTHS[model]
        if len(raw) != expected:
            raise CalibrationError(
                f"/distortion: model {model!r} takes {expected} coefficients, "
                f"found {len(raw)}",
                section=_PROFILE,
            )
        return tuple(
            _float_field(item, f"/distortion/{index}", _PROFILE)
            for index, item in enumerate(raw)
        )

    @property
    def K(self) -> FloatArray:  # noqa: N802 - K is the standard name of the matrix
        """The 3x3 camera matrix ``[[fx, skew, cx], [0, fy, cy], [0, 0, 1]]``.

        Returns
        -------
        numpy.ndarray
            A new read-only float64 array.
        """
        matrix = np.array(
            [[self.fx, self.skew, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]],
            dtype=np.float64,
        )
        matrix.setflags(write=False)
        return matrix

    def to_json(self) -> dict[str, Any]:
        """Return the profile as a JSON object with every field present.

        Returns
        -------
        dict
            Keys are the field names; ``distortion`` is a list.
        """
        return {
            "camera_frame": self.camera_frame,
            "cx": self.cx,
            "cy": self.cy,
            "distortion": list(self.distortion),
            "distortion_model": self.distortion_model,
            "fx": self.fx,
            "fy": self.fy,
            "height": self.height,
            "skew": self.skew,
            "units": self.units,
            "width": self.width,
        }

    @classmethod
    def from_json(cls, obj: object, *, where: str = "") -> CalibrationProfile:
        """Build a profile from a parsed JSON object, strictly.

        Parameters
        ----------
        obj
            The value produced by :meth:`to_json` (after a JSON round trip).
        where
            JSON pointer of ``obj`` inside a larger document, prefixed to the
            location in error messages.

        Returns
        -------
        CalibrationProfile
            The validated profile.

        Raises
        ------
        CalibrationError
            ``obj`` is not an object, lacks a key, has an unknown key, or a
            field is invalid; the message gives the location.
        """
        if not isinstance(obj, dict):
            raise CalibrationError(
                f"{where or '/'}: expected a JSON object, found {_describe(obj)}",
                section=_PROFILE,
            )
        missing = [key for key in _PROFILE_KEYS if key not in obj]
        if missing:
            raise CalibrationError(
                f"{where}/{missing[0]}: required key is missing", section=_PROFILE
            )
        unknown = sorted(str(key) for key in obj if key not in _PROFILE_KEYS)
        if unknown:
            raise CalibrationError(
                f"{where}/{unknown[0]}: unknown key", section=_PROFILE
            )
        distortion = obj["distortion"]
        if not isinstance(distortion, list):
            raise CalibrationError(
                f"{where}/distortion: expected an array, found {_describe(distortion)}",
                section=_PROFILE,
            )
        try:
            return cls(
                width=obj["width"],
                height=obj["height"],
                fx=obj["fx"],
                fy=obj["fy"],
                cx=obj["cx"],
                cy=obj["cy"],
                skew=obj["skew"],
                distortion_model=obj["distortion_model"],
                distortion=tuple(distortion),
                camera_frame=obj["camera_frame"],
                units=obj["units"],
            )
        except CalibrationError as exc:
            raise _with_prefix(exc, where) from exc


def calibration_digest(profile: CalibrationProfile) -> str:
    """Return the digest naming the intrinsic calibration epoch of ``profile``.

    Two profiles have the same digest exactly when every field is equal, so the
    digest identifies an intrinsic calibration epoch: frames and extrinsics
    recorded under one digest share these intrinsics.

    Parameters
    ----------
    profile
        The intrinsics to name.

    Returns
    -------
    str
        ``"sha256:"`` followed by the lowercase hex SHA-256 of
        ``canonical_dumps(profile.to_json())``.
    """
    return "sha256:" + hashlib.sha256(canonical_dumps(profile.to_json())).hexdigest()


# ---------------------------------------------------------------------------
# Rotations
# ---------------------------------------------------------------------------


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
            f"quaternion {q.tolist()} cannot be normalised", section=_POSE
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
        raise CalibrationError("rotation matrix has non-finite entries", section=_POSE)
    error = float(np.abs(m.T @ m - np.eye(3)).max())
    if error > atol or np.linalg.det(m) <= 0.0:
        raise CalibrationError(
            f"matrix is not a rotation (orthonormality error {error:.3g}, "
            f"determinant {float(np.linalg.det(m)):.6g})",
            section=_POSE,
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


# ---------------------------------------------------------------------------
# Extrinsics
# ---------------------------------------------------------------------------


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
        translation = _vector_field(self.translation_m, 3, "/translation_m")
        quaternion = _vector_field(self.quaternion_xyzw, 4, "/quaternion_xyzw")
        norm = float(np.linalg.norm(quaternion))
        if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
            raise CalibrationError(
                f"/quaternion_xyzw: norm is {norm:.9g}, expected 1 within "
                f"{QUATERNION_NORM_TOLERANCE:g}",
                section=_POSE,
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
        quaternion = _vector_field(quaternion_xyzw, 4, "/quaternion_xyzw")
        norm = float(np.linalg.norm(quaternion))
        if not norm > 1e-12:
            raise CalibrationError(
                "/quaternion_xyzw: zero quaternion cannot be normalised",
                section=_POSE,
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
        points = _points_array(points_world, "points_world")
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
        points = _points_array(points_camera, "points_camera")
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


# ---------------------------------------------------------------------------
# Epochs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    """One calibration epoch of one camera within one runtime generation.

    Parameters
    ----------
    camera
        Camera name.
    generation
        Runtime generation the epoch belongs to.
    epoch
        0-based index of this epoch among the camera's epochs in ``generation``.
    digest
        :func:`calibration_digest` of ``profile``.
    profile
        The intrinsics in force during the epoch.
    pose
        The camera's pose at the start of the epoch, when recorded.
    first_tick
        Simulation tick at which the epoch begins.
    first_sim_time_s
        Simulation time at which the epoch begins, seconds.

    Raises
    ------
    CalibrationError
        A field is invalid or ``digest`` does not match ``profile``.
    """

    camera: str
    generation: int
    epoch: int
    digest: str
    profile: CalibrationProfile
    pose: CameraPose | None
    first_tick: int
    first_sim_time_s: float

    def __post_init__(self) -> None:
        """Check fields and that the digest names the profile."""
        camera: object = self.camera
        if not isinstance(camera, str) or not camera:
            raise CalibrationError(
                f"/camera: expected a non-empty string, found {_describe(camera)}",
                section=_EPOCH,
            )
        for name in ("generation", "epoch"):
            _int_field(getattr(self, name), f"/{name}", _EPOCH, minimum=0)
        # Ticks are signed 64-bit in FSR: a run may count warm-up ticks below 0.
        _int_field(self.first_tick, "/first_tick", _EPOCH, minimum=-(1 << 63))
        time_s = _float_field(self.first_sim_time_s, "/first_sim_time_s", _EPOCH)
        object.__setattr__(self, "first_sim_time_s", time_s)
        if not isinstance(self.profile, CalibrationProfile):
            raise CalibrationError(
                "/profile: expected a CalibrationProfile", section=_EPOCH
            )
        if self.pose is not None and not isinstance(self.pose, CameraPose):
            raise CalibrationError(
                "/pose: expected a CameraPose or None", section=_EPOCH
            )
        expected = calibration_digest(self.profile)
        if self.digest != expected:
            raise CalibrationError(
                f"/digest: camera {self.camera!r} epoch {self.epoch} has digest "
                f"{_describe(self.digest)}, expected {expected}",
                section=_EPOCH,
            )


# ---------------------------------------------------------------------------
# Projection
# ---------------------------------------------------------------------------


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
    points = _points_array(points_world, "points_world")
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
