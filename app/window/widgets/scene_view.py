"""The scene view: the recording's robot drawn at the clock's position.

A planar arm is drawn by :class:`SceneCanvas`, a recorded 3D scene (e.g. a
MuJoCo run) by :class:`GeometryCanvas`; :func:`scene_canvas_for` picks.

A 3D scene can be turned with the mouse as in any 3D tool: left-drag orbits
around the view's centre, right-, middle- or shift-left-drag pans, the wheel
zooms toward the centre, a double-click goes back to the fitted view. The
view the user turned to belongs to this widget, not to the canvas: it stays
while the same recording is drawn again (new options make a new canvas) and
goes back to the fitted view with another recording. The export and the
screenshot draw the canvas alone, so they keep the fitted view.

While the picture changes (a seek, each frame played, an orbit), a scene of
big meshes (a robot of 100,000 triangles) is drawn from a thinned copy, the
whole meshes once it stood still for :data:`WHOLE_AFTER_MS`; a screenshot
waits for them, and the export draws them whole.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Final

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QWidget

from app.canvas.geometry_canvas import GeometryCanvas, SceneView3d, scene_canvas_for
from app.canvas.scene_canvas import SceneCanvas
from app.canvas.view_model import ViewModel
from app.window.state import PlaybackClock
from app.window.widgets.canvas_view import CanvasView
from fsr_core.recording import RecordingModel

__all__ = ["ORBIT_HINT", "SceneView"]

#: The tooltip of a 3D scene.
ORBIT_HINT: Final = (
    "Drag to orbit, right-drag or Shift+drag to pan, "
    "wheel to zoom, double-click to reset the view"
)
#: Degrees the view turns per pixel dragged.
ORBIT_DEG_PER_PX: Final = 0.4
#: How much nearer one wheel notch (120 eighths of a degree) brings the eye.
ZOOM_PER_NOTCH: Final = 1.15
#: The eye stays within this factor of the fitted distance, nearer or farther.
ZOOM_LIMIT: Final = 25.0


#: How long the picture must stand still before the whole meshes replace a
#: draft (milliseconds).
WHOLE_AFTER_MS: Final = 250


class _Drag(Enum):
    ORBIT = "orbit"
    PAN = "pan"


class SceneView(CanvasView[SceneCanvas | GeometryCanvas]):
    """Paints :class:`SceneCanvas` at the clock's position (on the GUI thread).

    A :class:`GeometryCanvas` is painted through :attr:`view_3d`, which the
    mouse turns; the planar arm ignores the mouse.
    """

    def __init__(self, clock: PlaybackClock, parent: QWidget | None = None) -> None:
        super().__init__(clock, parent, minimum=QSize(240, 200))
        self._options = ViewModel()
        self._painted_s: float | None = None
        self._view_3d: SceneView3d | None = None
        """The view the user turned to (None: the canvas's fitted one)."""
        self._drag: tuple[_Drag, QPointF] | None = None
        self._whole = QTimer(self)
        self._whole.setSingleShot(True)
        self._whole.setInterval(WHOLE_AFTER_MS)
        self._whole.timeout.connect(self._paint_whole)

    @property
    def painted_s(self) -> float | None:
        """Play time of the last paint (None before the first)."""
        return self._painted_s

    @property
    def view_3d(self) -> SceneView3d | None:
        """The 3D view painted (None without a 3D scene)."""
        canvas = self._canvas
        return canvas.view if isinstance(canvas, GeometryCanvas) else None

    def set_model(self, model: RecordingModel | None) -> None:
        """Draw this recording (another one starts from its fitted view)."""
        if self._canvas is None or model is not self._canvas.model:
            self._view_3d = None
            self._drag = None
        self._show(None if model is None else scene_canvas_for(model, self._options))

    def set_options(self, options: ViewModel) -> None:
        """Draw with these toggles (the 3D view stays as the user turned it)."""
        self._options = options
        if self._canvas is not None:
            self._show(scene_canvas_for(self._canvas.model, options))
        else:
            self.update()

    def set_view_3d(self, view: SceneView3d | None) -> None:
        """Paint a 3D scene through ``view`` (None: its fitted view)."""
        canvas = self._canvas
        if not isinstance(canvas, GeometryCanvas):
            return
        self._view_3d = view
        canvas.view = canvas.fitted_view if view is None else view
        self._draft()
        self.update()

    def _draft(self) -> None:
        """Let the picture, which is changing, be drawn from thinned meshes.

        The whole meshes follow once it stood still for
        :data:`WHOLE_AFTER_MS` (a seek, each frame played, an orbit step).
        """
        canvas = self._canvas
        if isinstance(canvas, GeometryCanvas):
            canvas.draft = True
            self._whole.start()

    def _paint_whole(self) -> None:
        canvas = self._canvas
        if isinstance(canvas, GeometryCanvas) and canvas.draft:
            canvas.draft = False
            self.update()

    def draw_whole(self) -> None:
        """Draw the whole meshes from the next paint on, not a draft (a screenshot)."""
        self._whole.stop()
        self._paint_whole()

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        del play_time_s
        self._draft()
        self.update()

    def reset_view(self) -> None:
        """Go back to the view fitted to the recording."""
        self.set_view_3d(None)

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(560, 480)

    def _show(self, canvas: SceneCanvas | GeometryCanvas | None) -> None:
        self._canvas = canvas
        if isinstance(canvas, GeometryCanvas):
            if self._view_3d is not None:
                canvas.view = self._view_3d
            self.setToolTip(ORBIT_HINT)
        else:
            self.setToolTip("")
        self.update()

    def _painted(self, play_time_s: float | None) -> None:
        if play_time_s is not None:
            self._painted_s = play_time_s

    # -- mouse ------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Start orbiting or panning a 3D scene (Qt override)."""
        drag = _drag_of(event)
        if self.view_3d is None or drag is None:
            super().mousePressEvent(event)
            return
        self._drag = (drag, event.position())
        self.setCursor(
            Qt.CursorShape.ClosedHandCursor
            if drag is _Drag.PAN
            else Qt.CursorShape.SizeAllCursor
        )
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Orbit or pan by the distance dragged (Qt override)."""
        view, drag = self.view_3d, self._drag
        if view is None or drag is None:
            super().mouseMoveEvent(event)
            return
        mode, last = drag
        position = event.position()
        dx, dy = position.x() - last.x(), position.y() - last.y()
        self._drag = (mode, position)
        if mode is _Drag.ORBIT:
            # The scene turns with the hand: dragging right brings its near
            # side right, dragging down shows more of its top.
            moved = view.orbited(-ORBIT_DEG_PER_PX * dx, ORBIT_DEG_PER_PX * dy)
        else:
            # What is at the centre's depth follows the hand.
            scale = view.metres_per_px(QRectF(self.rect()))
            moved = view.panned(-scale * dx, scale * dy)
        self.set_view_3d(moved)
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Stop orbiting or panning (Qt override)."""
        if self._drag is None:
            super().mouseReleaseEvent(event)
            return
        self._drag = None
        self.unsetCursor()
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Go back to the fitted view on a left double-click (Qt override)."""
        if self.view_3d is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseDoubleClickEvent(event)
            return
        self.reset_view()
        event.accept()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        """Zoom toward the centre: away from you, nearer (Qt override)."""
        view, canvas = self.view_3d, self._canvas
        notches = event.angleDelta().y() / 120.0
        if view is None or not isinstance(canvas, GeometryCanvas) or not notches:
            super().wheelEvent(event)
            return
        fitted = canvas.fitted_view.distance_m
        nearest, farthest = fitted / ZOOM_LIMIT, fitted * ZOOM_LIMIT
        wanted = view.distance_m / ZOOM_PER_NOTCH**notches
        distance = min(max(wanted, nearest), farthest)
        if not math.isclose(distance, view.distance_m):
            self.set_view_3d(view.zoomed(view.distance_m / distance))
        event.accept()


def _drag_of(event: QMouseEvent) -> _Drag | None:
    """Return what pressing ``event``'s button starts: orbit, pan, or nothing."""
    button = event.button()
    if button == Qt.MouseButton.LeftButton:
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        return _Drag.PAN if shift else _Drag.ORBIT
    if button in (Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton):
        return _Drag.PAN
    return None
