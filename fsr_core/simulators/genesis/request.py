"""What one Genesis run is asked to do, checked before Genesis is started.

A :class:`GenesisRequest` names the mode (``render`` or ``resimulate``), the
trajectory, the frame to start from and, for a render, the camera. It travels
to the worker as JSON (:meth:`GenesisRequest.to_json`) and is checked again
there (:meth:`GenesisRequest.from_json`), so a hand-written or damaged request
is refused with one line naming the bad field.

The camera the user picks (:class:`CameraSpec`) is a pinhole: position,
look-at point and up vector in metres (world frame, z up as in Genesis), the
vertical field of view in degrees and the image size in pixels. Without one
the scene's own viewer camera is used when the scene's author set it, else a
camera placed to frame the recorded motion (:mod:`.session`).

``FSR_VIEWER_GENESIS_CAMERA`` and ``FSR_VIEWER_GENESIS_START_FRAME`` give the
camera and the start frame to the command line and the window, whose replay
options have no such fields: ``"pos=1.2,1.2,0.8 lookat=0,0,0.1 fov=40
size=640x480"`` (every key optional but ``pos`` and ``lookat`` go together;
``up=0,0,1`` too) and a frame number.

Only the standard library is used: the worker imports this module in the
Genesis interpreter.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "CAMERA_VARIABLE",
    "DEFAULT_FOV_DEG",
    "DEFAULT_SIZE",
    "MAX_SIDE_PX",
    "MODES",
    "START_VARIABLE",
    "CameraSpec",
    "GenesisRequest",
    "RequestError",
    "camera_from_environment",
    "parse_camera",
    "parse_start_frame",
    "start_from_environment",
]

MODES: Final = ("render", "resimulate")
SETTINGS: Final = ("camera", "start_frame")
"""What ``replay --set NAME=VALUE`` may give (before the environment variables)."""
CAMERA_VARIABLE: Final = "FSR_VIEWER_GENESIS_CAMERA"
START_VARIABLE: Final = "FSR_VIEWER_GENESIS_START_FRAME"
DEFAULT_FOV_DEG: Final = 40.0
"""Genesis's own viewer default (``ViewerOptions.camera_fov``)."""
DEFAULT_SIZE: Final = (640, 480)
MAX_SIDE_PX: Final = 4096
_MIN_FOV_DEG: Final = 1.0
_MAX_FOV_DEG: Final = 170.0
_MAX_COORDINATE_M: Final = 1e6


class RequestError(ValueError):
    """A request, a camera or a start frame that cannot be used (says which field)."""


def _vector(value: Any, what: str) -> tuple[float, float, float]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise RequestError(f"{what} must be three numbers x,y,z, not {value!r}")
    numbers = []
    for item in value:
        try:
            number = float(item)
        except (TypeError, ValueError):
            raise RequestError(f"{what} must be three numbers, not {value!r}") from None
        if isinstance(item, bool) or not math.isfinite(number):
            raise RequestError(f"{what} must be three finite numbers, not {value!r}")
        if abs(number) > _MAX_COORDINATE_M:
            raise RequestError(f"{what} is out of range (|x| <= 1e6 m): {value!r}")
        numbers.append(number)
    return numbers[0], numbers[1], numbers[2]


def _size(value: Any) -> tuple[int, int]:
    if isinstance(value, str):
        value = value.lower().split("x")
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise RequestError(f"size must be WIDTHxHEIGHT, not {value!r}")
    sides = []
    for item in value:
        if isinstance(item, bool):
            raise RequestError(f"size must be two whole numbers, not {value!r}")
        try:
            side = int(item)
        except (TypeError, ValueError):
            raise RequestError(
                f"size must be two whole numbers, not {value!r}"
            ) from None
        if str(item).strip() != str(side) and not isinstance(item, int):
            raise RequestError(f"size must be two whole numbers, not {value!r}")
        if not 8 <= side <= MAX_SIDE_PX:
            raise RequestError(f"each side of size must be 8 to {MAX_SIDE_PX} pixels")
        sides.append(side)
    return sides[0], sides[1]


