"""Camera intrinsics (:class:`CalibrationProfile`) and the digest naming an epoch."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration._fields import (
    choice_field,
    describe,
    float_field,
    int_field,
    with_prefix,
)
from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import CalibrationError

__all__ = [
    "CAMERA_FRAMES",
    "DISTORTION_LENGTHS",
    "LENGTH_UNITS",
    "CalibrationProfile",
    "calibration_digest",
    "distortion_model_for",
]


#: Number of coefficients each supported distortion model takes. A model named
#: here must also have a function in ``projection._DISTORTIONS``.
DISTORTION_LENGTHS: Final[Mapping[str, int]] = MappingProxyType(
    {"none": 0, "plumb_bob": 5, "rational_polynomial": 8, "equidistant": 4}
)
#: Distortion model names other formats use, mapped to the profile's name.
_FOREIGN_MODELS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "plumb_bob": "plumb_bob",  # ROS sensor_msgs/CameraInfo, Foxglove
        "rational_polynomial": "rational_polynomial",  # ROS, Foxglove
        "equidistant": "equidistant",  # ROS
        "kannala_brandt": "equidistant",  # Foxglove
    }
)
#: Camera frame conventions the projection math understands.
CAMERA_FRAMES: Final = frozenset({"opencv"})
#: Length units a profile may declare for world coordinates.
LENGTH_UNITS: Final = frozenset({"m"})

_PROFILE: Final = "calibration profile"
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
        ``"none"``, ``"plumb_bob"`` (coefficients ``k1, k2, p1, p2, k3``),
        ``"rational_polynomial"`` (``k1, k2, p1, p2, k3, k4, k5, k6``) or
        ``"equidistant"`` (``k1, k2, k3, k4``), all as OpenCV defines them.
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
            int_field(getattr(self, name), f"/{name}", _PROFILE, minimum=1)
        for name in ("fx", "fy", "cx", "cy", "skew"):
            positive = name in ("fx", "fy")
            number = float_field(
                getattr(self, name), f"/{name}", _PROFILE, positive=positive
            )
            object.__setattr__(self, name, number)
        model = choice_field(
            self.distortion_model,
            "/distortion_model",
            _PROFILE,
            tuple(DISTORTION_LENGTHS),
        )
        object.__setattr__(self, "distortion", self._checked_distortion(model))
        choice_field(self.camera_frame, "/camera_frame", _PROFILE, CAMERA_FRAMES)
        choice_field(self.units, "/units", _PROFILE, LENGTH_UNITS)

    def _checked_distortion(self, model: str) -> tuple[float, ...]:
        raw: object = self.distortion
        if not isinstance(raw, tuple | list):
            raise CalibrationError(
                f"/distortion: expected a sequence of numbers, found {describe(raw)}",
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
            float_field(item, f"/distortion/{index}", _PROFILE)
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
                f"{where or '/'}: expected a JSON object, found {describe(obj)}",
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
                f"{where}/distortion: expected an array, found {describe(distortion)}",
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
            raise with_prefix(exc, where) from exc


def distortion_model_for(name: str) -> str | None:
    """Return the profile's distortion model for a name another format uses.

    Parameters
    ----------
    name
        A model name as ROS ``sensor_msgs/CameraInfo`` or Foxglove's
        ``CameraCalibration`` spell it: ``plumb_bob``, ``rational_polynomial``,
        ``equidistant``, or Foxglove's ``kannala_brandt`` (the fisheye model
        the profile calls ``equidistant``; the same four coefficients).

    Returns
    -------
    str or None
        A key of :data:`DISTORTION_LENGTHS`, or None for a name not known.
        Exact match: case and spaces are not folded.
    """
    return _FOREIGN_MODELS.get(name)


def centred_pinhole(width: int, height: int, focal_px: float) -> CalibrationProfile:
    """Return a distortion-free camera with square pixels, centred on the image.

    The principal point is the image centre with pixel centres at integers,
    ``((width - 1) / 2, (height - 1) / 2)``.
    """
    return CalibrationProfile(
        width=width,
        height=height,
        fx=focal_px,
        fy=focal_px,
        cx=(width - 1) / 2.0,
        cy=(height - 1) / 2.0,
    )


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
