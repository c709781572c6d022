"""An export as a value: what ``--export``, ``--export-frame`` and File → Export… ask.

:class:`VideoRequest` is what File → Export… fills in and what ``--export``,
``--export-dir`` and ``batch export`` build from the command line;
:class:`StillRequest` is one ``--export-frame``. Both say what is drawn with
the one :class:`~app.canvas.view_model.ViewModel` the window draws from.
:func:`output_size` says the encoded frame size a view model gives, without
drawing anything, so the dialog can show it. The exports themselves are
:func:`~app.headless.export.video.export_video` and
:func:`~app.headless.export.still.export_frame`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.canvas.view_model import ViewModel
from app.headless.export.encoder import padded_size
from app.headless.export.timing import frame_count, play_window

__all__ = ["StillRequest", "VideoRequest", "output_size"]


@dataclass(frozen=True)
class VideoRequest:
    """One video export: the source, the output, what is drawn and when."""

    source: Path
    output: Path
    shown: ViewModel = field(default_factory=ViewModel)
    """What each frame draws (views, overlays, size, panel) and the speed."""
    fps: float = 30.0
    start_s: float | None = None
    end_s: float | None = None
    overwrite: bool = False

    def frames(self, duration_s: float) -> int:
        """Return how many frames this request gives for a recording this long.

        Raises
        ------
        ValueError
            The play-time window is outside the recording.
        """
        start, end = play_window(duration_s, self.start_s, self.end_s)
        return frame_count(end - start, fps=self.fps, speed=self.shown.speed)


@dataclass(frozen=True)
class StillRequest:
    """One still (PNG): the source, the output, the play time, what is drawn."""

    source: Path
    output: Path
    play_time_s: float
    shown: ViewModel = field(default_factory=ViewModel)
    overwrite: bool = False


def output_size(shown: ViewModel, kind: str) -> tuple[int, int]:
    """Return the encoded frame size ``shown`` gives (panel and padding in).

    ``kind`` is the container (``"mp4"``, ``"webm"``, ``"gif"``): the first two
    need an even width and height.
    """
    return padded_size(*shown.drawn_size(), kind)