def _fov(value: Any) -> float:
    try:
        fov = float(value)
    except (TypeError, ValueError):
        raise RequestError(f"fov must be a number of degrees, not {value!r}") from None
    if isinstance(value, bool) or not _MIN_FOV_DEG <= fov <= _MAX_FOV_DEG:
        raise RequestError(
            f"fov must be {_MIN_FOV_DEG:g} to {_MAX_FOV_DEG:g} degrees, not {value!r}"
        )
    return fov


@dataclass(frozen=True)
class CameraSpec:
    """A pinhole camera: pose (``pos``/``lookat``/``up``) and intrinsics (fov, size).

    ``pos`` and ``lookat`` are ``None`` together: the pose is then the scene's
    (its viewer camera, or one framing the motion); the field of view and the
    size still apply.
    """

    pos: tuple[float, float, float] | None = None
    lookat: tuple[float, float, float] | None = None
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    fov_deg: float = DEFAULT_FOV_DEG
    width: int = DEFAULT_SIZE[0]
    height: int = DEFAULT_SIZE[1]

    def __post_init__(self) -> None:
        """Refuse a camera Genesis cannot render (the message names the field)."""
        if (self.pos is None) != (self.lookat is None):
            raise RequestError("a camera needs both pos and lookat, or neither")
        if self.pos is not None and self.lookat is not None:
            pos, lookat = _vector(self.pos, "pos"), _vector(self.lookat, "lookat")
            if pos == lookat:
                raise RequestError("pos and lookat are the same point")
            sight = [b - a for a, b in zip(pos, lookat, strict=True)]
            up = _vector(self.up, "up")
            cross = (
                sight[1] * up[2] - sight[2] * up[1],
                sight[2] * up[0] - sight[0] * up[2],
                sight[0] * up[1] - sight[1] * up[0],
            )
            if math.hypot(*cross) <= 1e-9 * math.hypot(*sight) * math.hypot(*up):
                raise RequestError("up must not be parallel to the line of sight")
        _vector(self.up, "up")
        _fov(self.fov_deg)
        _size((self.width, self.height))

    @property
    def posed(self) -> bool:
        """Whether the pose is given (else the scene's is used)."""
        return self.pos is not None

    def to_json(self) -> dict[str, Any]:
        """Return the camera as JSON values."""
        return {
            "pos": None if self.pos is None else list(self.pos),
            "lookat": None if self.lookat is None else list(self.lookat),
            "up": list(self.up),
            "fov_deg": self.fov_deg,
            "width": self.width,
            "height": self.height,
        }

    @classmethod
    def from_json(cls, value: Any) -> CameraSpec:
        """Return the camera a :meth:`to_json` object describes.

        Raises
        ------
        RequestError
            A field is missing, of the wrong type or out of range.
        """
        if not isinstance(value, Mapping):
            raise RequestError("camera must be an object")
        unknown = set(value) - {"pos", "lookat", "up", "fov_deg", "width", "height"}
        if unknown:
            raise RequestError(f"camera has unknown fields: {sorted(unknown)}")
        pos, lookat = value.get("pos"), value.get("lookat")
        width, height = _size((value.get("width"), value.get("height")))
        return cls(
            pos=None if pos is None else _vector(pos, "pos"),
            lookat=None if lookat is None else _vector(lookat, "lookat"),
            up=_vector(value.get("up", (0.0, 0.0, 1.0)), "up"),
            fov_deg=_fov(value.get("fov_deg")),
            width=width,
            height=height,
        )


def parse_camera(text: str) -> CameraSpec:
    """Return the camera ``"pos=x,y,z lookat=x,y,z up=x,y,z fov=D size=WxH"`` gives.

    Every key is optional (``pos`` and ``lookat`` go together); keys are
    separated by spaces or semicolons.

    Raises
    ------
    RequestError
        An unknown key, a key given twice, or a bad value.
    """
    given: dict[str, str] = {}
    for part in text.replace(";", " ").split():
        key, sep, value = part.partition("=")
        if not sep or not value:
            raise RequestError(f"camera setting {part!r} is not key=value")
        if key not in ("pos", "lookat", "up", "fov", "size"):
            raise RequestError(
                f"unknown camera setting {key!r} (pos, lookat, up, fov, size)"
            )
        if key in given:
            raise RequestError(f"camera setting {key!r} is given twice")
        given[key] = value
    width, height = _size(given["size"]) if "size" in given else DEFAULT_SIZE
    return CameraSpec(
        pos=_vector(given["pos"], "pos") if "pos" in given else None,
        lookat=_vector(given["lookat"], "lookat") if "lookat" in given else None,
        up=_vector(given["up"], "up") if "up" in given else (0.0, 0.0, 1.0),
        fov_deg=_fov(given["fov"]) if "fov" in given else DEFAULT_FOV_DEG,
        width=width,
        height=height,
    )


