"""The base of the views that paint a canvas at the playback clock's position.

The scene view and every camera's frame view hold a canvas of
:mod:`app.canvas` (None without a recording), fill the space they are given
and paint on the GUI thread: the canvas at the clock's position, or the
window's background when there is none.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.window.state import PlaybackClock

__all__ = ["CanvasView", "PaintsAtTime"]


class PaintsAtTime(Protocol):
    """A canvas that paints what is recorded at a play time."""

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint play time ``play_time_s`` into ``rect``."""


CanvasT = TypeVar("CanvasT", bound=PaintsAtTime)


class CanvasView(QWidget, Generic[CanvasT]):
    """Paints its ``CanvasT`` at ``clock``'s position; at least ``minimum`` big.

    A subclass sets the canvas, is told what each paint drew
    (:meth:`_painted`) and reacts to the clock moving
    (:meth:`_on_clock_position_changed`).
    """

    def __init__(
        self, clock: PlaybackClock, parent: QWidget | None, *, minimum: QSize
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._canvas: CanvasT | None = None
        self.setMinimumSize(minimum)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        clock.position_changed.connect(self._on_clock_position_changed)

    @property
    def canvas(self) -> CanvasT | None:
        """The canvas drawn (None without a recording)."""
        return self._canvas

    def _painted(self, play_time_s: float | None) -> None:
        """Note a paint of ``play_time_s`` (None: no canvas, background only)."""

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        """Follow the clock to ``play_time_s`` (by default: paint again)."""
        del play_time_s
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        """Paint the canvas at the clock's position (Qt override)."""
        del event
        painter = QPainter(self)
        try:
            rect = QRectF(self.rect())
            if self._canvas is None:
                painter.fillRect(rect, self.palette().window())
                self._painted(None)
                return
            position_s = self._clock.position_s
            self._canvas.paint(painter, rect, position_s)
            self._painted(position_s)
        finally:
            painter.end()
