"""Camera features stored as video: one frame of a (maybe shared) file, with PyAV.

An episode's frames are a time span of a video file (the whole file in a
v2.x dataset; ``from_timestamp`` on in a v3.x one, where episodes follow one
another in the same file). Frame ``i`` is the first frame at or after
``from + timestamp[i]`` less half a frame period. Each thread keeps its open
files: a frame a little ahead of the last one decodes forward, anything else
seeks to the keyframe before it first, so playing costs one decode per frame
and a jump costs what decoding from that keyframe costs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.errors import DecodeError, FsrError, LimitExceededError
from fsr_core.format.safe_open import open_source
from fsr_core.media import DEFAULT_MAX_PIXELS, RGBFrame

__all__ = ["FORWARD_WINDOW_S", "VideoFile", "frame_at", "grey12_at", "video_file"]

FORWARD_WINDOW_S: Final = 2.0
"""How far ahead of the last frame a request decodes forward instead of seeking."""
_OPEN_PER_THREAD: Final = 4


class VideoFile:
    """One open video file: its first video stream and where decoding stands."""

    def __init__(self, path: Path) -> None:
        import av

        open_source(path).close()  # refuses FIFOs, devices and symbolic links
        self.path = path
        try:
            self._container: Any = av.open(str(path), mode="r")
            streams = list(self._container.streams.video)
        except Exception as exc:
            raise DecodeError(f"not a readable video: {exc}", path=path) from exc
        if not streams:
            self._container.close()
            raise DecodeError("the video file has no video stream", path=path)
        self._stream: Any = streams[0]
        context = self._stream.codec_context
        self.width = int(context.width or 0)
        self.height = int(context.height or 0)
        if self.width * self.height > DEFAULT_MAX_PIXELS:
            raise LimitExceededError(
                f"video of {self.width}x{self.height} pixels, more than the "
                f"{DEFAULT_MAX_PIXELS:,} a frame may have",
                path=path,
            )
        self.codec = str(context.name)
        base = self._stream.time_base
        self._time_base = float(base) if base is not None else 1e-6
        self._frames: Iterator[Any] | None = None
        self._current: tuple[float, Any] | None = None

    def close(self) -> None:
        """Close the file."""
        self._frames = None
        self._current = None
        try:
            self._container.close()
        except Exception:  # noqa: BLE001 - a broken container closes as it can
            return

    def _seek(self, time_s: float) -> None:
        offset = max(int(time_s / self._time_base), 0)
        self._container.seek(
            offset, stream=self._stream, backward=True, any_frame=False
        )
        self._frames = iter(self._container.decode(self._stream))
        self._current = None

    def _next(self) -> tuple[float, Any] | None:
        assert self._frames is not None
        for frame in self._frames:
            if frame.pts is None:
                continue
            return float(frame.pts) * self._time_base, frame
        return None

    def frame(
        self, time_s: float, half_period_s: float, pixels: str = "rgb24"
    ) -> npt.NDArray[Any]:
        """Return the first frame at or after ``time_s - half_period_s``.

        ``pixels`` is the PyAV pixel format it is converted to (``rgb24``,
        ``gray12le`` for 12-bit grey as uint16).

        Raises
        ------
        DecodeError
            The file ends before that time or does not decode.
        """
        try:
            return np.asarray(
                self._frame(time_s, half_period_s).to_ndarray(format=pixels)
            )
        except FsrError:
            raise
        except Exception as exc:
            self._frames = None
            self._current = None
            raise DecodeError(
                f"cannot decode the frame at {time_s:.3f} s: {exc}", path=self.path
            ) from exc

    def _frame(self, time_s: float, half_period_s: float) -> Any:
        earliest = time_s - half_period_s
        current = self._current
        if current is not None and earliest <= current[0] < time_s + half_period_s:
            return current[1]
        ahead = (
            current is not None
            and current[0] < earliest <= current[0] + FORWARD_WINDOW_S
        )
        if self._frames is None or not ahead:
            self._seek(earliest)
        while True:
            found = self._next()
            if found is None:
                self._frames = None
                raise DecodeError(
                    f"the video ends before {time_s:.3f} s", path=self.path
                )
            self._current = found
            if found[0] >= earliest:
                return found[1]


_LOCAL = threading.local()


def video_file(path: Path) -> VideoFile:
    """Return this thread's open :class:`VideoFile` of ``path`` (opened once)."""
    files: OrderedDict[str, VideoFile] | None = getattr(_LOCAL, "files", None)
    if files is None:
        files = OrderedDict()
        _LOCAL.files = files
    key = str(path)
    found = files.get(key)
    if found is not None:
        files.move_to_end(key)
        return found
    opened = VideoFile(path)
    files[key] = opened
    while len(files) > _OPEN_PER_THREAD:
        _, old = files.popitem(last=False)
        old.close()
    return opened


def frame_at(path: Path, time_s: float, fps: float) -> RGBFrame:
    """Return the frame of the video at ``path`` shown at ``time_s`` (file time)."""
    return RGBFrame(video_file(path).frame(time_s, 0.5 / fps))


def grey12_at(path: Path, time_s: float, fps: float) -> npt.NDArray[np.uint16]:
    """Return the 12-bit grey codes (0..4095) of the frame shown at ``time_s``."""
    codes: npt.NDArray[np.uint16] = (
        video_file(path)
        .frame(time_s, 0.5 / fps, "gray12le")
        .astype(np.uint16, copy=False)
    )
    return codes
