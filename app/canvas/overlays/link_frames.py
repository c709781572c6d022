"""Link frames: each link of a robot model's x, y and z axes, in the 3D scene.

The axes of every link the robot model names (x red, y green, z blue, the
palette's ``geometry.axes``), over its meshes, to read where each joint's
frame is; off by default. Cameras show the same axes through the body-frames
overlay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.canvas.overlay import Overlay, Paint, Surface
from app.canvas.overlays.robot_marks import has_robot

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.geometry_canvas import SpaceMarks

__all__ = ["OVERLAY"]

#: Axis length, as a share of the scene's extent.
_AXIS_SHARE = 0.05


def _paint_space(painter: QPainter, marks: SpaceMarks) -> None:
    from PySide6.QtGui import QPen

    from app.canvas.camera_canvas import paint_axis_line
    from app.canvas.drawing import palette_cycle, qcolor, rgb_color
    from app.canvas.scene_view3d import rotations, scene_points

    if not has_robot(marks.canvas.model):
        return
    geometry, view, rect = marks.geometry, marks.view, marks.rect
    length = marks.canvas.memo(
        "link_frames.length",
        lambda: (
            _AXIS_SHARE * float(np.linalg.norm(np.ptp(scene_points(geometry), axis=0)))
        ),
    )
    poses = geometry.poses_at(marks.play_time_s)
    origins = poses[:, :3]
    columns = rotations(poses[:, 3:]).transpose(0, 2, 1)  # (links, axis, xyz)
    colors = palette_cycle("geometry.axes")
    shadow = qcolor("geometry.axis_shadow")
    for axis in range(3):
        ends = origins + length * columns[:, axis]
        for start, end in zip(origins, ends, strict=True):
            shown = view.pixels(rect, view.camera(np.vstack([start, end])))
            pen = QPen(rgb_color(colors[axis]), 1.6)
            paint_axis_line(painter, shown, pen, QPen(shadow, 3.0))


OVERLAY = Overlay(
    name="link_frames",
    label="Show link frames",
    help="each robot link's x, y and z axes in the 3D scene",
    default=False,
    applies=has_robot,
    paints=(Paint(Surface.SPACE, 70, _paint_space),),
)
