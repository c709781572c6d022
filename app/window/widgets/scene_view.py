"""The scene view: the recording's robot drawn at the clock's position.

A planar arm is drawn by :class:`SceneCanvas`, a recorded 3D scene (e.g. a
MuJoCo run) by :class:`GeometryCanvas`; :func:`scene_canvas_for` picks.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

from app.canvas import SceneCanvas, SceneOptions
from app.canvas.geometry_canvas import GeometryCanvas, scene_canvas_for
from app.window.state import PlaybackClock, ViewOptions
from app.window.widgets.canvas_view import CanvasView
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


class SceneView(CanvasView[SceneCanvas | GeometryCanvas]):
    """Paints :class:`SceneCanvas` at the clock's position (on the GUI thread)."""

    def __init__(self, clock: PlaybackClock, parent: QWidget | None = None) -> None:
        super().__init__(clock, parent, minimum=QSize(240, 200))
        self._options = ViewOptions()
        self._painted_s: float | None = None

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

    def _painted(self, play_time_s: float | None) -> None:
        if play_time_s is not None:
            self._painted_s = play_time_s
