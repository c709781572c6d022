"""What an overlay is: a toggle with a label, and the painters it adds to views.

An overlay draws something over a recording's picture (the centres of mass,
the targets, the calibration text, …). It is one module under
:mod:`app.canvas.overlays` holding one :class:`Overlay`: its name (the key in
:attr:`app.canvas.view_model.ViewModel.overlays`), the label of its menu
entry and side-panel box, its command-line help, whether it is on by
default, which recordings it applies to, and one :class:`Paint` per view it
draws in. The registry (:mod:`app.canvas.overlay_registry`) lists them; the
menus, the side panel, the command-line flags and the export options are
made from it.

This module imports no Qt, so the command line can build its flags from the
registry without loading Qt; painters import their Qt helpers when they run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fsr_core.recording import RecordingModel

__all__ = ["TEXT_Z", "Overlay", "Paint", "Surface"]

#: On a camera, painters from this depth up draw text about the frame and
#: run on every frame; those below draw projected marks and run only on a
#: frame with a calibration to project through.
TEXT_Z = 100


class Surface(StrEnum):
    """The views an overlay can draw in, each with its own context object.

    ``PLANE``: the planar arm's scene (:class:`~app.canvas.scene_canvas.PlaneMarks`);
    ``SPACE``: a recorded 3D scene (:class:`~app.canvas.geometry_canvas.SpaceMarks`);
    ``CAMERA``: a camera frame of a planar recording and ``SPACE_CAMERA`` one of
    a 3D scene (:class:`~app.canvas.camera_canvas.CameraMarks` for both).
    """

    PLANE = "plane"
    SPACE = "space"
    CAMERA = "camera"
    SPACE_CAMERA = "space_camera"


#: A painter: draws with the painter (a ``QPainter``) from the view's context.
Painter = Callable[[Any, Any], None]


@dataclass(frozen=True)
class Paint:
    """One painter of an overlay on one surface, at a depth ``z``.

    Lower ``z`` is drawn first. On the plane, ``z < 0`` is part of the still
    backdrop (drawn once per task and view, then copied, so it is given no
    play time), ``0 <= z < 50`` is drawn under the arm and ``z >= 50`` over
    it. On a camera, ``z >= TEXT_Z`` is text drawn even without a calibration.
    """

    surface: Surface
    z: int
    paint: Painter


@dataclass(frozen=True)
class Overlay:
    """A toggle of what is drawn over the recording, and its painters."""

    name: str
    """Key in the view model's shown overlays, and the flag's last word."""
    label: str
    """The menu entry's and side-panel box's text."""
    help: str
    """The command-line flag's help (says what is drawn)."""
    default: bool
    applies: Callable[[RecordingModel], bool]
    """Whether a recording has anything for this overlay to draw."""
    paints: tuple[Paint, ...] = ()

    @property
    def flag(self) -> str:
        """The command-line flag that flips the default: ``--show-X``/``--hide-X``."""
        verb = "hide" if self.default else "show"
        return f"--{verb}-{self.name.replace('_', '-')}"

    def paints_on(self, surface: Surface) -> tuple[Paint, ...]:
        """Return this overlay's painters of ``surface``."""
        return tuple(paint for paint in self.paints if paint.surface is surface)
