"""Centres of mass: a disc at each link's centre of mass, in the scene and cameras."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks
    from app.canvas.scene_canvas import PlaneMarks

__all__ = ["OVERLAY"]


def _applies(model: RecordingModel) -> bool:
    kinematics = model.kinematics
    return kinematics is not None and kinematics.com_m is not None


def _paint_plane(painter: QPainter, marks: PlaneMarks) -> None:
    from PySide6.QtCore import QPointF

    from app.canvas.drawing import palette_rgb, rgb_color
    from app.canvas.scene_marks import disc, pen

    if marks.q is None:
        return
    coms = marks.kinematics.com_positions(marks.q)
    if coms is None:
        return
    width = marks.link_width
    painter.setPen(pen(rgb_color(palette_rgb("scene.outline")), 1.5))
    painter.setBrush(rgb_color(palette_rgb("scene.com")))
    for x, y in marks.pixels(coms):
        disc(painter, QPointF(float(x), float(y)), max(2.5, 0.34 * width))


def _paint_camera(painter: QPainter, marks: CameraMarks) -> None:
    from app.canvas.drawing import palette_rgb, qcolor, rgb_color
    from app.canvas.scene_marks import pen

    centers = marks.visible("coms")
    if marks.view is None or not centers:
        return
    unit = marks.view.unit
    painter.setPen(pen(qcolor("camera.com_outline"), 1.0 * unit))
    painter.setBrush(rgb_color(palette_rgb("camera.com")))
    for center in centers:
        painter.drawEllipse(center, 2.2 * unit, 2.2 * unit)


OVERLAY = Overlay(
    name="com",
    label="Show center of mass",
    help="the links' centres of mass",
    default=False,
    applies=_applies,
    paints=(
        Paint(Surface.PLANE, 60, _paint_plane),
        Paint(Surface.CAMERA, 30, _paint_camera),
    ),
)
