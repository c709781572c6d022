"""Tip: the arm's tip projected into each camera frame, as a ringed dot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks

__all__ = ["OVERLAY"]


def _applies(model: RecordingModel) -> bool:
    return model.kinematics is not None and bool(model.cameras)


def _paint_camera(painter: QPainter, marks: CameraMarks) -> None:
    from PySide6.QtCore import Qt

    from app.canvas.drawing import palette_rgb, qcolor, rgb_color
    from app.canvas.scene_marks import pen

    tips = marks.visible("tip")
    if marks.view is None or not tips:
        return
    unit = marks.view.unit
    color = rgb_color(palette_rgb("camera.tip"))
    for tip in tips:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(pen(qcolor("camera.tip_shadow"), 2.6 * unit))
        painter.drawEllipse(tip, 4.5 * unit, 4.5 * unit)
        painter.setPen(pen(color, 1.3 * unit))
        painter.drawEllipse(tip, 4.5 * unit, 4.5 * unit)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawEllipse(tip, 1.4 * unit, 1.4 * unit)


OVERLAY = Overlay(
    name="tip",
    label="Show tip in cameras",
    help="the arm's tip projected into the camera frames",
    default=True,
    applies=_applies,
    paints=(Paint(Surface.CAMERA, 40, _paint_camera),),
)
