"""A camera's own frame times and its frames at a reduced size, source by source.

The table (:data:`CAMERA_READERS`) names, per source, how to read a camera
better than the model's generic ``fetch``: a LeRobot video camera's frame
times are its packets' times in the episode's span of the video file (read
without decoding), and its frames are decoded in one pass, several threads,
straight to small grey pictures. Any other camera's frames are fetched one by
one and shrunk; its frame times are the model's (which cannot disagree with
themselves, so it has no ``video_desync``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import DecodeError
from fsr_core.recording import CameraTrack, RecordingModel

__all__ = [
    "CAMERA_READERS",
    "CameraTiming",
    "SmallFrames",
    "camera_timing",
    "small_frames",
]

LEROBOT_TOLERANCE_S: Final = 1e-4
"""LeRobot's ``tolerance_s``: how far a frame may be from its row's time."""


@dataclass(frozen=True)
class CameraTiming:
    """When a camera's frames are, beside when the table says they are."""

    frame_times_s: FloatArray
    """The camera's own frame times, from the episode's first frame."""
    row_times_s: FloatArray
    """The times the table pairs with frames ``0, 1, ...`` (play time)."""
    tolerance_s: float
    """The format's own tolerance (LeRobot's ``tolerance_s``)."""


@dataclass(frozen=True)
class SmallFrames:
    """Frames as small grey pictures: ``pixels[i]`` shown at ``times_s[i]``."""

    times_s: FloatArray
    pixels: np.ndarray
    """``(n, h, w)`` ``uint8``."""


@dataclass(frozen=True)
class CameraReader:
    """How to read a source's cameras for the checks (``None``: not this camera)."""

    timing: Callable[[RecordingModel, CameraTrack], CameraTiming | None]
    frames: Callable[[RecordingModel, CameraTrack, int, int], SmallFrames | None]


def _lerobot_video(
    model: RecordingModel, camera: CameraTrack
) -> tuple[Path, float, float] | None:
    videos = model.report.get("videos")
    root = model.report.get("dataset")
    if not isinstance(videos, dict) or not isinstance(root, str):
        return None
    span = videos.get(camera.name)
    if not isinstance(span, dict):
        return None
    try:
        return (
            Path(root) / str(span["file"]),
            float(span["from_timestamp"]),
            float(span["to_timestamp"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _open_video(path: Path) -> Any:
    import av

    try:
        return av.open(str(path), mode="r")
    except Exception as exc:
        raise DecodeError(f"not a readable video: {exc}", path=path) from exc


def _lerobot_timing(model: RecordingModel, camera: CameraTrack) -> CameraTiming | None:
    found = _lerobot_video(model, camera)
    if found is None:
        return None
    path, start_s, end_s = found
    tolerance = LEROBOT_TOLERANCE_S
    with _open_video(path) as container:
        stream = container.streams.video[0]
        base = float(stream.time_base)
        try:
            container.seek(
                max(int(start_s / base) - 1, 0), stream=stream, backward=True
            )
            times = []
            # A packet decoded at or after the end shows a frame after it
            # (pts >= dts): stop there, not at the file's end (one video file
            # holds many episodes).
            for packet in container.demux(stream):
                if packet.dts is not None and packet.dts * base >= end_s - tolerance:
                    break
                if packet.pts is not None:
                    times.append(float(packet.pts) * base)
        except Exception as exc:
            raise DecodeError(f"cannot read the packets: {exc}", path=path) from exc
    stamps = np.sort(np.asarray(times, dtype=np.float64))
    inside = stamps[(stamps >= start_s - tolerance) & (stamps < end_s - tolerance)]
    return CameraTiming(inside - start_s, np.asarray(camera.times_s), tolerance)


_PLANAR_YUV: Final = frozenset({"yuv420p", "yuvj420p", "yuv422p", "yuv444p", "nv12"})


def _grey(frame: Any, width: int, height: int) -> np.ndarray:
    """Return a decoded frame as a small grey picture.

    A planar YUV frame's luma plane is already grey: it is read as it is and
    thinned by striding (no colour conversion, no scaler); any other frame
    goes through the scaler.
    """
    if frame.format.name in _PLANAR_YUV:
        plane = frame.planes[0]
        rows = np.frombuffer(plane, np.uint8).reshape(-1, plane.line_size)
        luma = rows[: frame.height, : frame.width]
        step = max(1, frame.width // width)
        return np.ascontiguousarray(luma[::step, ::step])
    small = frame.reformat(width=width, height=height, format="gray")
    pixels: np.ndarray = small.to_ndarray()[:height, :width]
    return pixels


def _lerobot_frames(
    model: RecordingModel, camera: CameraTrack, width: int, limit: int
) -> SmallFrames | None:
    found = _lerobot_video(model, camera)
    if found is None:
        return None
    path, start_s, end_s = found
    times: list[float] = []
    pictures: list[np.ndarray] = []
    with _open_video(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        height = max(1, round(width * stream.height / max(stream.width, 1)))
        base = float(stream.time_base)
        try:
            container.seek(
                max(int(start_s / base) - 1, 0), stream=stream, backward=True
            )
            for frame in container.decode(stream):
                at = float(frame.pts) * base if frame.pts is not None else None
                if at is None or at < start_s - LEROBOT_TOLERANCE_S:
                    continue
                if at >= end_s - LEROBOT_TOLERANCE_S or len(times) >= limit:
                    break
                pictures.append(_grey(frame, width, height))
                times.append(at - start_s)
        except Exception as exc:
            raise DecodeError(f"cannot decode the video: {exc}", path=path) from exc
    rows = np.asarray(camera.times_s)
    count = min(len(times), rows.size)
    pixels = (
        np.stack(pictures[:count]) if count else np.zeros((0, height, width), np.uint8)
    )
    return SmallFrames(rows[:count], pixels)


def _fetched_frames(
    model: RecordingModel, camera: CameraTrack, width: int, limit: int
) -> SmallFrames | None:
    """Fetch each frame and shrink it (by striding) to about ``width`` pixels."""
    if camera.values is not None:
        return None  # a depth camera: its pictures are a colour scale
    times = np.asarray(camera.times_s)[:limit]
    pictures = []
    for index in range(times.size):
        pixels = camera.fetch(index)[0].pixels
        step = max(1, pixels.shape[1] // width)
        grey = pixels[::step, ::step].mean(axis=2)
        pictures.append(grey.astype(np.uint8))
    if not pictures:
        return None
    return SmallFrames(times, np.stack(pictures))


_GENERIC: Final = CameraReader(lambda model, camera: None, _fetched_frames)

CAMERA_READERS: Final[dict[str, CameraReader]] = {
    "lerobot": CameraReader(_lerobot_timing, _lerobot_frames),
}
"""Readers by the model's source name; other sources use the generic one."""


def camera_timing(model: RecordingModel, camera: CameraTrack) -> CameraTiming | None:
    """Return the camera's own frame times beside the table's (``None``: no own)."""
    return CAMERA_READERS.get(model.source, _GENERIC).timing(model, camera)


def small_frames(
    model: RecordingModel, camera: CameraTrack, width: int, limit: int
) -> SmallFrames | None:
    """Return up to ``limit`` of the camera's frames, grey, about ``width`` wide."""
    reader = CAMERA_READERS.get(model.source, _GENERIC)
    found = reader.frames(model, camera, width, limit)
    if found is None and reader is not _GENERIC:
        found = _GENERIC.frames(model, camera, width, limit)
    return found
