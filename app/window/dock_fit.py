"""The window widens when the playlist docks beside it and narrows when it leaves.

So the canvas and side panel keep their size when the playlist is shown,
hidden, floated off or docked back, except in a maximized or full-screen
window, whose size the desktop decides (the skelarm player guide).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

__all__ = ["DockWidthFitter"]


class DockWidthFitter(QObject):
    """Keeps ``window``'s central area the same width as ``dock`` comes and goes."""

    def __init__(self, window: QMainWindow, dock: QDockWidget) -> None:
        super().__init__(window)
        self._window = window
        self._dock = dock
        self._counted = False  # whether the window's width includes the dock now
        self._width_px = dock.sizeHint().width()
        dock.visibilityChanged.connect(self._on_dock_changed)
        dock.topLevelChanged.connect(self._on_dock_changed)
        dock.dockLocationChanged.connect(self._on_dock_changed)

    @property
    def counted(self) -> bool:
        """Whether the window's width currently includes room for the dock."""
        return self._counted

    def assume_counted(self, counted: bool) -> None:
        """Say whether the (restored) window width already includes the dock."""
        self._counted = counted

    def _docked(self) -> bool:
        dock = self._dock
        return not dock.isHidden() and not dock.isFloating()

    def _on_dock_changed(self, *_: object) -> None:
        # With the fitter as context the call is dropped when the window (and
        # its dock) is destroyed first: closing a window hides its docks.
        QTimer.singleShot(0, self, self.fit)

    def fit(self) -> None:
        """Grow or shrink the window by the dock's width when it docked or left."""
        docked = self._docked()
        if docked == self._counted:
            if docked:
                self._width_px = max(self._dock.width(), self._dock.minimumWidth())
            return
        self._counted = docked
        if docked and self._dock.width() > 0:
            self._width_px = self._dock.width()
        window = self._window
        if window.isMaximized() or window.isFullScreen():
            return
        separator = window.style().pixelMetric(
            window.style().PixelMetric.PM_DockWidgetSeparatorExtent, None, window
        )
        delta = self._width_px + separator
        width = window.width() + (delta if docked else -delta)
        window.resize(max(width, window.minimumSizeHint().width()), window.height())
