"""What the views show, carried from file to file: overlay toggles, camera, plots."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

__all__ = ["ViewOptions", "ViewOptionsModel"]


@dataclass(frozen=True)
class ViewOptions:
    """Toggles and choices that stay when the next file plays."""

    show_com: bool = False
    show_force: bool = True
    show_targets: bool = True
    show_reference: bool = True
    show_calibration: bool = True
    #: Cameras shown (by name); empty means all of them.
    cameras: tuple[str, ...] = ()
    #: Channel plots: one tuple of series keys ("channel" or "channel[col]") per plot.
    plots: tuple[tuple[str, ...], ...] = ()
    #: The environment of a batched 3D scene drawn in full, the others faded
    #: ("" draws them all in full; so does a name the recording lacks).
    environment: str = ""


class ViewOptionsModel(QObject):
    """Holds the current :class:`ViewOptions` and says when they change."""

    changed = Signal(object)

    def __init__(
        self, options: ViewOptions = ViewOptions(), parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._options = options

    @property
    def options(self) -> ViewOptions:
        """The current options."""
        return self._options

    def update(self, **changes: Any) -> None:
        """Change some options (keyword names of :class:`ViewOptions`)."""
        options = replace(self._options, **changes)
        if options == self._options:
            return
        self._options = options
        self.changed.emit(options)
