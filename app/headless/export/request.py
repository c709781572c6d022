"""A video export as a value: every option of ``--export``, and its one entry point.

:class:`VideoRequest` is what File → Export… fills in and what ``--export``
and ``--export-dir`` build from the command line. :func:`export_request` is
the export both of them run: it hands the request's options to
:func:`~app.headless.export.video.export_video`. :func:`run_request` first
opens the recording (the window's worker, with its own reader on its own
thread). :func:`output_size` says the frame size the options give, without
drawing anything, so the dialog can show it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.headless.export.video import (
    ExportResult,
    drawn_size,
    export_format,
    export_video,
    frame_count,
    padded_size,
    play_window,
)
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = ["VideoRequest", "export_request", "output_size", "run_request"]


@dataclass(frozen=True)
class VideoRequest:
    """One video export: the source, the output and the ``--export`` options."""

    source: Path
    output: Path
    fps: float = 30.0
    speed: float = 1.0
    size: tuple[int, int] = (800, 800)
    view: str = "auto"
    camera: str | None = None
    panel: bool = False
    show_com: bool = False
    environment: str = ""
    """The environment of a batched 3D scene drawn in full (others faded)."""
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
        return frame_count(end - start, fps=self.fps, speed=self.speed)


def output_size(
    size: tuple[int, int], *, view: str, panel: bool, kind: str
) -> tuple[int, int]:
    """Return the encoded frame size of ``view`` at ``size`` (panel and padding in).

    ``kind`` is the container (``"mp4"``, ``"webm"``, ``"gif"``): the first two
    need an even width and height.
    """
    return padded_size(*drawn_size(size, view=view, panel=panel), kind)


def run_request(
    request: VideoRequest,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    opener: Callable[[Path], RecordingModel] = open_recording,
) -> ExportResult:
    """Open ``request.source`` and export it as asked (see :func:`export_request`).

    Raises
    ------
    FsrError
        The recording cannot be read, the output exists (and ``overwrite`` is
        false), writing failed, or the export was cancelled
        (:class:`~app.headless.export.ExportCancelled`); nothing is left on disk then.
    ValueError
        An option the recording cannot satisfy (window, camera).
    """
    export_format(request.output)
    model = opener(request.source)
    return export_request(model, request, progress=progress, cancelled=cancelled)


def export_request(
    model: RecordingModel,
    request: VideoRequest,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ExportResult:
    """Export ``model`` (opened from ``request.source``) as ``request`` asks.

    The one export of the window and of ``--export``: ``progress(done,
    total)`` after every frame, ``cancelled()`` before every frame (see
    :func:`~app.headless.export.video.export_video`, which raises the same).
    """
    return export_video(
        model,
        request.output,
        fps=request.fps,
        speed=request.speed,
        panel=request.panel,
        show_com=request.show_com,
        environment=request.environment,
        size=request.size,
        view=request.view,
        camera=request.camera,
        start_s=request.start_s,
        end_s=request.end_s,
        overwrite=request.overwrite,
        progress=progress,
        cancelled=cancelled,
    )
