"""Headless video export: every frame drawn by the window's canvas, encoded with PyAV.

Frame ``k`` shows play time ``min(start + k * speed / fps, end)``; there are
``floor((end - start) / speed * fps) + 1`` frames (as skelarm's ``--export``
over the whole take), so the recorded state at or before each time is what a
viewer of the window would see. MP4 is H.264 (libx264, yuv420p), WebM is VP9
(libvpx-vp9, yuv420p); GIF uses FFmpeg's ``gif`` encoder on the fixed
``rgb8`` palette, which is about 25x faster than Pillow's default quantizer
(PERFORMANCE.md section 2). The output appears only when complete (atomic.py).
"""

from __future__ import annotations

import math
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO, Final

import av
import numpy as np
import numpy.typing as npt

from app.export.atomic import atomic_output, write_failed
from fsr_core.errors import FsrError, WriteFailedError
from fsr_core.recording import RecordingModel

__all__ = [
    "CHOICES",
    "EXPORT_FORMATS",
    "VIEWS",
    "ExportCancelled",
    "ExportResult",
    "check_not_source",
    "check_view",
    "ensure_gui_app",
    "export_format",
    "export_video",
    "frame_count",
    "frame_times",
    "play_window",
]

#: File extension → container format.
EXPORT_FORMATS = {".mp4": "mp4", ".webm": "webm", ".gif": "gif"}

# libx264 settings: "veryfast" is the measured choice (see the export report).
_X264_OPTIONS = {"crf": "20", "preset": "veryfast"}
# libvpx-vp9 in constant-quality mode at its realtime speed: its default
# ("good", cpu-used 1) is about 20x slower for flat synthetic pictures.
_VP9_OPTIONS = {
    "crf": "32",
    "b": "0",
    "deadline": "realtime",
    "cpu-used": "8",
    "row-mt": "1",
}
# Tolerance, in frames, for float error in a span (skelarm loses the last frame
# of a 0-3 s log whose last time stamp is 2.999999999999891).
_FRAME_EPSILON = 1e-6

_gui_app: Any = None

RGBArray = npt.NDArray[np.uint8]

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
    from app.qt_app import ensure_app  # a widget app, so a window can follow

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
    width, height = _padded(frames.width, frames.height, kind)
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


def _padded(width: int, height: int, kind: str) -> tuple[int, int]:
    """MP4 and WebM (yuv420p): width and height even (edge pixels repeated)."""
    if kind == "gif":
        return width, height
    return width + width % 2, height + height % 2


#: What a frame shows: the planar scene, one camera's frames, or both side by side.
VIEWS = ("scene", "camera", "both")