def parse_start_frame(text: str) -> int:
    """Return the frame number ``text`` gives (a whole number >= 0).

    Raises
    ------
    RequestError
        Not a whole number >= 0.
    """
    stripped = text.strip()
    if not stripped.isdigit() or len(stripped) > 12:
        raise RequestError(f"the start frame must be a whole number >= 0, not {text!r}")
    return int(stripped)


def camera_from_environment(
    environ: Mapping[str, str] | None = None,
) -> CameraSpec | None:
    """Return the camera ``FSR_VIEWER_GENESIS_CAMERA`` gives (None when unset).

    Raises
    ------
    RequestError
        The variable is set to something that is not a camera.
    """
    text = (os.environ if environ is None else environ).get(CAMERA_VARIABLE, "")
    if not text.strip():
        return None
    try:
        return parse_camera(text)
    except RequestError as exc:
        raise RequestError(f"{CAMERA_VARIABLE}: {exc}") from None


def start_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """Return the frame ``FSR_VIEWER_GENESIS_START_FRAME`` gives (0 when unset).

    Raises
    ------
    RequestError
        The variable is set to something that is not a frame number.
    """
    text = (os.environ if environ is None else environ).get(START_VARIABLE, "")
    if not text.strip():
        return 0
    try:
        return parse_start_frame(text)
    except RequestError as exc:
        raise RequestError(f"{START_VARIABLE}: {exc}") from None


@dataclass(frozen=True)
class GenesisRequest:
    """One run: rebuild the scene of ``source`` and render or re-simulate it.

    ``start_frame`` is where a re-simulation seeks to and steps on from (a
    render visits every frame from there on); ``camera`` is the render's.
    """

    mode: str
    source: str
    start_frame: int = 0
    camera: CameraSpec = field(default_factory=CameraSpec)

    def __post_init__(self) -> None:
        """Refuse a mode, source or start frame that cannot be run."""
        if self.mode not in MODES:
            raise RequestError(
                f"mode must be one of {', '.join(MODES)}, not {self.mode!r}"
            )
        if not isinstance(self.source, str) or not self.source:
            raise RequestError("source must be the path of a trajectory file")
        if (
            isinstance(self.start_frame, bool)
            or not isinstance(self.start_frame, int)
            or self.start_frame < 0
        ):
            raise RequestError(
                f"start_frame must be a whole number >= 0, not {self.start_frame!r}"
            )
        if not isinstance(self.camera, CameraSpec):
            raise RequestError("camera must be a CameraSpec")

    def to_json(self) -> str:
        """Return the request as the JSON text the worker reads."""
        return json.dumps(
            {
                "mode": self.mode,
                "source": self.source,
                "start_frame": self.start_frame,
                "camera": self.camera.to_json(),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> GenesisRequest:
        """Return the request ``text`` holds.

        Raises
        ------
        RequestError
            Not JSON, not an object, an unknown or missing field, a bad value.
        """
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise RequestError(f"the request is not JSON ({exc})") from None
        if not isinstance(value, dict):
            raise RequestError("the request must be a JSON object")
        expected = {"mode", "source", "start_frame", "camera"}
        if set(value) != expected:
            missing = sorted(expected - set(value))
            unknown = sorted(set(value) - expected)
            raise RequestError(
                f"the request fields differ (missing {missing}, unknown {unknown})"
            )
        return cls(
            mode=value["mode"],
            source=value["source"],
            start_frame=value["start_frame"],
            camera=CameraSpec.from_json(value["camera"]),
        )
