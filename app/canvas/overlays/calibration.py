"""Calibration text: a camera frame's name, epoch, intrinsics, pose and digest.

Drawn at the top left of every camera frame (a frame without calibration
says so, and a measuring camera gives its scale and the value under the
probe); the lines are :meth:`~app.canvas.camera_canvas.CameraCanvas.readout_lines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.canvas.overlay import TEXT_Z, Overlay, Paint, Surface
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks

__all__ = ["OVERLAY"]


def _applies(model: RecordingModel) -> bool:
    return bool(model.cameras)


def _paint_camera(painter: QPainter, marks: CameraMarks) -> None:
    marks.canvas.paint_readout(painter, marks.target, marks.play_time_s)


OVERLAY = Overlay(
    name="calibration",
    label="Show calibration",
    help="each camera frame's calibration text (epoch, K, pose, digest)",
    default=True,
    applies=_applies,
    paints=(
        Paint(Surface.CAMERA, TEXT_Z, _paint_camera),
        Paint(Surface.SPACE_CAMERA, TEXT_Z, _paint_camera),
    ),
)
