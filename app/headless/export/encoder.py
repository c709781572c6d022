"""The encoder thread: PyAV containers for H.264 MP4, VP9 WebM and palette GIF.

MP4 is H.264 (libx264, yuv420p), WebM is VP9 (libvpx-vp9, yuv420p); both need
an even frame size, so frames are padded by repeating their right and bottom
edge pixels (:meth:`~app.headless.export.canvas_frame.CanvasFrame.pad`). GIF goes
through FFmpeg's ``gif`` encoder on a palette fitted to a few sample frames
(:class:`Palette`), mapped by a lookup table: about 25x faster than Pillow's
default quantizer (docs/performance.md, "What this machine class can do").
"""

from __future__ import annotations

import queue
import threading
from fractions import Fraction
from typing import TYPE_CHECKING, Any, BinaryIO, Final

import av
import numpy as np
import numpy.typing as npt

from fsr_core.format.worker_queue import drain, put_watched

if TYPE_CHECKING:
    from app.headless.export.canvas_frame import CanvasFrame
    from app.headless.export.sink import WriteSink

__all__ = ["EncodedSize", "Encoder", "Palette", "RGBArray", "padded_size"]

RGBArray = npt.NDArray[np.uint8]

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


class EncodedSize:
    """The encoded frames so far (one packet each), to estimate a whole file.

    The first frame is counted apart: a GIF's is the whole picture and the
    rest only what changed, so it would weigh the estimate several times over.
    """

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0
        self.first_bytes = 0

    def add(self, packets: Any) -> None:
        """Count the packets the codec has just given out."""
        for packet in packets:
            if self.frames == 0:
                self.first_bytes = packet.size
            self.frames += 1
            self.bytes += packet.size

    def estimate(self, total_frames: int) -> int | None:
        """Return the likely size of ``total_frames`` frames (None: no frame yet)."""
        if self.frames == 0:
            return None
        if self.frames == 1:
            return self.bytes * total_frames
        rest = (self.bytes - self.first_bytes) / (self.frames - 1)
        return int(self.first_bytes + rest * (total_frames - 1))


class Encoder:
    """A worker thread that owns the PyAV container and encodes queued frames.

    :meth:`frame` turns a picture painted into a
    :class:`~app.headless.export.canvas_frame.CanvasFrame` into the codec's pixel format
    on the caller's thread; :meth:`put` hands the result over (blocking while
    ``depth`` frames wait, so memory stays bounded); :meth:`finish` flushes
    and closes the container; :meth:`abort` stops without flushing. The worker
    only runs the codec, which releases the GIL, so the caller draws and
    converts the next frame meanwhile. Converting on the worker instead was
    measured 1.5x slower (``tools/bench_export.py``): its GIL round trips
    stall behind the drawing thread, and the frame is no longer in the
    drawing core's cache. An error on the worker is raised by the next
    :meth:`put`, by :meth:`finish`, or by :meth:`raise_error`.
    """

    _STOP: Final = None

    def __init__(
        self,
        handle: BinaryIO | WriteSink,
        kind: str,
        size: tuple[int, int],
        fps: float,
        *,
        palette: Palette | None = None,
        depth: int = 4,
    ) -> None:
        self._queue: queue.Queue[av.VideoFrame | None] = queue.Queue(maxsize=depth)
        self._handle = handle
        self._kind = kind
        self._size = size
        self._fps = fps
        self._palette = palette
        self._aborted = threading.Event()
        self._error: BaseException | None = None
        self.written = 0
        self.output = EncodedSize()
        self._thread = threading.Thread(
            target=self._run, name="fsr-export-encoder", daemon=True
        )
        self._thread.start()

    def frame(self, canvas: CanvasFrame) -> av.VideoFrame:
        """Convert the picture painted into ``canvas`` (the encoder's size).

        MP4 and WebM get a new yuv420p frame (swscale on this thread only: its
        own helper threads were measured slower while the caller and the codec
        already keep both cores busy); GIF gets the palette's indices. The
        canvas is free for the next picture as soon as this returns.
        """
        if self._palette is not None:
            indices, colours = self._palette.map(canvas.pixels[..., 2::-1])
            # PyAV's stub omits the ``(indices, palette)`` pair that pal8 takes.
            return av.VideoFrame.from_ndarray(
                (indices, colours),  # type: ignore[arg-type]
                format="pal8",
            )
        return canvas.frame.reformat(format="yuv420p", threads=1)

    def put(self, frame: av.VideoFrame) -> None:
        """Queue one frame; raise the worker's error if it has failed."""
        put_watched(self._queue, frame, self.raise_error)

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
                while (frame := self._queue.get()) is not None:
                    if self._aborted.is_set():
                        continue
                    frame.pts = self.written
                    frame.time_base = stream.codec_context.time_base
                    packets = _encode(stream, frame)
                    container.mux(packets)
                    self.output.add(packets)
                    self.written += 1
                if not self._aborted.is_set():
                    packets = stream.encode(None)
                    container.mux(packets)
                    self.output.add(packets)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            self._error = exc
            self._aborted.set()
            self._drain()

    def _drain(self) -> None:
        """Empty the queue so a producer blocked in ``put`` wakes up."""
        drain(self._queue)


def _encode(stream: Any, frame: av.VideoFrame) -> Any:
    """Run the codec on one frame (the worker's only per-frame work)."""
    return stream.encode(frame)


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


class Palette:
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
    def _codes(pixels: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint16]:
        """Return the 15-bit grid cell of each ``(..., 3)`` R, G, B pixel.

        16-bit arithmetic on the channels as they lie (a reversed view of a
        B, G, R, A frame needs no copy): three times faster than widening to
        machine integers first.
        """
        red = (pixels[..., 0] >> 3).astype(np.uint16)
        green = (pixels[..., 1] >> 3).astype(np.uint16)
        blue = (pixels[..., 2] >> 3).astype(np.uint16)
        codes = (red << 10) | (green << 5) | blue
        return codes.astype(np.uint16, copy=False)

    def map(self, image: RGBArray) -> tuple[RGBArray, RGBArray]:
        """Return ``(indices, palette)`` for a ``pal8`` frame."""
        indices: RGBArray = self._lut[self._codes(image)]
        return indices, self.argb


def padded_size(width: int, height: int, kind: str) -> tuple[int, int]:
    """MP4 and WebM (yuv420p): width and height even (edge pixels repeated)."""
    if kind == "gif":
        return width, height
    return width + width % 2, height + height % 2


#: What a frame shows: the planar scene, one camera's frames, or both side by side.
