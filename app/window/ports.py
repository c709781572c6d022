"""What the window's controllers need from the window, each as a small protocol.

File → Export…, the Replay menu, the comparison and the menus take these
instead of the main window: the window satisfies them structurally (it
passes itself, its session or its clock), and a test can pass a stand-in.
Protocols only one controller needs sit next to that controller.
"""

from __future__ import annotations

from typing import Protocol

from app.canvas.view_model import ViewModel
from fsr_core.sources import OpenOptions

__all__ = [
    "OpenChoices",
    "PlaybackPosition",
    "PlaybackSpeed",
    "StatusLine",
    "ViewChoices",
]


class StatusLine(Protocol):
    """Shows one line in the status bar, without blocking (the window)."""

    def show_message(self, text: str) -> None:
        """Show ``text`` until the next message."""


class PlaybackSpeed(Protocol):
    """How fast the recording plays (the playback clock)."""

    @property
    def speed(self) -> float:
        """Play-time seconds per wall-clock second."""


class PlaybackPosition(Protocol):
    """Where the recording plays now (the playback clock)."""

    @property
    def position_s(self) -> float:
        """Current play time, in seconds."""


class OpenChoices(Protocol):
    """How recordings open, e.g. an MCAP log's time base (the session)."""

    @property
    def open_options(self) -> OpenOptions:
        """The options every file opens with now."""


class ViewChoices(Protocol):
    """What the views show: overlays, cameras, plots (the view options model)."""

    @property
    def options(self) -> ViewModel:
        """The current options."""
