"""Tip trail: the path of the robot's tip (or ``--trail-link``) over the take.

Drawn in the 3D scene and, through each frame's calibration (distortion
included), in the cameras: the path taken so far in full colour, the rest of
the take faint, so a scrub shows where the arm has been and where it goes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.canvas.overlay import Overlay, Paint, Surface
from app.canvas.overlays.robot_marks import has_robot, trail
from fsr_core.arrays import FloatArray

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks
    from app.canvas.geometry_canvas import SpaceMarks

__all__ = ["OVERLAY"]

#: Points of the trail drawn at most (a long take is thinned evenly).
_MAX_POINTS = 4_000


def _split(
    times_s: FloatArray, points: FloatArray, play_time_s: float
) -> tuple[FloatArray, FloatArray]:
    """Return the path up to ``play_time_s`` and the path after it."""
    step = max(1, len(points) // _MAX_POINTS)
    times_s, points = times_s[::step], points[::step]
    now = int(np.searchsorted(times_s, play_time_s, side="right"))
    return points[: max(now, 1)], points[max(now - 1, 0) :]


def _draw_runs(
    painter: QPainter, runs: list[FloatArray], key: str, width: float
) -> None:
    from PySide6.QtGui import QPen

    from app.canvas.camera_canvas import polyline_runs
    from app.canvas.drawing import qcolor

    pen = QPen(qcolor(key), width)
    painter.setPen(pen)
    for shown in runs:
        for run in polyline_runs(shown):
            painter.drawPolyline(run)


def _paint_space(painter: QPainter, marks: SpaceMarks) -> None:
    found = trail(marks.canvas)
    if found is None:
        return
    done, ahead = _split(*found, marks.play_time_s)
    view = marks.view

    def shown(points: FloatArray) -> FloatArray:
        return view.pixels(marks.rect, view.camera(points))

    _draw_runs(painter, [shown(ahead)], "geometry.trail_ahead", 1.5)
    _draw_runs(painter, [shown(done)], "geometry.trail", 2.5)


def _paint_space_camera(painter: QPainter, marks: CameraMarks) -> None:
    found = trail(marks.canvas)
    if found is None or marks.view is None:
        return
    done, ahead = _split(*found, marks.frame_time_s)
    unit = marks.view.unit
    _draw_runs(painter, [marks.view.path(ahead)], "geometry.trail_ahead", 1.5 * unit)
    _draw_runs(painter, [marks.view.path(done)], "geometry.trail", 2.5 * unit)


OVERLAY = Overlay(
    name="tip_trail",
    label="Show tip trail",
    help="the path of the robot's tip over the take (--trail-link picks the link)",
    default=True,
    applies=has_robot,
    paints=(
        Paint(Surface.SPACE, 60, _paint_space),
        Paint(Surface.SPACE_CAMERA, 30, _paint_space_camera),
    ),
)
