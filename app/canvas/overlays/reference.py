"""Reference: the task's curve and reference path, in the scene and cameras.

On the planar scene they are part of the still backdrop (a reference of few
points is waypoints, each dotted); on a camera they are projected through
the frame's calibration, dashed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks
    from app.canvas.scene_canvas import PlaneMarks

__all__ = ["OVERLAY"]

#: A reference path of at most this many points is waypoints: each is dotted.
_MAX_WAYPOINTS = 32


def _applies(model: RecordingModel) -> bool:
    return any(task.curve_xy or task.reference_xy for task in model.overlays.values())


def _paint_plane(painter: QPainter, marks: PlaneMarks) -> None:
    from PySide6.QtCore import QPointF, Qt

    from app.canvas.drawing import palette_rgb, rgb_color
    from app.canvas.scene_marks import disc, pen, polygon

    task, width = marks.task, marks.link_width
    if task is None:
        return
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if len(task.curve_xy) >= 2:
        curve = rgb_color(palette_rgb("scene.curve"))
        painter.setPen(pen(curve, max(1.5, 0.2 * width)))
        painter.drawPolyline(polygon(marks.pixels(task.curve_xy)))
    if len(task.reference_xy) >= 2:
        color = rgb_color(palette_rgb("scene.reference"))
        pixels = marks.pixels(task.reference_xy)
        dashed = pen(color, max(1.5, 0.18 * width))
        dashed.setDashPattern([4.0, 3.0])
        painter.setPen(dashed)
        painter.drawPolyline(polygon(pixels))
        if len(pixels) <= _MAX_WAYPOINTS:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            for x, y in pixels:
                disc(painter, QPointF(float(x), float(y)), max(2.5, 0.25 * width))


def _paint_camera(painter: QPainter, marks: CameraMarks) -> None:
    from PySide6.QtCore import Qt

    from app.canvas.camera_canvas import plane_to_world, polyline_runs
    from app.canvas.drawing import palette_rgb, rgb_color
    from app.canvas.scene_marks import pen

    view = marks.view
    if view is None:
        return
    color = rgb_color(palette_rgb("camera.reference"), 220)
    for key in ("curve", "reference"):
        path: FloatArray | None = marks.points.get(key)
        if path is None or len(path) < 2:
            continue
        dashed = pen(color, 1.2 * view.unit)
        dashed.setDashPattern([4.0, 3.0])
        painter.setPen(dashed)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for run in polyline_runs(view.path(plane_to_world(path))):
            painter.drawPolyline(run)


OVERLAY = Overlay(
    name="reference",
    label="Show reference",
    help="the task's reference path and curve",
    default=True,
    applies=_applies,
    paints=(
        Paint(Surface.PLANE, -10, _paint_plane),
        Paint(Surface.CAMERA, 10, _paint_camera),
    ),
)
