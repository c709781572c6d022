"""The readout panel composited beside the scene in exports.

It shows the rows of :mod:`app.canvas.panel_rows` that apply to the recording
(the play time, the simulator's clocks where recorded, the dataset episode,
the task, joint angles within their limits, tip position and speed, external
force, friction, active target), in the registry's order, as the window's
side panel does; skelarm's ``--panel`` export showed the same. It is painted
with ``QPainter``, so it needs no widget and no window.
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
from app.canvas.joint_bar import (
    BAR_HEIGHT_PX,
    OUT_OF_LIMITS_COLOR,
    joint_color,
    paint_joint_bar,
)
from app.canvas.panel_rows.base import (
    JointLineKind,
    JointValue,
    LineStyle,
    PanelRow,
    RowLine,
    RowValue,
    joint_lines,
    joint_name_text,
)
from app.canvas.panel_rows.registry import row_values, rows_for
from fsr_core.recording import RecordingModel

__all__ = ["ReadoutPanel"]

PANEL_BACKGROUND: Final = qcolor("panel.background")
DIVIDER_COLOR: Final = qcolor("panel.divider")
TEXT_COLOR: Final = qcolor("panel.text")
MUTED_TEXT_COLOR: Final = qcolor("panel.muted_text")

_PAD_PX: Final = 16.0
#: Space between two rows, and above and below a divider.
_ROW_GAP_PX: Final = 8.0
_HEADING: Final = "Simulation"


@dataclass(frozen=True)
class _Line:
    """One text line of the panel: what it says and how."""

    text: str
    pixel_size: int
    bold: bool = False
    muted: bool = False


_STYLES: Final = {
    LineStyle.TITLE: (26, True, False),
    LineStyle.BODY: (14, False, False),
    LineStyle.MUTED: (12, False, True),
}


def _line(line: RowLine) -> _Line:
    pixel_size, bold, muted = _STYLES[line.style]
    return _Line(line.text, pixel_size, bold=bold, muted=muted)


class ReadoutPanel:
    """The side panel composited into exports: the panel rows the file has."""

    WIDTH_PX: ClassVar[int] = 304

    def __init__(self, model: RecordingModel, *, environment: str = "") -> None:
        self._model = model
        self._environment = environment
        self._rows: tuple[PanelRow, ...] = rows_for(model)

    @property
    def rows(self) -> tuple[PanelRow, ...]:
        """The rows the panel shows, top to bottom."""
        return self._rows

    def text_lines(self, play_time_s: float) -> list[str]:
        """Return the text lines painted at ``play_time_s``, top to bottom.

        The heading, then each row's lines (the joints' as
        :func:`~app.canvas.panel_rows.base.joint_lines` gives them: a group's name,
        ``"q0: 42°"``, its rate and effort); as painted, before eliding to the
        panel's width.
        """
        lines = [_HEADING]
        for value in self._values(play_time_s):
            lines.extend(value.texts)
            lines.extend(line.text for line in joint_lines(value))
        return lines

    def _values(self, play_time_s: float) -> tuple[RowValue, ...]:
        return row_values(
            self._model, self._rows, play_time_s, environment=self._environment
        )

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
        y = self._paint_line(painter, left, right, y, _Line(_HEADING, 14, bold=True))
        values = self._values(play_time_s)
        section = None
        for row, value in zip(self._rows, values, strict=True):
            if y > rect.bottom():
                break  # the rest would not show
            y += _ROW_GAP_PX
            if section is not None and row.section != section:
                painter.setPen(QPen(DIVIDER_COLOR, 1.0))
                painter.drawLine(QPointF(left, y), QPointF(right, y))
                y += _ROW_GAP_PX
            section = row.section
            y = self._paint_row(painter, left, right, y, value, rect.bottom())

    def _paint_row(
        self,
        painter: QPainter,
        left: float,
        right: float,
        top: float,
        value: RowValue,
        bottom: float,
    ) -> float:
        """Draw one row's lines, then its joints; return the y below it."""
        y = top
        for row_line in value.lines:
            y = self._paint_line(painter, left, right, y, _line(row_line)) + 2.0
        for line in joint_lines(value):
            if y > bottom:
                break
            if line.kind is JointLineKind.JOINT and line.index is not None:
                joint = value.joints[line.index]
                y = self._paint_joint(painter, left, right, y, line.index, joint)
            else:  # a group's name (bold), a joint's rate and effort
                group = line.kind is JointLineKind.GROUP
                shown = _Line(line.text, 12, bold=group, muted=True)
                y = self._paint_line(painter, left, right, y, shown) + 2.0
        return y

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
        """Draw a joint's name and value, and its bar within its limits."""
        font = _font(14)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        value = joint.value_text
        value_width = metrics.horizontalAdvance(value)
        baseline = top + metrics.ascent()
        name = metrics.elidedText(
            joint_name_text(joint),
            Qt.TextElideMode.ElideRight,
            right - left - value_width - 8.0,
        )
        painter.setPen(TEXT_COLOR)
        painter.drawText(QPointF(left, baseline), name)
        painter.setPen(OUT_OF_LIMITS_COLOR if joint.outside else TEXT_COLOR)
        painter.drawText(QPointF(right - value_width, baseline), value)
        y = top + metrics.height()
        if not joint.has_limits:
            return y + 4.0
        paint_joint_bar(
            painter,
            QRectF(left, y, right - left, BAR_HEIGHT_PX),
            joint,
            joint_color(index),
        )
        y += BAR_HEIGHT_PX
        small = _font(11)
        painter.setFont(small)
        painter.setPen(MUTED_TEXT_COLOR)
        small_metrics = QFontMetricsF(small)
        baseline = y + small_metrics.ascent()
        painter.drawText(QPointF(left, baseline), joint.min_text)
        high = joint.max_text
        painter.drawText(
            QPointF(right - small_metrics.horizontalAdvance(high), baseline), high
        )
        return y + small_metrics.height() + 4.0
