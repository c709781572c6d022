"""Targets: the task's target rings (the active one filled), in every view.

On the planar scene, dashed rings of the tolerance with the active target
(the recorded channel's, else the task's) filled and labels beside them; on
a camera, each target's tolerance circle projected through the frame's
calibration with a cross at its centre; in a recorded 3D scene and its
cameras, each recorded target's sphere as a ring.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import numpy as np

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel, TaskOverlay

if TYPE_CHECKING:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPainter

    from app.canvas.camera_canvas import CameraMarks, ImageView
    from app.canvas.geometry_canvas import SpaceMarks
    from app.canvas.scene_canvas import PlaneMarks

__all__ = ["OVERLAY"]

#: Points of a projected tolerance circle.
_RING_POINTS: Final = 48


def _applies(model: RecordingModel) -> bool:
    planar = any(task.targets_xy for task in model.overlays.values())
    recorded = model.geometry is not None and bool(model.geometry.targets)
    return planar or recorded


def _paint_plane(painter: QPainter, marks: PlaneMarks) -> None:
    from app.canvas.scene_canvas import MAX_OFF_VIEW_PX
    from app.canvas.scene_marks import MIN_RING_PX, active_target, paint_targets

    task = marks.task
    if task is None or not task.targets_xy:
        return
    tolerance = task.tolerance_m
    ring = (
        MIN_RING_PX
        if tolerance is None
        else min(tolerance * marks.px_per_m, MAX_OFF_VIEW_PX)
    )
    active = active_target(marks.model, task, marks.play_time_s)
    paint_targets(
        painter, task, marks.pixels(task.targets_xy), ring, active, marks.link_width
    )


def _circle(center_xy: tuple[float, float], task: TaskOverlay) -> FloatArray:
    """Return the tolerance circle of a target, in the plane."""
    radius = task.tolerance_m or 0.0
    angles = np.linspace(0.0, 2.0 * math.pi, _RING_POINTS, endpoint=False)
    circle: FloatArray = np.column_stack(
        [
            center_xy[0] + radius * np.cos(angles),
            center_xy[1] + radius * np.sin(angles),
        ]
    )
    return circle


def _paint_camera(painter: QPainter, marks: CameraMarks) -> None:
    from app.canvas.camera_canvas import plane_to_world
    from app.canvas.scene_marks import (
        ACTIVE_TARGET_COLOR,
        TARGET_COLOR,
        active_target,
        target_rgb,
    )

    view = marks.view
    task = marks.model.overlay_at(marks.frame_time_s)
    if view is None or task is None or not task.targets_xy:
        return
    active = active_target(marks.model, task, marks.frame_time_s)
    for index, xy in enumerate(task.targets_xy):
        centers = view.visible([xy])
        if not centers:
            continue
        ring = None
        if task.tolerance_m is not None:
            ring = view.path(plane_to_world(_circle(xy, task)), closed=True)
        default = ACTIVE_TARGET_COLOR if index == active else TARGET_COLOR
        rgb = target_rgb(task, index, default)
        _paint_camera_target(painter, centers[0], ring, index == active, view, rgb)


def _paint_camera_target(
    painter: QPainter,
    point: QPointF,
    ring: FloatArray | None,
    active: bool,
    view: ImageView,
    rgb: tuple[int, int, int],
) -> None:
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QPolygonF

    from app.canvas.drawing import rgb_color
    from app.canvas.scene_marks import cross, pen

    unit = view.unit
    width = (1.8 if active else 1.1) * unit
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(pen(rgb_color(rgb, 255 if active else 200), width))
    if ring is not None and np.isfinite(ring).all():
        painter.drawPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in ring]))
    cross(painter, point, (5.0 if active else 3.5) * unit)


def _paint_space(painter: QPainter, marks: SpaceMarks) -> None:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetricsF, QPen

    from app.canvas.drawing import rgb_color, ui_font
    from app.canvas.scene_marks import TARGET_COLOR, TEXT_COLOR, cross
    from app.canvas.shown_text import LABEL_CHARS, visible_text

    rect, view = marks.rect, marks.view
    focal = view.focal_px(rect)
    largest = 2.0 * (rect.width() + rect.height())
    for target in marks.geometry.targets:
        camera = view.camera(np.asarray([target.position_m]))
        pixel = view.pixels(rect, camera)[0]
        if not np.isfinite(pixel).all():
            continue
        center = QPointF(float(pixel[0]), float(pixel[1]))
        ring = min(max(4.0, focal * target.radius_m / float(camera[0, 2])), largest)
        pen = QPen(rgb_color(TARGET_COLOR), 2.0)
        pen.setDashPattern([3.0, 2.0])
        painter.setPen(pen)
        painter.setBrush(rgb_color(TARGET_COLOR, 40))
        painter.drawEllipse(center, ring, ring)
        painter.setPen(QPen(rgb_color(TARGET_COLOR), 1.6))
        cross(painter, center, 0.6 * ring)
        if target.name:
            painter.setFont(ui_font(max(11.0, 0.022 * rect.height())))
            painter.setPen(rgb_color(TEXT_COLOR))
            width = QFontMetricsF(painter.font()).horizontalAdvance(target.name)
            shift = ring + 4.0
            if center.x() + shift + width > rect.right():  # keep it inside
                shift = -shift - width
            painter.drawText(
                center + QPointF(shift, -ring), visible_text(target.name, LABEL_CHARS)
            )


def _paint_space_camera(painter: QPainter, marks: CameraMarks) -> None:
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QPen

    from app.canvas.drawing import rgb_color
    from app.canvas.geometry_canvas import depth_along_axis, project_world
    from app.canvas.scene_marks import TARGET_COLOR, cross

    view, points = marks.view, marks.points.get("targets")
    geometry = marks.model.geometry
    if view is None or points is None or not len(points) or geometry is None:
        return
    calibration, unit = view.calibration, view.unit
    centers = view.display(project_world(calibration, points))
    for center, spec in zip(centers, geometry.targets, strict=True):
        if not np.isfinite(center).all():
            continue
        depth = depth_along_axis(calibration, spec.position_m)
        ring = max(
            3.0 * unit, view.scale * calibration.profile.fy * spec.radius_m / depth
        )
        point = QPointF(float(center[0]), float(center[1]))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(rgb_color(TARGET_COLOR), 1.4 * unit))
        painter.drawEllipse(point, ring, ring)
        cross(painter, point, 0.5 * ring)


OVERLAY = Overlay(
    name="targets",
    label="Show target(s)",
    help="the task's targets (the active one filled)",
    default=True,
    applies=_applies,
    paints=(
        Paint(Surface.PLANE, 10, _paint_plane),
        Paint(Surface.CAMERA, 20, _paint_camera),
        Paint(Surface.SPACE, 10, _paint_space),
        Paint(Surface.SPACE_CAMERA, 20, _paint_space_camera),
    ),
)
