"""The timeline scrubber: the recording's play time as a bar with markers.

Click or drag to seek; generation resets, the terminal cut, calibration
changes and events are ticks on the bar, gaps and unreadable ranges are
shaded spans. Hovering a marker shows its label. The quality checks' flags
(the Dataset overview's) are a strip of spans under the bar, each with a
small flag at its start, coloured by how bad it is; hovering one shows its
kind, channel, measured value and threshold (plain text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.window.widgets.flag_text import flag_tooltip, severity_of
from app.window.widgets.plain_text import tooltip_html, tooltip_lines_html
from fsr_core.checks import Flag
from fsr_core.recording import Marker, MarkerKind

__all__ = ["DIVERGENCE_COLOR", "FLAG_MARK_COLORS", "MARKER_COLORS", "TimelineScrubber"]

#: Colour of each marker kind on the bar.
MARKER_COLORS: Final[dict[MarkerKind, QColor]] = {
    MarkerKind.GENERATION_RESET: QColor(64, 156, 255),
    MarkerKind.TERMINAL_CUT: QColor(235, 64, 52),
    MarkerKind.GAP: QColor(250, 170, 40),
    MarkerKind.EVENT: QColor(150, 150, 160),
    MarkerKind.UNREADABLE: QColor(200, 40, 40),
    MarkerKind.CALIBRATION: QColor(170, 110, 240),
}
_MARGIN_PX: Final = 8.0
_BAR_HEIGHT_PX: Final = 8.0
_HANDLE_RADIUS_PX: Final = 7.0
_HOVER_PX: Final = 4.0
#: The first divergence of a comparison: a diamond under the bar, its own colour.
DIVERGENCE_COLOR: Final = QColor(214, 39, 40)
#: Colour of a check's flag by how bad it is (the playlist badge's colours).
FLAG_MARK_COLORS: Final[dict[str, QColor]] = {
    "error": QColor(200, 50, 50),
    "warning": QColor(220, 130, 20),
    "outlier": QColor(150, 80, 200),
}
_FLAG_STRIP_PX: Final = 3.0


class TimelineScrubber(QWidget):
    """A bar from the first to the last frame time with a handle at the position."""

    seek_requested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._start_s = 0.0
        self._end_s = 0.0
        self._position_s = 0.0
        self._markers: tuple[Marker, ...] = ()
        self._flags: tuple[Flag, ...] = ()
        self._dragging = False
        self._divergence: tuple[float, str] | None = None
        self._painted_s: float | None = None
        self.setMouseTracking(True)
        self.setMinimumHeight(34)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setToolTip("Click or drag to seek")

    # -- state ------------------------------------------------------------

    def set_range(self, start_s: float, end_s: float) -> None:
        """Show play times from ``start_s`` to ``end_s``."""
        self._start_s, self._end_s = start_s, max(end_s, start_s)
        self.update()

    def set_markers(self, markers: tuple[Marker, ...]) -> None:
        """Mark these points and spans on the bar."""
        self._markers = markers
        self.update()

    def set_flags(self, flags: Sequence[Flag]) -> None:
        """Mark the quality checks' ``flags`` under the bar (empty: none)."""
        self._flags = tuple(flags)
        self.update()

    @property
    def flags(self) -> tuple[Flag, ...]:
        """The checks' flags marked."""
        return self._flags

    def flag_at(self, x_px: float) -> Flag | None:
        """Return the flag whose mark is under widget x ``x_px``, if any."""
        for flag in self._flags:
            left = self.x_of(flag.start_s)
            right = max(self.x_of(flag.end_s), left)
            if left - _HOVER_PX <= x_px <= right + _HOVER_PX:
                return flag
        return None

    def set_divergence(self, play_time_s: float | None, label: str = "") -> None:
        """Mark a comparison's first divergence (None: none); hover shows ``label``."""
        self._divergence = None if play_time_s is None else (play_time_s, label)
        self.update()

    @property
    def divergence(self) -> tuple[float, str] | None:
        """The divergence marked: play time and label (None when none)."""
        return self._divergence

    def set_position(self, play_time_s: float) -> None:
        """Move the handle to ``play_time_s``."""
        if play_time_s != self._position_s:
            self._position_s = play_time_s
            self.update()

    @property
    def position_s(self) -> float:
        """Where the handle is."""
        return self._position_s

    @property
    def painted_s(self) -> float | None:
        """Where the handle was when the bar was last painted (None before)."""
        return self._painted_s

    @property
    def markers(self) -> tuple[Marker, ...]:
        """The markers drawn."""
        return self._markers

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(640, 34)

    # -- geometry ---------------------------------------------------------

    def _bar(self) -> QRectF:
        top = (self.height() - _BAR_HEIGHT_PX) / 2.0
        width = max(self.width() - 2 * _MARGIN_PX, 1.0)
        return QRectF(_MARGIN_PX, top, width, _BAR_HEIGHT_PX)

    def x_of(self, play_time_s: float) -> float:
        """Return the widget x of ``play_time_s``."""
        bar = self._bar()
        span = self._end_s - self._start_s
        fraction = 0.0 if span <= 0 else (play_time_s - self._start_s) / span
        return bar.left() + min(max(fraction, 0.0), 1.0) * bar.width()

    def time_at(self, x_px: float) -> float:
        """Return the play time under widget x ``x_px`` (clamped)."""
        bar = self._bar()
        fraction = min(max((x_px - bar.left()) / bar.width(), 0.0), 1.0)
        return self._start_s + fraction * (self._end_s - self._start_s)

    def marker_at(self, x_px: float) -> Marker | None:
        """Return the marker under widget x ``x_px``, if any."""
        for marker in self._markers:
            left = self.x_of(marker.play_time_s)
            end = marker.end_play_s
            right = left if end is None else self.x_of(end)
            if left - _HOVER_PX <= x_px <= right + _HOVER_PX:
                return marker
        return None

    # -- mouse ------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Seek to the clicked time and start dragging (Qt override)."""
        if event.button() == Qt.MouseButton.LeftButton:
            self._dragging = True
            self.seek_requested.emit(self.time_at(event.position().x()))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Seek while dragging; show a marker's label on hover (Qt override)."""
        x_px = event.position().x()
        if self._dragging:
            self.seek_requested.emit(self.time_at(x_px))
            return
        divergence = self._divergence
        if divergence is not None and abs(self.x_of(divergence[0]) - x_px) <= _HOVER_PX:
            where = event.globalPosition().toPoint()
            QToolTip.showText(where, tooltip_html(divergence[1]), self)
            return
        if event.position().y() > self._bar().bottom():
            flag = self.flag_at(x_px)
            if flag is not None:
                where = event.globalPosition().toPoint()
                QToolTip.showText(where, tooltip_lines_html(flag_tooltip(flag)), self)
                return
        marker = self.marker_at(x_px)
        if marker is not None:
            QToolTip.showText(
                event.globalPosition().toPoint(),
                tooltip_html(
                    f"{marker.kind.value.replace('_', ' ')}: {marker.label} "
                    f"at {marker.play_time_s:.3f} s"
                ),
                self,
            )

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Stop dragging (Qt override)."""
        self._dragging = False
        event.accept()

    # -- painting ---------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        """Draw the bar, spans, markers and the handle (Qt override)."""
        del event
        painter = QPainter(self)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            palette = self.palette()
            bar = self._bar()
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(palette.color(QPalette.ColorRole.Mid))
            painter.drawRoundedRect(bar, 3.0, 3.0)
            played = QRectF(bar)
            played.setRight(self.x_of(self._position_s))
            painter.setBrush(palette.color(QPalette.ColorRole.Highlight))
            painter.drawRoundedRect(played, 3.0, 3.0)
            self._paint_markers(painter, bar)
            self._paint_flags(painter, bar)
            self._paint_divergence(painter, bar)
            self._paint_handle(painter, bar, palette)
            self._painted_s = self._position_s
        finally:
            painter.end()

    def _paint_markers(self, painter: QPainter, bar: QRectF) -> None:
        for marker in self._markers:
            color = MARKER_COLORS[marker.kind]
            x_px = self.x_of(marker.play_time_s)
            if marker.end_play_s is not None:
                span = QRectF(bar)
                span.setLeft(x_px)
                span.setRight(max(self.x_of(marker.end_play_s), x_px + 2.0))
                shaded = QColor(color)
                shaded.setAlpha(150)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(shaded)
                painter.drawRect(span)
                continue
            painter.setPen(QPen(color, 2.0))
            if marker.kind is MarkerKind.EVENT:
                painter.drawLine(
                    QPointF(x_px, bar.bottom() + 2), QPointF(x_px, bar.bottom() + 6)
                )
                continue
            painter.drawLine(
                QPointF(x_px, bar.top() - 6), QPointF(x_px, bar.bottom() + 6)
            )
            painter.setBrush(color)
            painter.drawPolygon(
                QPolygonF(
                    [
                        QPointF(x_px - 4, bar.top() - 9),
                        QPointF(x_px + 4, bar.top() - 9),
                        QPointF(x_px, bar.top() - 4),
                    ]
                )
            )

    def _paint_flags(self, painter: QPainter, bar: QRectF) -> None:
        top = bar.bottom() + 3.0
        for flag in self._flags:
            color = FLAG_MARK_COLORS.get(severity_of((flag,)), QColor(128, 128, 128))
            left = self.x_of(flag.start_s)
            right = max(self.x_of(flag.end_s), left + 2.0)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRect(QRectF(left, top, right - left, _FLAG_STRIP_PX))
            painter.setPen(QPen(color.darker(140), 1.5))
            pole_bottom = top + 8.0
            painter.drawLine(QPointF(left, top), QPointF(left, pole_bottom))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawPolygon(
                QPolygonF(
                    [
                        QPointF(left, pole_bottom - 5.0),
                        QPointF(left + 7.0, pole_bottom - 2.5),
                        QPointF(left, pole_bottom),
                    ]
                )
            )

    def _paint_divergence(self, painter: QPainter, bar: QRectF) -> None:
        if self._divergence is None:
            return
        x_px = self.x_of(self._divergence[0])
        painter.setPen(QPen(DIVERGENCE_COLOR, 2.0, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(x_px, bar.top() - 8), QPointF(x_px, bar.bottom() + 2))
        painter.setPen(QPen(DIVERGENCE_COLOR.darker(130), 1.0))
        painter.setBrush(DIVERGENCE_COLOR)
        below = bar.bottom() + 7
        painter.drawPolygon(
            QPolygonF(
                [
                    QPointF(x_px, below - 5),
                    QPointF(x_px + 5, below),
                    QPointF(x_px, below + 5),
                    QPointF(x_px - 5, below),
                ]
            )
        )

    def _paint_handle(self, painter: QPainter, bar: QRectF, palette: QPalette) -> None:
        center = QPointF(self.x_of(self._position_s), bar.center().y())
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Dark), 1.0))
        painter.setBrush(palette.color(QPalette.ColorRole.Light))
        painter.drawEllipse(center, _HANDLE_RADIUS_PX, _HANDLE_RADIUS_PX)
