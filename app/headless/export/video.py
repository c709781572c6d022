"""Headless video export: every frame drawn by the window's canvas, encoded with PyAV.

Frame ``k`` shows play time ``min(start + k * speed / fps, end)``; there are
``floor((end - start) / speed * fps) + 1`` frames (as skelarm's ``--export``
over the whole take), so the recorded state at or before each time is what a
viewer of the window would see. Frames are drawn on the calling thread
(:mod:`app.headless.export.frames`) while an encoder thread encodes and writes them
(:mod:`app.headless.export.encoder`). The output appears only when complete
(:mod:`app.headless.export.atomic`).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import av

from app.canvas.view_model import ViewModel
from app.headless.export.atomic import atomic_output, write_failed
from app.headless.export.canvas_frame import CanvasFrame
from app.headless.export.encoder import Encoder, Palette, padded_size
from app.headless.export.frames import VIEWS, FrameSource, check_view
from app.headless.export.request import VideoRequest
from app.headless.export.sink import WriteSink
from app.headless.export.timing import (
    FrameTimes,
    frame_count,
    frame_times,
    play_window,
)
from app.headless.options import MAX_FPS, MIN_FPS
from fsr_core.budgets import EXPORT_FRAMES, MEMORY, check_budget
from fsr_core.errors import FsrError, WriteFailedError
from fsr_core.output_paths import check_output_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = [
    "CHOICES",
    "EXPORT_FORMATS",
    "VIEWS",
    "ExportCancelled",
    "ExportResult",
    "FrameSource",
    "FrameTimes",
    "VideoPlan",
    "check_drawing",
    "check_frame_budget",
    "check_frame_memory",
    "check_not_source",
    "check_view",
    "ensure_gui_app",
    "export_format",
    "export_video",
    "frame_count",
    "frame_times",
    "padded_size",
    "plan_video",
    "play_window",
    "run_request",
    "write_video",
]

#: Bytes of memory one pixel of the exported frame costs while exporting: the
#: canvas, the queued and converting codec frames, and the codec's own
#: look-ahead (measured order of magnitude, rounded up).
_VIDEO_BYTES_PER_PX = 32
_STILL_BYTES_PER_PX = 12

#: File extension → container format.
EXPORT_FORMATS = {".mp4": "mp4", ".webm": "webm", ".gif": "gif"}

_gui_app: Any = None


#: The accepted extensions, for messages: ".mp4, .webm or .gif".
CHOICES = ", ".join(list(EXPORT_FORMATS)[:-1]) + " or " + list(EXPORT_FORMATS)[-1]


class ExportCancelled(FsrError):  # noqa: N818 - the name says what happened, as the UI does
    """The export was cancelled; nothing was written."""

    def __init__(self, path: str | Path | None = None) -> None:
        super().__init__("export cancelled, nothing written", path=path)


@dataclass(frozen=True)
class ExportResult:
    """A published export: its path, frame count, frame size and wall seconds."""

    path: Path
    frames: int
    width: int
    height: int
    seconds: float


def ensure_gui_app() -> Any:
    """Return the running QGuiApplication, creating an offscreen one if needed.

    The export draws with QPainter, which needs a QGuiApplication but never a
    display: ``QT_QPA_PLATFORM=offscreen`` is set before Qt creates the app.
    """
    global _gui_app
    from PySide6.QtGui import QGuiApplication

    existing = QGuiApplication.instance()
    if existing is not None:
        return existing
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from app.canvas.qt_app import ensure_app  # a widget app, so a window can follow

    _gui_app = ensure_app(headless=True)
    return _gui_app


def export_format(path: Path) -> str:
    """Return the container format of ``path`` from its extension.

    Raises
    ------
    ValueError
        The extension is not ``.mp4``, ``.webm`` or ``.gif``.
    """
    kind = EXPORT_FORMATS.get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"{path}: cannot export to {path.suffix!r}; use {CHOICES}")
    return kind


def check_frame_budget(frames: int, output: Path) -> None:
    """Refuse an export of more frames than ``FSR_VIEWER_EXPORT_FRAMES`` allows.

    Raises
    ------
    LimitExceededError
        ``frames`` is over the budget (the message gives both numbers and the
        variable that raises it).
    """
    needed = math.inf if frames >= sys.maxsize else frames
    check_budget(EXPORT_FRAMES, needed, "this export", path=output)


def check_frame_memory(
    width: int, height: int, output: Path, *, still: bool = False
) -> None:
    """Refuse a frame size whose export would need more than the memory budget.

    Raises
    ------
    LimitExceededError
        ``width`` x ``height`` pixels need more than ``FSR_VIEWER_MEMORY_BUDGET``.
    """
    per_px = _STILL_BYTES_PER_PX if still else _VIDEO_BYTES_PER_PX
    check_budget(
        MEMORY, width * height * per_px, f"a {width}x{height} frame", path=output
    )


def export_video(
    model: RecordingModel,
    request: VideoRequest,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ExportResult:
    """Render ``model`` frame by frame and encode it as ``request`` asks.

    The one video export of the window, ``--export`` and ``batch export``.
    ``request.shown.size`` is the size of each view: its ``view`` is
    ``"scene"``, ``"camera"`` (its ``camera``, default the first) or
    ``"both"`` side by side (``2 * W`` wide); the panel adds its width at that
    height. ``start_s``/``end_s`` bound the play-time window (default: the
    whole recording). Every option is checked here, once, before a frame is
    drawn. ``progress(done, total)`` is called after every frame;
    ``cancelled()`` is asked before every frame. Needs a QGuiApplication
    (:func:`ensure_gui_app`).

    Raises
    ------
    ValueError
        Unknown extension, a non-positive ``fps``, ``speed`` or size, a
        play-time window outside the recording, or a camera view the
        recording has no camera for.
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    WriteFailedError
        ``output`` is the input recording, or writing failed.
    ExportCancelled
        ``cancelled()`` returned true; nothing is left on disk.
    FsrError
        The recording failed to read mid-export; nothing is left on disk.
    """
    plan = plan_video(model, request)
    return write_video(plan, progress=progress, cancelled=cancelled)


@dataclass(frozen=True, eq=False)
class VideoPlan:
    """A checked video export: what :func:`write_video` draws and encodes."""

    model: RecordingModel
    request: VideoRequest
    kind: str
    times: FrameTimes


def plan_video(model: RecordingModel, request: VideoRequest) -> VideoPlan:
    """Check every option of ``request`` against ``model``; draw nothing.

    Raises
    ------
    ValueError, TargetExistsError, WriteFailedError, LimitExceededError
        As :func:`export_video` says.
    """
    output, shown = request.output, request.shown
    kind = export_format(output)
    _check_rates(request.fps, shown.speed, shown.size)
    start, end = play_window(model.duration_s, request.start_s, request.end_s)
    times = frame_times(
        model.duration_s, fps=request.fps, speed=shown.speed, start_s=start, end_s=end
    )
    check_frame_budget(len(times), output)
    check_drawing(model, shown, output, overwrite=request.overwrite)
    return VideoPlan(model, request, kind, times)


def check_drawing(
    model: RecordingModel,
    shown: ViewModel,
    output: Path,
    *,
    overwrite: bool,
    still: bool = False,
) -> None:
    """Refuse what a video and a still alike cannot draw or write.

    A view the recording has no camera for, an output that is the recording
    or exists (without ``overwrite``), a frame over the memory budget.

    Raises
    ------
    ValueError, TargetExistsError, WriteFailedError, LimitExceededError
        As :func:`check_view`, :func:`check_not_source` and
        :func:`check_frame_memory` say.
    """
    check_view(model, shown.view, shown.camera)
    check_not_source(output, model, overwrite=overwrite)
    check_frame_memory(*shown.drawn_size(), output, still=still)


def write_video(
    plan: VideoPlan,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ExportResult:
    """Draw and encode a checked export (see :func:`export_video`)."""
    request, times = plan.request, plan.times
    started = time.perf_counter()
    frames = FrameSource(plan.model, request.shown)
    width, height = padded_size(frames.width, frames.height, plan.kind)
    with atomic_output(request.output, overwrite=request.overwrite) as handle:
        _encode(
            handle,
            request.output,
            plan.kind,
            frames,
            times,
            request.fps,
            (width, height),
            progress,
            cancelled,
        )
    return ExportResult(
        request.output, len(times), width, height, time.perf_counter() - started
    )


def run_request(
    request: VideoRequest,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    opener: Callable[[Path], RecordingModel] = open_recording,
) -> ExportResult:
    """Open ``request.source`` and export it (see :func:`export_video`).

    The window's export job runs this on its worker thread, with its own
    reader of the recording.

    Raises
    ------
    FsrError
        As :func:`export_video`, and when the recording cannot be read.
    ValueError
        As :func:`export_video`.
    """
    export_format(request.output)
    model = opener(request.source)
    return export_video(model, request, progress=progress, cancelled=cancelled)


def _check_rates(fps: float, speed: float, size: tuple[int, int]) -> None:
    if not (MIN_FPS <= fps <= MAX_FPS):
        raise ValueError(f"fps must be from {MIN_FPS:g} to {MAX_FPS:g}, not {fps:g}")
    if not (math.isfinite(speed) and speed > 0 and min(size) > 0):
        raise ValueError("speed and size must be positive and finite")


def check_not_source(
    output: Path, model: RecordingModel, *, overwrite: bool = True
) -> None:
    """Refuse an output that is the recording or cannot be written as a file.

    The shared check of :func:`fsr_core.output_paths.check_output_path`: the
    recording under any name (itself, a hard or symbolic link) is refused
    whatever ``overwrite`` says; so is a folder, FIFO, device (``/dev/full``),
    socket, link loop, or a missing or read-only folder. With ``overwrite``
    false an existing output is refused too.

    Raises
    ------
    WriteFailedError
        ``output`` is ``model``'s own file or cannot be written (see above).
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    """
    check_output_path(
        output, (model.path,), overwrite=overwrite, hint=" (use --overwrite)"
    )


def _encode(
    handle: BinaryIO,
    output: Path,
    kind: str,
    frames: FrameSource,
    times: FrameTimes,
    fps: float,
    size: tuple[int, int],
    progress: Callable[[int, int], None] | None,
    cancelled: Callable[[], bool] | None,
) -> None:
    """Draw on this thread while an :class:`Encoder` thread encodes and writes."""
    palette = None
    if kind == "gif":
        samples = [times[0], times[len(times) // 2], times[-1]]
        palette = Palette([frames.render(t) for t in samples])
    sink = WriteSink(handle)
    encoder = Encoder(sink, kind, size, fps, palette=palette)
    canvas = CanvasFrame(*size)
    try:
        try:
            for index, play_time_s in enumerate(times):
                _check_cancelled(cancelled, output)
                frames.paint(canvas.image, play_time_s)
                canvas.pad(frames.width, frames.height)
                encoder.put(encoder.frame(canvas))
                if progress is not None:
                    progress(index + 1, len(times))
            encoder.finish()
        except BaseException:
            encoder.abort()
            raise
        encoder.raise_error()
    except OSError as exc:
        raise _write_failed(exc, output, encoder, len(times)) from exc
    except av.FFmpegError as exc:
        if sink.error is not None:  # FFmpeg only saw its write callback fail
            raise _write_failed(sink.error, output, encoder, len(times)) from exc
        raise WriteFailedError(f"encoding failed: {exc}", path=output) from exc


def _write_failed(
    exc: OSError, output: Path, encoder: Encoder, total: int
) -> WriteFailedError:
    return write_failed(exc, output, needed_bytes=encoder.output.estimate(total))


def _check_cancelled(cancelled: Callable[[], bool] | None, output: Path) -> None:
    if cancelled is not None and cancelled():
        raise ExportCancelled(output)
