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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import av

from app.headless.export.atomic import atomic_output, write_failed
from app.headless.export.canvas_frame import CanvasFrame
from app.headless.export.encoder import Encoder, Palette, padded_size
from app.headless.export.frames import VIEWS, FrameSource, check_view
from app.headless.export.sink import WriteSink
from fsr_core.errors import FsrError, WriteFailedError
from fsr_core.recording import RecordingModel

__all__ = [
    "CHOICES",
    "EXPORT_FORMATS",
    "VIEWS",
    "ExportCancelled",
    "ExportResult",
    "FrameSource",
    "check_not_source",
    "check_view",
    "ensure_gui_app",
    "export_format",
    "export_video",
    "frame_count",
    "frame_times",
    "padded_size",
    "play_window",
]

#: File extension → container format.
EXPORT_FORMATS = {".mp4": "mp4", ".webm": "webm", ".gif": "gif"}

# Tolerance, in frames, for float error in a span (skelarm loses the last frame
# of a 0-3 s log whose last time stamp is 2.999999999999891).
_FRAME_EPSILON = 1e-6

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


def frame_count(duration_s: float, *, fps: float, speed: float) -> int:
    """Return ``floor(duration / speed * fps) + 1`` (tolerant of float error).

    ``duration_s`` is the play-time span exported (``end - start``).
    """
    return math.floor(max(duration_s, 0.0) / speed * fps + _FRAME_EPSILON) + 1


def frame_times(
    duration_s: float,
    *,
    fps: float,
    speed: float,
    start_s: float = 0.0,
    end_s: float | None = None,
) -> list[float]:
    """Return the play time of every exported frame of ``[start_s, end_s]``.

    ``end_s`` defaults to ``duration_s``, the end of the recording.
    """
    end = duration_s if end_s is None else end_s
    count = frame_count(end - start_s, fps=fps, speed=speed)
    return [min(start_s + k * speed / fps, end) for k in range(count)]


def play_window(
    duration_s: float, start_s: float | None, end_s: float | None
) -> tuple[float, float]:
    """Return the checked ``(start, end)`` play-time window of an export.

    Raises
    ------
    ValueError
        ``start`` is negative or after ``end``, or ``end`` is past the recording.
    """
    start = 0.0 if start_s is None else float(start_s)
    end = duration_s if end_s is None else float(end_s)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ValueError("--start and --end must be finite")
    if start < 0.0:
        raise ValueError(f"--start {start:g} is before the recording (0 s)")
    if end > duration_s + 1e-9:
        raise ValueError(
            f"--end {end:g} is past the end of the recording ({duration_s:.3f} s)"
        )
    if start > end:
        raise ValueError(f"--start {start:g} is after --end {end:g}")
    return start, min(end, duration_s)


def export_video(
    model: RecordingModel,
    output: Path,
    *,
    fps: float = 30.0,
    speed: float = 1.0,
    panel: bool = False,
    show_com: bool = False,
    size: tuple[int, int] = (800, 800),
    view: str = "scene",
    camera: str | None = None,
    start_s: float | None = None,
    end_s: float | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ExportResult:
    """Render ``model`` frame by frame and encode it to ``output``.

    ``size`` is the size of the view: ``view`` is ``"scene"``, ``"camera"``
    (``camera``, default the first) or ``"both"`` side by side (``2 * W``
    wide); the panel adds its width at that height.
    ``start_s``/``end_s`` bound the play-time window (default: the whole
    recording). ``progress(done, total)`` is called after every frame;
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
    kind = export_format(output)
    _check_rates(fps, speed, size)
    start, end = play_window(model.duration_s, start_s, end_s)
    check_not_source(output, model)
    started = time.perf_counter()
    frames = FrameSource(
        model, size=size, panel=panel, show_com=show_com, view=view, camera=camera
    )
    times = frame_times(
        model.duration_s, fps=fps, speed=speed, start_s=start, end_s=end
    )
    width, height = padded_size(frames.width, frames.height, kind)
    with atomic_output(output, overwrite=overwrite) as handle:
        _encode(
            handle,
            output,
            kind,
            frames,
            times,
            fps,
            (width, height),
            progress,
            cancelled,
        )
    return ExportResult(
        output, len(times), width, height, time.perf_counter() - started
    )


def _check_rates(fps: float, speed: float, size: tuple[int, int]) -> None:
    if not (fps > 0 and speed > 0 and min(size) > 0):
        raise ValueError("fps, speed and size must be positive")


def check_not_source(output: Path, model: RecordingModel) -> None:
    """Refuse to write over the recording being exported.

    Raises
    ------
    WriteFailedError
        ``output`` is ``model``'s own file.
    """
    if _same_file(output, model.path):
        raise WriteFailedError(
            "the output is the input recording; choose another name", path=output
        )


def _same_file(output: Path, source: Path) -> bool:
    try:
        return output.resolve() == source.resolve() or (
            output.exists() and output.samefile(source)
        )
    except OSError:
        return False


def _encode(
    handle: BinaryIO,
    output: Path,
    kind: str,
    frames: FrameSource,
    times: list[float],
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
