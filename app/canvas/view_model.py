"""What the user sees, as one immutable value: the window's and every export's.

:class:`ViewModel` says which views are drawn (the scene, a camera, both),
which cameras, which overlays (by name, from
:mod:`app.canvas.overlay_registry`), at what size, with or without the
readout panel, at what playback speed, which environment of a batched scene
stands out, and which channel plots are open. The window edits it, the
command line parses into it, and ``--export``, ``--export-frame``,
``--screenshot`` and ``batch export`` draw from it; the window's export
dialog starts from the window's. Its defaults are here and nowhere else.

No Qt is imported: the command line builds one before it knows whether a
window or a picture will be drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from app.canvas.overlay_registry import default_overlays

__all__ = [
    "DEFAULT_VIEW_SIZE",
    "DEFAULT_WINDOW_SIZE",
    "PANEL_WIDTH_PX",
    "VIEWS",
    "ViewModel",
]

#: Each exported view's size in pixels (``--size``), unless asked otherwise.
DEFAULT_VIEW_SIZE: Final = (800, 800)
#: The window's size for ``--screenshot``, unless ``--size`` says otherwise.
DEFAULT_WINDOW_SIZE: Final = (1280, 800)
#: Width of the readout panel an export puts right of its views.
PANEL_WIDTH_PX: Final = 304
#: What a frame can draw: ``auto`` is the scene, or a camera when there is
#: no scene to draw.
VIEWS: Final = ("auto", "scene", "camera", "both")


@dataclass(frozen=True)
class ViewModel:
    """What is shown of a recording, in the window and in every export."""

    overlays: frozenset[str] = field(default_factory=default_overlays)
    """Names of the overlays drawn (see :mod:`app.canvas.overlay_registry`)."""
    view: str = "auto"
    """What an exported frame draws: one of :data:`VIEWS`."""
    camera: str | None = None
    """The camera an exported camera view draws (None: the first)."""
    cameras: tuple[str, ...] = ()
    """Cameras the window shows (by name); empty means all of them."""
    size: tuple[int, int] = DEFAULT_VIEW_SIZE
    """Each exported view's size in pixels."""
    panel: bool = False
    """Whether an export puts the readout panel right of its views."""
    speed: float = 1.0
    """Play-time seconds per wall (or video) second."""
    environment: str = ""
    """The environment of a batched 3D scene drawn in full, the others faded
    (``""``, or a name the recording lacks, draws them all in full)."""
    plots: tuple[tuple[str, ...], ...] = ()
    """Channel plots: one tuple of series keys (``channel``/``channel[col]``) each."""

    def shows(self, name: str) -> bool:
        """Whether the overlay ``name`` is drawn."""
        return name in self.overlays

    def with_overlay(self, name: str, shown: bool) -> ViewModel:
        """Return this model with overlay ``name`` drawn or not."""
        overlays = self.overlays | {name} if shown else self.overlays - {name}
        return replace(self, overlays=frozenset(overlays))

    def drawn_size(self) -> tuple[int, int]:
        """Return the size of an exported frame: its views and the panel."""
        width, height = self.size
        views = 2 if self.view == "both" else 1
        return views * width + (PANEL_WIDTH_PX if self.panel else 0), height
