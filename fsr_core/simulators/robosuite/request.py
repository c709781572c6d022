"""What a robosuite run is asked to do, as JSON for the worker.

A :class:`RobosuiteRequest` names the mode, the HDF5 file and the episode's
group, the environment the file names, and for a render the cameras and
their size. ``replay --set`` takes ``cameras`` (comma-separated camera names
of the model, or ``all``) and ``size`` (``WIDTHxHEIGHT``); by default the
recorded cameras at the recorded size.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "ALL_CAMERAS",
    "MAX_SIZE",
    "SETTINGS",
    "RequestError",
    "RobosuiteRequest",
    "parse_cameras",
    "parse_size",
]

SETTINGS: Final = ("cameras", "size")
"""The names ``replay --set`` takes for robosuite."""
ALL_CAMERAS: Final = "all"
MAX_SIZE: Final = 4096
"""Largest rendered width or height."""
_SIZE: Final = re.compile(r"^([0-9]{1,5})x([0-9]{1,5})$")
_CAMERA: Final = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


class RequestError(ValueError):
    """A request or setting that cannot be run (the message says why)."""


def parse_cameras(text: str) -> tuple[str, ...]:
    """Return the camera names of ``--set cameras=a,b`` (``("all",)`` for all).

    Raises
    ------
    RequestError
        No name, or a name that cannot be a camera's.
    """
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise RequestError("cameras: name at least one camera, e.g. agentview")
    for name in names:
        if not _CAMERA.match(name):
            raise RequestError(
                f"cameras: {name[:40]!r} is not a camera name (letters, digits, _ . -)"
            )
    return names


def parse_size(text: str) -> tuple[int, int]:
    """Return ``(width, height)`` of ``--set size=WIDTHxHEIGHT``.

    Raises
    ------
    RequestError
        Not two whole numbers from 8 to :data:`MAX_SIZE`.
    """
    match = _SIZE.match(text.strip())
    if match is None:
        raise RequestError(f"size: {text[:40]!r} is not WIDTHxHEIGHT, e.g. 256x256")
    width, height = int(match.group(1)), int(match.group(2))
    if not (8 <= width <= MAX_SIZE and 8 <= height <= MAX_SIZE):
        raise RequestError(f"size: width and height go from 8 to {MAX_SIZE}")
    return width, height


@dataclass(frozen=True)
class RobosuiteRequest:
    """One run: ``mode`` (``render`` or ``resimulate``) of one episode."""

    mode: str
    file: str
    group: str
    env_name: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    cameras: tuple[str, ...] = ()
    """Cameras to render (``render`` only; ``("all",)``: every camera)."""
    width: int = 256
    height: int = 256

    def to_json(self) -> str:
        """Return the request as JSON text."""
        return json.dumps(
            {
                "mode": self.mode,
                "file": self.file,
                "group": self.group,
                "env_name": self.env_name,
                "env_kwargs": self.env_kwargs,
                "cameras": list(self.cameras),
                "width": self.width,
                "height": self.height,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> RobosuiteRequest:
        """Return the request of :meth:`to_json` text.

        Raises
        ------
        RequestError
            Not JSON, or a field is missing or of the wrong type.
        """
        try:
            value = json.loads(text)
            request = cls(
                mode=str(value["mode"]),
                file=str(value["file"]),
                group=str(value["group"]),
                env_name=str(value["env_name"]),
                env_kwargs=dict(value["env_kwargs"]),
                cameras=tuple(str(c) for c in value["cameras"]),
                width=int(value["width"]),
                height=int(value["height"]),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise RequestError(f"not a robosuite request: {exc}") from None
        if request.mode not in ("render", "resimulate"):
            raise RequestError(f"unknown mode {request.mode!r}")
        return request
