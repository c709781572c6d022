"""The marks the planar scene draws over its arm's plane, as plain functions.

Targets (dashed rings, the active one filled, labels), the external-force
arrow with its magnitude, and the play-time label, each painted at pixel
positions the :class:`~app.canvas.scene_canvas.SceneCanvas` has mapped from
the plane; plus the pen, colour and mark helpers the overlays share. The
camera overlays emphasize the ``active_target``, colour their projected
targets by ``target_rgb`` and mark them with ``cross``; the 3D scene frames
its time with ``paint_time_label``.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QPainter,
    QPen,
    QPolygonF,
)

from app.canvas.drawing import palette_rgb, palette_table, qcolor
from app.canvas.drawing import rgb_color as _color
from app.canvas.drawing import ui_font as _font
from app.canvas.panel_rows.values import force_text
from app.canvas.shown_text import LABEL_CHARS, fixed_text, visible_text
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel, TaskOverlay

__all__ = [
    "ACTIVE_TARGET_COLOR",
    "FORCE_COLOR",
    "MIN_RING_PX",
    "MUTED_TEXT_COLOR",
    "TARGET_COLOR",
    "TEXT_COLOR",
    "WORKSPACE_COLOR",
    "active_target",
    "cross",
    "darker",
    "disc",
    "paint_disc",
    "paint_force_arrow",
    "paint_targets",
    "paint_time_label",
    "pen",
    "polygon",
    "target_rgb",
]

Rgb = tuple[int, int, int]


#: Rings of targets without a tolerance (and the smallest ring), in pixels.
MIN_RING_PX: Final = 7.0
TARGET_COLOR: Final = palette_rgb("task.target")
ACTIVE_TARGET_COLOR: Final = palette_rgb("task.active_target")
FORCE_COLOR: Final = palette_rgb("task.force")
#: The reach disc's outline and the time label's frame.
WORKSPACE_COLOR: Final = palette_rgb("scene.workspace")
TEXT_COLOR: Final = palette_rgb("label.text")
MUTED_TEXT_COLOR: Final = palette_rgb("scene.muted_text")
_LABEL_FILL: Final = qcolor("label.fill")
#: Colours a recording may name for its targets, before Qt's SVG colour names.
_NAMED_TARGETS: Final = palette_table("task.named")


def darker(rgb: Rgb, factor: float = 0.72) -> QColor:
    """Return ``rgb`` darkened by ``factor`` (an outline for a fill)."""
    return QColor(int(rgb[0] * factor), int(rgb[1] * factor), int(rgb[2] * factor))


def active_target(
    model: RecordingModel, overlay: TaskOverlay, play_time_s: float
) -> int | None:
    """Return the target emphasized: the recorded channel's, else the overlay's.

    Parameters
    ----------
    model
        The recording, whose active-target channel (if any) names the target.
    overlay
        The task overlay shown at ``play_time_s``.
    play_time_s
        The time drawn.

    Returns
    -------
    int or None
        The 0-based index into ``overlay.targets_xy``; None when the channel
        names no target of the overlay, or neither names one.
    """
    name = model.active_target_channel
    channel = None if name is None else model.channels.get(name)
    if channel is not None:
        value = float(channel.value_at(play_time_s)[0])
        if math.isfinite(value):
            index = round(value)
            return index if 0 <= index < len(overlay.targets_xy) else None
    return overlay.active_index


def target_rgb(overlay: TaskOverlay, index: int, default: Rgb) -> Rgb:
    """Return the colour of target ``index``: its own when it names a known one.

    The name is looked up in the palette's ``task.named`` table first, then
    among Qt's (SVG) colour names.
    """
    names = overlay.target_colors
    if index >= len(names):
        return default
    named = _NAMED_TARGETS.get(names[index].strip().lower())
    if named is not None:
        return named
    if QColor.isValidColorName(names[index]):
        color = QColor(names[index])
        return (color.red(), color.green(), color.blue())
    return default


def pen(
    color: QColor,
    width_px: float,
    style: Qt.PenStyle = Qt.PenStyle.SolidLine,
) -> QPen:
    """Return a pen with round caps and joins."""
    made = QPen(color, width_px, style, Qt.PenCapStyle.RoundCap)
    made.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return made


def polygon(points_px: FloatArray) -> QPolygonF:
    """Return the ``(n, 2)`` pixel points as a polygon."""
    return QPolygonF([QPointF(float(x), float(y)) for x, y in points_px])


def disc(painter: QPainter, center: QPointF, radius_px: float) -> None:
    """Draw a circle of ``radius_px`` around ``center``."""
    painter.drawEllipse(center, radius_px, radius_px)


def paint_disc(
    painter: QPainter,
    center: QPointF,
    radius_px: float,
    fill: QColor | Qt.BrushStyle,
    outline: QPen | Qt.PenStyle,
) -> None:
    """Draw a circle of ``radius_px`` around ``center``, ``fill`` in ``outline``.

    The painter keeps that pen and brush.
    """
    painter.setPen(outline)
    painter.setBrush(fill)
    disc(painter, center, radius_px)


def cross(painter: QPainter, center: QPointF, arm_px: float) -> None:
    """Draw a plus sign whose arms reach ``arm_px`` from ``center``."""
    painter.drawLine(center - QPointF(arm_px, 0.0), center + QPointF(arm_px, 0.0))
    painter.drawLine(center - QPointF(0.0, arm_px), center + QPointF(0.0, arm_px))


def paint_targets(
    painter: QPainter,
    overlay: TaskOverlay,
    pixels: FloatArray,
    ring_px: float,
    active: int | None,
    width: float,
) -> None:
    """Draw the targets at ``pixels``: dashed rings, the active one filled.

    ``ring_px`` is the tolerance radius (at least :data:`MIN_RING_PX` is
    drawn); labels are written beside the rings when there are several.
    """
    dot = max(3.5, 0.42 * width)
    for index, (x, y) in enumerate(pixels):
        if index == active:
            continue
        dashed = pen(_color(target_rgb(overlay, index, TARGET_COLOR), 210), 1.5)
        dashed.setDashPattern([3.0, 2.5])
        ring = max(ring_px, MIN_RING_PX)
        point = QPointF(float(x), float(y))
        paint_disc(painter, point, ring, Qt.BrushStyle.NoBrush, dashed)
    if active is not None and 0 <= active < len(pixels):
        center = QPointF(float(pixels[active][0]), float(pixels[active][1]))
        rgb = target_rgb(overlay, active, ACTIVE_TARGET_COLOR)
        ring = max(ring_px, dot + 3.0)
        paint_disc(painter, center, ring, _color(rgb, 48), pen(darker(rgb, 0.85), 2.0))
        paint_disc(painter, center, dot, _color(rgb), pen(darker(rgb, 0.7), 1.2))
    painter.setFont(_font(max(11.0, 0.9 * width)))
    painter.setPen(_color(MUTED_TEXT_COLOR))
    offset = max(ring_px, MIN_RING_PX) + 4.0
    for (x, y), label in zip(pixels, overlay.target_labels, strict=False):
        if label and len(pixels) > 1:
            painter.drawText(
                QPointF(float(x) + offset, float(y) - offset),
                visible_text(label, LABEL_CHARS),
            )


def paint_force_arrow(
    painter: QPainter,
    start: FloatArray,
    end: FloatArray,
    magnitude_n: float,
    width: float,
) -> None:
    """Draw the force arrow from ``start`` to ``end`` (pixels) and its magnitude.

    Nothing is drawn for an arrow shorter than a pixel; the label sits just
    beyond the head, whatever the arrow's direction.
    """
    vector = end - start
    length = float(np.hypot(vector[0], vector[1]))
    if length < 1.0:
        return
    direction = vector / length
    normal = np.array([-direction[1], direction[0]])
    head = min(max(12.0, 1.25 * width), 0.6 * length)
    neck = end - direction * head
    color = _color(FORCE_COLOR)
    painter.setPen(pen(color, max(2.5, 0.3 * width)))
    painter.drawLine(
        QPointF(float(start[0]), float(start[1])),
        QPointF(float(neck[0]), float(neck[1])),
    )
    wing = 0.5 * head
    painter.setPen(pen(color, 1.0))
    painter.setBrush(color)
    painter.drawPolygon(
        polygon(np.array([end, neck + normal * wing, neck - normal * wing]))
    )
    painter.setFont(_font(max(11.0, 0.95 * width), bold=True))
    label = f"{force_text(magnitude_n)} N"
    metrics = QFontMetricsF(painter.font())
    box = metrics.boundingRect(label)
    reach_out = 0.5 * (
        abs(direction[0]) * box.width() + abs(direction[1]) * box.height()
    )
    anchor = end + direction * (reach_out + 5.0)
    painter.setPen(darker(FORCE_COLOR, 0.8))
    painter.drawText(
        QPointF(
            float(anchor[0]) - box.width() / 2.0,
            float(anchor[1]) + metrics.ascent() / 2.0 - metrics.descent() / 2.0,
        ),
        label,
    )


def paint_time_label(
    painter: QPainter, rect: QRectF, play_time_s: float, frame: QPen | None = None
) -> None:
    """Draw ``t = …`` in a framed box at the top left of ``rect``.

    Parameters
    ----------
    painter
        The painter drawn with.
    rect
        The view the label sits in (its size sets the label's).
    play_time_s
        The time written.
    frame
        The pen of the box's frame; by default the reach disc's outline.
    """
    size = max(12.0, 0.022 * min(rect.height(), 1.6 * rect.width()))
    painter.setFont(_font(size, bold=True))
    metrics = QFontMetricsF(painter.font())
    label = f"t = {fixed_text(play_time_s, 2)} s"
    pad = 0.5 * size
    box = QRectF(
        rect.left() + pad,
        rect.top() + pad,
        metrics.horizontalAdvance(label) + 1.4 * pad,
        metrics.height() + 0.6 * pad,
    )
    painter.setPen(pen(_color(WORKSPACE_COLOR), 1.0) if frame is None else frame)
    painter.setBrush(QBrush(_LABEL_FILL))
    painter.drawRoundedRect(box, 0.4 * pad, 0.4 * pad)
    painter.setPen(_color(TEXT_COLOR))
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
