"""The cameras of the playing recording, side by side (or as tabs when many)."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QStackedLayout, QTabWidget, QWidget

from app.canvas.view_model import ViewModel
from app.window.camera.frame_view import FrameView
from app.window.state import PlaybackClock
from app.window.workers import Runner
from fsr_core.recording import RecordingModel

__all__ = ["CameraArea", "shown_cameras"]

#: More cameras than this are shown as tabs.
MAX_SIDE_BY_SIDE: Final = 2


def shown_cameras(model: RecordingModel | None, options: ViewModel) -> list[str]:
    """Return the cameras to show: those chosen that the model has, else all."""
    if model is None:
        return []
    names = [track.name for track in model.cameras]
    chosen = [name for name in options.cameras if name in names]
    return chosen or names


class CameraArea(QWidget):
    """Holds one :class:`FrameView` per shown camera."""

    def __init__(
        self,
        clock: PlaybackClock,
        runner: Runner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._runner = runner
        self._views: list[FrameView] = []
        self._model: RecordingModel | None = None
        self._options = ViewModel()
        self._names: list[str] = []
        self._stack = QStackedLayout(self)
        self._holder: QWidget | None = None

    @property
    def views(self) -> list[FrameView]:
        """The frame views, in camera order."""
        return list(self._views)

    def set_model(self, model: RecordingModel | None, options: ViewModel) -> None:
        """Show the cameras of ``model`` chosen by ``options``."""
        self._model, self._options = model, options
        self._rebuild(shown_cameras(model, options))

    def set_options(self, options: ViewModel) -> None:
        """Apply new toggles; rebuild only when the camera choice changed."""
        self._options = options
        names = shown_cameras(self._model, options)
        if names != self._names:
            self._rebuild(names)
            return
        for view in self._views:
            view.set_options(options)

    def _rebuild(self, names: list[str]) -> None:
        self._names = names
        reused = {view.camera: view for view in self._views}
        self._views = []
        for name in names:
            view = reused.pop(name, None) or FrameView(self._clock, self._runner)
            view.set_options(self._options)
            view.set_camera(self._model, name)
            self._views.append(view)
        for view in reused.values():
            view.set_camera(None, "")
            view.deleteLater()
        holder = self._arrange(self._views)  # takes the reused views first
        if self._holder is not None:
            self._stack.removeWidget(self._holder)
            self._holder.deleteLater()
        self._holder = holder
        self._stack.addWidget(holder)
        self.setVisible(bool(self._views))

    def _arrange(self, views: list[FrameView]) -> QWidget:
        if len(views) > MAX_SIDE_BY_SIDE:
            tabs = QTabWidget()
            for view in views:
                tabs.addTab(view, view.camera)
            return tabs
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        for view in views:
            splitter.addWidget(view)
        return splitter