def check_view(model: RecordingModel, view: str, camera: str | None) -> str | None:
    """Return the camera a ``view`` draws (``None`` for the scene alone).

    ``camera`` defaults to the recording's first camera.

    Raises
    ------
    ValueError
        An unknown view, a camera view of a recording without cameras, or an
        unknown camera name (the message lists the known ones).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; use {', '.join(VIEWS)}")
    if view == "scene":
        return None
    names = [track.name for track in model.cameras]
    if not names:
        raise ValueError(f"{model.path}: has no cameras (use --view scene)")
    if camera is None:
        return names[0]
    if camera not in names:
        known = ", ".join(names)
        raise ValueError(f"{model.path}: no camera {camera!r}; known cameras: {known}")
    return camera


class FrameSource:
    """The view(s) (and optional side panel) drawn as RGB arrays.

    ``view`` ``"scene"`` or ``"camera"`` draws one canvas at ``size``;
    ``"both"`` puts the scene and the camera side by side, each ``size`` (so
    ``2 * W`` wide); the panel adds its width on the right.

    Every part paints with one QPainter into the same reused
    ``ARGB32_Premultiplied`` image (the format the canvases' own ``render``
    draws into, so the pixels are theirs exactly), which is then copied once
    into an ``(h, w, 3)`` RGB array.
    """

    def __init__(
        self,
        model: RecordingModel,
        *,
        size: tuple[int, int],
        panel: bool,
        show_com: bool,
        view: str = "scene",
        camera: str | None = None,
    ) -> None:
        from PySide6.QtCore import QRectF
        from PySide6.QtGui import QImage

        from app.canvas.camera_canvas import CameraCanvas, CameraOptions
        from app.canvas.panel import ReadoutPanel
        from app.canvas.scene_canvas import SceneCanvas, SceneOptions

        name = check_view(model, view, camera)
        width, height = size
        views: list[Any] = []
        if view in ("scene", "both"):
            views.append(SceneCanvas(model, SceneOptions(show_com=show_com)))
        if name is not None:
            views.append(CameraCanvas(model, name, CameraOptions()))
        parts: list[tuple[Any, Any]] = [
            (canvas, QRectF(index * width, 0, width, height))
            for index, canvas in enumerate(views)
        ]
        x = len(views) * width
        if panel:
            parts.append(
                (ReadoutPanel(model), QRectF(x, 0, ReadoutPanel.WIDTH_PX, height))
            )
            x += ReadoutPanel.WIDTH_PX
        self._parts = parts
        self.width = x
        self.height = height
        self._image = QImage(
            self.width, self.height, QImage.Format.Format_ARGB32_Premultiplied
        )

    def render(self, play_time_s: float) -> RGBArray:
        """Return the frame at ``play_time_s`` as a new ``(h, w, 3)`` array."""
        from PySide6.QtGui import QPainter

        image = self._image
        painter = QPainter(image)
        try:
            for part, rect in self._parts:
                part.paint(painter, rect, play_time_s)
        finally:
            painter.end()
        width, height = self.width, self.height
        stride = image.bytesPerLine()
        bgra = np.frombuffer(
            image.constBits(), dtype=np.uint8, count=stride * height
        ).reshape(height, stride // 4, 4)[:, :width]
        # Premultiplied ARGB32 is B, G, R, A in memory (little-endian); every
        # pixel is opaque, so the colour bytes are the RGB values.
        rgb: RGBArray = np.empty((height, width, 3), dtype=np.uint8)
        rgb[..., 0] = bgra[..., 2]
        rgb[..., 1] = bgra[..., 1]
        rgb[..., 2] = bgra[..., 0]
        return rgb


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
        palette = _Palette([_pad(frames.render(t), size) for t in samples])
    encoder = Encoder(handle, kind, size, fps, palette=palette)
    try:
        try:
            for index, play_time_s in enumerate(times):
                _check_cancelled(cancelled, output)
                encoder.put(_pad(frames.render(play_time_s), size))
                if progress is not None:
                    progress(index + 1, len(times))
            encoder.finish()
        except BaseException:
            encoder.abort()
            raise
        encoder.raise_error()
    except OSError as exc:
        raise write_failed(
            exc, output, needed_bytes=_estimate(handle, encoder.written, len(times))
        ) from exc
    except av.FFmpegError as exc:
        raise WriteFailedError(f"encoding failed: {exc}", path=output) from exc


def _check_cancelled(cancelled: Callable[[], bool] | None, output: Path) -> None:
    if cancelled is not None and cancelled():
        raise ExportCancelled(output)


class Encoder:
    """A worker thread that owns the PyAV container and encodes queued frames.

    :meth:`put` hands over an RGB frame (blocking while ``depth`` frames wait,
    so memory stays bounded); :meth:`finish` flushes and closes the container;
    :meth:`abort` stops without flushing. PyAV releases the GIL while it
    converts and encodes, so the caller draws the next frame meanwhile. An error
    on the worker is raised by the next :meth:`put`, by :meth:`finish`, or by
    :meth:`raise_error`.
    """

    _STOP: Final = None

    def __init__(
        self,
        handle: BinaryIO,
        kind: str,
        size: tuple[int, int],
        fps: float,
        *,
        palette: _Palette | None = None,
        depth: int = 4,
    ) -> None:
        self._queue: queue.Queue[RGBArray | None] = queue.Queue(maxsize=depth)
        self._handle = handle
        self._kind = kind
        self._size = size
        self._fps = fps
        self._palette = palette
        self._aborted = threading.Event()
        self._error: BaseException | None = None
        self.written = 0
        self._thread = threading.Thread(
            target=self._run, name="fsr-export-encoder", daemon=True
        )
        self._thread.start()

    def put(self, image: RGBArray) -> None:
        """Queue one frame; raise the worker's error if it has failed."""
        while True:
            self.raise_error()
            try:
                self._queue.put(image, timeout=0.1)
            except queue.Full:
                continue
            return

    def finish(self) -> None:
        """Flush the encoder, close the container and wait for the worker."""
        self._send_stop()
        self._thread.join()
        self.raise_error()

    def abort(self) -> None:
        """Stop the worker without flushing and wait for it (idempotent)."""
        self._aborted.set()
        self._send_stop()
        self._thread.join()

    def raise_error(self) -> None:
        """Raise the worker's exception, if any (once)."""
        error, self._error = self._error, None
        if error is not None:
            self._aborted.set()
            raise error

    def _send_stop(self) -> None:
        while self._thread.is_alive():
            try:
                self._queue.put(self._STOP, timeout=0.1)
            except queue.Full:
                continue
            return

    def _run(self) -> None:
        try:
            with av.open(self._handle, mode="w", format=self._kind) as container:
                stream = _add_stream(container, self._kind, self._size, self._fps)
                while (image := self._queue.get()) is not None:
                    if self._aborted.is_set():
                        continue
                    frame = _video_frame(image, self._palette)
                    frame.pts = self.written
                    frame.time_base = stream.codec_context.time_base
                    container.mux(stream.encode(frame))
                    self.written += 1
                if not self._aborted.is_set():
                    container.mux(stream.encode(None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            self._error = exc
            self._aborted.set()
            self._drain()

    def _drain(self) -> None:
        """Empty the queue so a producer blocked in ``put`` wakes up."""
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            return


def _video_frame(image: RGBArray, palette: _Palette | None) -> av.VideoFrame:
    if palette is None:
        return av.VideoFrame.from_ndarray(image, format="rgb24")
    # PyAV's stub omits the ``(indices, palette)`` pair that pal8 takes.
    return av.VideoFrame.from_ndarray(palette.map(image), format="pal8")  # type: ignore[arg-type]


def _estimate(handle: BinaryIO, written: int, total: int) -> int | None:
    """Estimate the finished file's size from what was written so far."""
    try:
        so_far = handle.seek(0, os.SEEK_END)
    except (OSError, ValueError):
        return None
    return None if written == 0 else so_far * total // written


def _add_stream(container: Any, kind: str, size: tuple[int, int], fps: float) -> Any:
    rate = Fraction(fps).limit_denominator(1001)
    if kind == "mp4":
        stream = container.add_stream("libx264", rate=rate, options=_X264_OPTIONS)
        stream.pix_fmt = "yuv420p"
        stream.codec_context.thread_count = 1
    elif kind == "webm":
        stream = container.add_stream("libvpx-vp9", rate=rate, options=_VP9_OPTIONS)
        stream.pix_fmt = "yuv420p"
    else:
        stream = container.add_stream("gif", rate=rate)
        stream.pix_fmt = "pal8"
    stream.width, stream.height = size
    stream.codec_context.time_base = 1 / rate
    return stream


def _pad(image: RGBArray, size: tuple[int, int]) -> RGBArray:
    """Repeat the right and bottom edge pixels up to ``size`` (as skelarm does)."""
    width, height = size
    extra_x = width - image.shape[1]
    extra_y = height - image.shape[0]
    if extra_x == 0 and extra_y == 0:
        return np.ascontiguousarray(image)
    padded: RGBArray = np.pad(image, ((0, extra_y), (0, extra_x), (0, 0)), mode="edge")
    return padded


class _Palette:
    """A GIF palette fitted to a few sample frames, and a fast lookup into it.

    Colours are bucketed on a 5-bit-per-channel grid. The 256 most frequent
    buckets become the palette (each the mean of its pixels, so the flat
    colours of the scene are exact); every grid cell maps to its nearest entry.
    Unlike FFmpeg's fixed ``rgb8`` palette this does not dither, so the flat
    background stays flat and the GIF stays small.
    """

    def __init__(self, samples: list[RGBArray]) -> None:
        pixels = np.concatenate([s.reshape(-1, 3) for s in samples])
        codes = self._codes(pixels)
        counts = np.bincount(codes, minlength=1 << 15)
        top = np.argsort(counts, kind="stable")[::-1][:256]
        top = top[counts[top] > 0]
        sums = np.stack(
            [
                np.bincount(codes, weights=pixels[:, c], minlength=1 << 15)
                for c in range(3)
            ],
            axis=1,
        )
        colours = np.rint(sums[top] / counts[top, None])
        grid = np.arange(1 << 15)
        centres = np.stack([grid >> 10, (grid >> 5) & 31, grid & 31], axis=1) * 8 + 4
        lut = np.empty(1 << 15, dtype=np.uint8)
        for start in range(0, 1 << 15, 4096):
            block = centres[start : start + 4096, None, :] - colours[None, :, :]
            lut[start : start + 4096] = np.argmin((block**2).sum(axis=2), axis=1)
        lut[top] = np.arange(len(top), dtype=np.uint8)
        self._lut = lut
        self.argb = np.zeros((256, 4), dtype=np.uint8)
        self.argb[:, 0] = 255
        self.argb[: len(top), 1:] = colours.astype(np.uint8)

    @staticmethod
    def _codes(pixels: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
        wide = pixels.astype(np.intp) >> 3
        codes: npt.NDArray[np.intp] = (
            (wide[..., 0] << 10) | (wide[..., 1] << 5) | wide[..., 2]
        )
        return codes

    def map(self, image: RGBArray) -> tuple[RGBArray, RGBArray]:
        """Return ``(indices, palette)`` for a ``pal8`` frame."""
        indices: RGBArray = self._lut[self._codes(image)]
        return indices, self.argb
