"""The scene view: the recording's robot drawn at the clock's position.

A planar arm is drawn by :class:`SceneCanvas`, a recorded 3D scene (e.g. a
MuJoCo run) by :class:`GeometryCanvas`; :func:`scene_canvas_for` picks.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.canvas import SceneCanvas, SceneOptions
from app.canvas.geometry_canvas import GeometryCanvas, scene_canvas_for
from app.window.state import PlaybackClock, ViewOptions
from fsr_core.recording import RecordingModel

__all__ = ["SceneView", "scene_options"]


def scene_options(options: ViewOptions) -> SceneOptions:
    """Return what the scene canvas draws for the window's view options."""
    return SceneOptions(
        show_com=options.show_com,
        show_force=options.show_force,
        show_targets=options.show_targets,
        show_reference=options.show_reference,
    )


class SceneView(QWidget):
    """Paints :class:`SceneCanvas` at the clock's position (on the GUI thread)."""

    def __init__(self, clock: PlaybackClock, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._canvas: SceneCanvas | GeometryCanvas | None = None
        self._options = ViewOptions()
        self._painted_s: float | None = None
        self.setMinimumSize(240, 200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        clock.position_changed.connect(self._on_clock_position_changed)

    @property
    def canvas(self) -> SceneCanvas | GeometryCanvas | None:
        """The canvas drawn (None without a recording)."""
        return self._canvas

    @property
    def painted_s(self) -> float | None:
        """Play time of the last paint (None before the first)."""
        return self._painted_s

    def set_model(self, model: RecordingModel | None) -> None:
        """Draw this recording."""
        self._canvas = (
            None
            if model is None
            else scene_canvas_for(model, scene_options(self._options))
        )
        self.update()

    def set_options(self, options: ViewOptions) -> None:
        """Draw with these toggles."""
        self._options = options
        if self._canvas is not None:
            self._canvas = scene_canvas_for(self._canvas.model, scene_options(options))
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(560, 480)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        """Paint the scene at the clock's position (Qt override)."""
        del event
        painter = QPainter(self)
        try:
            rect = QRectF(self.rect())
            if self._canvas is None:
                painter.fillRect(rect, self.palette().window())
                return
            position_s = self._clock.position_s
            self._canvas.paint(painter, rect, position_s)
            self._painted_s = position_s
        finally:
            painter.end()

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        del play_time_s
        self.update()
