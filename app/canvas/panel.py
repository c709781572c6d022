"""The readout panel composited beside the scene in exports.

It shows what skelarm's ``--panel`` export shows (time, joint angles within
their limits, tip position and speed, external force, friction, active
target), painted with ``QPainter`` so it needs no widget and no window. The
numbers come from :func:`app.canvas.panel_values.panel_values`, as in the
window's live side panel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
)

from app.canvas.drawing import painting_in, qcolor
from app.canvas.drawing import ui_font as _font
from app.canvas.images import paint_to_image
from app.canvas.panel_values import JointValue, PanelValues, panel_values
from app.canvas.scene_canvas import LINK_COLORS
from fsr_core.recording import RecordingModel

__all__ = ["ReadoutPanel"]

PANEL_BACKGROUND: Final = qcolor("panel.background")
DIVIDER_COLOR: Final = qcolor("panel.divider")
TRACK_COLOR: Final = qcolor("panel.track")
KNOB_OUTLINE_COLOR: Final = qcolor("panel.knob_outline")
TEXT_COLOR: Final = qcolor("panel.text")
MUTED_TEXT_COLOR: Final = qcolor("panel.muted_text")

_PAD_PX: Final = 16.0


@dataclass(frozen=True)
class _Line:
    """One text line of the panel: what it says and how."""

    text: str
    pixel_size: int
    bold: bool = False
    muted: bool = False


class ReadoutPanel:
    """The side panel composited into exports: time, joints, tip, readouts."""

    WIDTH_PX: ClassVar[int] = 304

    def __init__(self, model: RecordingModel) -> None:
        self._model = model

    def _readout_lines(self, values: PanelValues) -> list[str]:
        lines = []
        if values.tip_xy_m is not None:
            lines.append(f"Tip: {values.tip_text} m")
        if values.tip_speed_m_s is not None:
            lines.append(f"Tip speed: {values.tip_speed_text}")
        lines.extend(
            f"{row.label}: {row.text}"
            for row in values.readouts
            if row.value is not None
        )
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
        with painting_in(painter, rect):
            painter.fillRect(rect, PANEL_BACKGROUND)
            painter.setPen(QPen(DIVIDER_COLOR, 1.0))
            painter.drawLine(
                QPointF(rect.left() + 0.5, rect.top()),
                QPointF(rect.left() + 0.5, rect.bottom()),
            )
            self._paint_content(painter, rect, play_time_s)

    def _paint_content(
        self, painter: QPainter, rect: QRectF, play_time_s: float
    ) -> None:
        left = rect.left() + _PAD_PX
        right = rect.right() - _PAD_PX
        y = rect.top() + _PAD_PX
        values = panel_values(self._model, play_time_s)
        header = [
            _Line("Simulation", 14, bold=True),
            _Line(values.time_text, 26, bold=True),
            _Line(values.tick_text, 12, muted=True),
        ]
        if values.task:
            header.append(_Line(values.task_text, 14))
        for line in header:
            y = self._paint_line(painter, left, right, y, line) + 2.0
        y += 10.0
        for index, joint in enumerate(values.joints):
            y = self._paint_joint(painter, left, right, y, index, joint)
            y += 10.0
        y += 4.0
        painter.setPen(QPen(DIVIDER_COLOR, 1.0))
        painter.drawLine(QPointF(left, y), QPointF(right, y))
        y += 10.0
        if not values.has_kinematics and not values.joints:
            y = self._paint_line(
                painter,
                left,
                right,
                y,
                _Line("No joint angles recorded", 13, muted=True),
            )
        for text in self._readout_lines(values):
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
        joint: JointValue,
    ) -> float:
        """Draw a joint's label and a slider-like bar of its angle in its limits."""
        y = self._paint_line(
            painter,
            left,
            right,
            top,
            _Line(f"Joint {index + 1}: {joint.degrees_text}", 14),
        )
        y += 7.0
        rgb = LINK_COLORS[index % len(LINK_COLORS)]  # the link's, as in the scene
        color = QColor(rgb[0], rgb[1], rgb[2])
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(TRACK_COLOR)
        painter.drawRoundedRect(QRectF(left, y, right - left, 6.0), 3.0, 3.0)
        fraction = joint.fraction
        if fraction is not None:
            x_value = left + fraction * (right - left)
            x_zero = left + joint.zero_fraction * (right - left)
            fill = QColor(color)
            fill.setAlpha(150)
            painter.setBrush(fill)
            painter.drawRoundedRect(
                QRectF(min(x_zero, x_value), y, abs(x_value - x_zero), 6.0), 3.0, 3.0
            )
            painter.setPen(QPen(KNOB_OUTLINE_COLOR, 2.0))
            painter.setBrush(color)
            painter.drawEllipse(QPointF(x_value, y + 3.0), 7.0, 7.0)
        y += 14.0
        font = _font(11)
        painter.setFont(font)
        painter.setPen(MUTED_TEXT_COLOR)
        metrics = QFontMetricsF(font)
        baseline = y + metrics.ascent()
        painter.drawText(QPointF(left, baseline), joint.min_text)
        high = joint.max_text
        painter.drawText(
            QPointF(right - metrics.horizontalAdvance(high), baseline), high
        )
        return y + metrics.height()
