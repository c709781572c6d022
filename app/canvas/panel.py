"""The readout panel composited beside the scene in exports.

It shows what skelarm's ``--panel`` export shows (time, joint angles within
their limits, tip position and speed, external force, friction, active
target), painted with ``QPainter`` so it needs no widget and no window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPainter,
    QPen,
)

from app.canvas.images import paint_to_image
from fsr_core.adapters.planar_arm.render import LINK_COLORS
from fsr_core.recording import Channel, PlanarKinematics, RecordingModel

__all__ = ["ReadoutPanel"]

FloatArray = npt.NDArray[np.float64]

PANEL_BACKGROUND: Final = QColor(236, 238, 242)
DIVIDER_COLOR: Final = QColor(210, 214, 221)
TRACK_COLOR: Final = QColor(210, 214, 222)
TEXT_COLOR: Final = QColor(33, 37, 45)
MUTED_TEXT_COLOR: Final = QColor(104, 110, 122)

_PAD_PX: Final = 16.0
_DEFAULT_LIMIT_RAD: Final = math.pi


@dataclass(frozen=True)
class _Line:
    """One text line of the panel: what it says and how."""

    text: str
    pixel_size: int
    bold: bool = False
    muted: bool = False


def _font(pixel_size: float, *, bold: bool = False) -> QFont:
    font = QFont(QGuiApplication.font())
    font.setPixelSize(max(round(pixel_size), 1))
    font.setBold(bold)
    return font


def _column(channels: dict[str, Channel], reference: str) -> tuple[Channel, int] | None:
    """Resolve a ``"channel:column"`` readout to its channel and column index."""
    name, _, column = reference.rpartition(":")
    channel = channels.get(name)
    if channel is None or column not in channel.columns:
        return None
    return channel, channel.columns.index(column)


def _limit(values: FloatArray | None, index: int, default: float) -> float:
    if values is None or index >= len(values) or not math.isfinite(values[index]):
        return default
    return float(values[index])


def _tip_speed(kinematics: PlanarKinematics, q: FloatArray, dq: FloatArray) -> float:
    """``|J(q) dq|`` of the tip."""
    angles = np.cumsum(q)
    rates = np.cumsum(dq)
    lengths = kinematics.lengths_m
    vx = -float(np.sum(lengths * rates * np.sin(angles)))
    vy = float(np.sum(lengths * rates * np.cos(angles)))
    return math.hypot(vx, vy)


class ReadoutPanel:
    """The side panel composited into exports: time, joints, tip, readouts."""

    WIDTH_PX: ClassVar[int] = 304

    def __init__(self, model: RecordingModel) -> None:
        self._model = model
        self._readouts = {
            label: found
            for label, reference in model.readouts.items()
            if (found := _column(model.channels, reference)) is not None
        }

    # -- values -----------------------------------------------------------

    def _readout(self, label: str, play_time_s: float) -> float | None:
        found = self._readouts.get(label)
        if found is None:
            return None
        channel, index = found
        value = float(channel.value_at(play_time_s)[index])
        return value if math.isfinite(value) else None

    def _channel_value(self, name: str | None, play_time_s: float) -> FloatArray | None:
        channel = None if name is None else self._model.channels.get(name)
        return None if channel is None else channel.value_at(play_time_s)

    def _tick(self, play_time_s: float) -> tuple[int, int]:
        """Return ``(tick, generation)`` at ``play_time_s`` (linear in a segment)."""
        timeline = self._model.timeline
        generation, _ = timeline.locate(play_time_s)
        if not timeline.segments:
            return 0, generation
        segment = timeline.segment(generation)
        span = segment.end_play_s - segment.start_play_s
        fraction = 0.0 if span <= 0 else (play_time_s - segment.start_play_s) / span
        fraction = min(max(fraction, 0.0), 1.0)
        ticks = segment.last_tick - segment.first_tick
        return segment.first_tick + round(fraction * ticks), generation

    def _speed(self, play_time_s: float, q: FloatArray | None) -> float | None:
        speed = self._readout("tip speed", play_time_s)
        kinematics = self._model.kinematics
        if speed is not None or kinematics is None or q is None:
            return speed
        dq = self._channel_value("dq", play_time_s)
        if dq is None or dq.shape != q.shape or not np.isfinite(dq).all():
            return None
        return _tip_speed(kinematics, q, dq)

    def _readout_lines(self, play_time_s: float, q: FloatArray | None) -> list[str]:
        lines = []
        kinematics = self._model.kinematics
        if kinematics is not None and q is not None and np.isfinite(q).all():
            tip = kinematics.joint_positions(q)[-1]
            lines.append(f"Tip: ({tip[0]:.3f}, {tip[1]:.3f}) m")
        speed = self._speed(play_time_s, q)
        if speed is not None:
            lines.append(f"Tip speed: {speed:.3f} m/s")
        force = self._channel_value(self._model.external_force_channel, play_time_s)
        if force is not None and len(force) >= 2:
            lines.append(f"Ext. force: {math.hypot(force[0], force[1]):.1f} N")
        friction = self._readout("friction", play_time_s)
        if friction is not None:
            lines.append(f"Friction: {friction:.3f} N·m·s/rad")
        active = self._channel_value(self._model.active_target_channel, play_time_s)
        overlay = self._model.overlay_at(play_time_s)
        has_targets = overlay is not None and bool(overlay.targets_xy)
        if active is not None and has_targets and math.isfinite(active[0]):
            lines.append(f"Active target: {round(float(active[0])) + 1}")
        return lines

    # -- painting ---------------------------------------------------------

    def render(self, play_time_s: float, height: int) -> QImage:
        """Return the panel at ``play_time_s`` as a ``WIDTH_PX`` x ``height`` image."""
        return paint_to_image(
            lambda painter, rect: self.paint(painter, rect, play_time_s),
            self.WIDTH_PX,
            height,
            QColor(PANEL_BACKGROUND),
        )

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the panel at ``play_time_s`` into ``rect`` (fills it)."""
        painter.save()
        try:
            painter.setClipRect(rect)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            painter.fillRect(rect, PANEL_BACKGROUND)
            painter.setPen(QPen(DIVIDER_COLOR, 1.0))
            painter.drawLine(
                QPointF(rect.left() + 0.5, rect.top()),
                QPointF(rect.left() + 0.5, rect.bottom()),
            )
            self._paint_content(painter, rect, play_time_s)
        finally:
            painter.restore()

    def _paint_content(
        self, painter: QPainter, rect: QRectF, play_time_s: float
    ) -> None:
        left = rect.left() + _PAD_PX
        right = rect.right() - _PAD_PX
        y = rect.top() + _PAD_PX
        tick, generation = self._tick(play_time_s)
        header = [
            _Line("Simulation", 14, bold=True),
            _Line(f"t = {play_time_s:.2f} s", 26, bold=True),
            _Line(f"tick {tick} / generation {generation}", 12, muted=True),
        ]
        for line in header:
            y = self._paint_line(painter, left, right, y, line) + 2.0
        y += 10.0
        q = self._model.joint_angles_at(play_time_s)
        kinematics = self._model.kinematics
        if q is not None:
            for index, angle in enumerate(q):
                y = self._paint_joint(painter, left, right, y, index, float(angle))
                y += 10.0
        y += 4.0
        painter.setPen(QPen(DIVIDER_COLOR, 1.0))
        painter.drawLine(QPointF(left, y), QPointF(right, y))
        y += 10.0
        if kinematics is None and q is None:
            y = self._paint_line(
                painter, left, right, y, _Line("No planar kinematics", 13, muted=True)
            )
        for text in self._readout_lines(play_time_s, q):
            y = self._paint_line(painter, left, right, y, _Line(text, 14)) + 5.0

    def _paint_line(
        self, painter: QPainter, left: float, right: float, top: float, line: _Line
    ) -> float:
        """Draw one line of text; return the y below it."""
        font = _font(line.pixel_size, bold=line.bold)
        painter.setFont(font)
        painter.setPen(MUTED_TEXT_COLOR if line.muted else TEXT_COLOR)
        metrics = QFontMetricsF(font)
        text = metrics.elidedText(line.text, Qt.TextElideMode.ElideRight, right - left)
        painter.drawText(QPointF(left, top + metrics.ascent()), text)
        return top + metrics.height()

    def _paint_joint(
        self,
        painter: QPainter,
        left: float,
        right: float,
        top: float,
        index: int,
        angle_rad: float,
    ) -> float:
        """Draw a joint's label and a slider-like bar of its angle in its limits."""
        kinematics = self._model.kinematics
        q_min = _limit(
            None if kinematics is None else kinematics.q_min_rad,
            index,
            -_DEFAULT_LIMIT_RAD,
        )
        q_max = _limit(
            None if kinematics is None else kinematics.q_max_rad,
            index,
            _DEFAULT_LIMIT_RAD,
        )
        finite = math.isfinite(angle_rad)
        degrees = f"{math.degrees(angle_rad):.0f}°" if finite else "n/a"
        y = self._paint_line(
            painter, left, right, top, _Line(f"Joint {index + 1}: {degrees}", 14)
        )
        y += 7.0
        rgb = LINK_COLORS[index % len(LINK_COLORS)]
        color = QColor(rgb[0], rgb[1], rgb[2])
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(TRACK_COLOR)
        painter.drawRoundedRect(QRectF(left, y, right - left, 6.0), 3.0, 3.0)
        if finite and q_max > q_min:
            fraction = min(max((angle_rad - q_min) / (q_max - q_min), 0.0), 1.0)
            zero = min(max(-q_min / (q_max - q_min), 0.0), 1.0)
            x_value = left + fraction * (right - left)
            x_zero = left + zero * (right - left)
            fill = QColor(color)
            fill.setAlpha(150)
            painter.setBrush(fill)
            painter.drawRoundedRect(
                QRectF(min(x_zero, x_value), y, abs(x_value - x_zero), 6.0), 3.0, 3.0
            )
            painter.setPen(QPen(QColor(255, 255, 255), 2.0))
            painter.setBrush(color)
            painter.drawEllipse(QPointF(x_value, y + 3.0), 7.0, 7.0)
        y += 14.0
        font = _font(11)
        painter.setFont(font)
        painter.setPen(MUTED_TEXT_COLOR)
        metrics = QFontMetricsF(font)
        low = f"{math.degrees(q_min):.0f}°"
        high = f"{math.degrees(q_max):.0f}°"
        baseline = y + metrics.ascent()
        painter.drawText(QPointF(left, baseline), low)
        painter.drawText(
            QPointF(right - metrics.horizontalAdvance(high), baseline), high
        )
        return y + metrics.height()
