"""The window's view model, carried from file to file: overlays, cameras, plots."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.canvas.view_model import ViewModel

__all__ = ["ViewOptionsModel"]


class ViewOptionsModel(QObject):
    """Holds the window's current :class:`ViewModel` and says when it changes."""

    changed = Signal(object)

    def __init__(
        self, options: ViewModel | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._options = ViewModel() if options is None else options

    @property
    def options(self) -> ViewModel:
        """The current view model."""
        return self._options

    def update(self, **changes: Any) -> None:
        """Change some fields (keyword names of :class:`ViewModel`)."""
        self.set(replace(self._options, **changes))

    def set_overlay(self, name: str, shown: bool) -> None:
        """Draw overlay ``name`` or not."""
        self.set(self._options.with_overlay(name, shown))

    def set(self, options: ViewModel) -> None:
        """Replace the whole view model (says so only when it changed)."""
        if options == self._options:
            return
        self._options = options
        self.changed.emit(options)
