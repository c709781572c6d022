"""Body frames: each recorded body's x, y and z axes projected into cameras.

The axes of a 3D scene's bodies (x red, y green, z blue, the palette's
``geometry.axes``), cut in 3D so they bend with the lens distortion as the
recorded image does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks

__all__ = ["OVERLAY"]


def _applies(model: RecordingModel) -> bool:
    return (
        model.kinematics is None and model.geometry is not None and bool(model.cameras)
    )


def _paint_space_camera(painter: QPainter, marks: CameraMarks) -> None:
    from PySide6.QtGui import QPen

    from app.canvas.camera_canvas import paint_axis_line
    from app.canvas.drawing import palette_cycle, qcolor, rgb_color

    view = marks.view
    bodies, ends = marks.points.get("bodies"), marks.points.get("axes")
    if view is None or bodies is None or ends is None:
        return
    colors = palette_cycle("geometry.axes")
    shadow = qcolor("geometry.axis_shadow")
    axes = view.segments(np.repeat(bodies, 3, axis=0), ends)
    for index, shown in enumerate(axes):
        rgb = colors[index % 3]
        pen = QPen(rgb_color(rgb), 1.3 * view.unit)
        paint_axis_line(painter, shown, pen, QPen(shadow, 2.6 * view.unit))


OVERLAY = Overlay(
    name="body_frames",
    label="Show body frames in cameras",
    help="each body's axes projected into the camera frames",
    default=True,
    applies=_applies,
    paints=(Paint(Surface.SPACE_CAMERA, 10, _paint_space_camera),),
)
