"""QObject models of the player (QtCore only): playback clock, playlist, view options.

Views observe these models and send intents to them; the models never know
about views, and none of them touches a widget.
"""

from __future__ import annotations

from app.window.state.playback_clock import MAX_SPEED, MIN_SPEED, PlaybackClock
from app.window.state.playlist import EntryState, PlaylistEntry, PlaylistModel
from app.window.state.view_options import ViewOptionsModel

__all__ = [
    "MAX_SPEED",
    "MIN_SPEED",
    "EntryState",
    "PlaybackClock",
    "PlaylistEntry",
    "PlaylistModel",
    "ViewOptionsModel",
]
