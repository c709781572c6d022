"""Build the recording model of an image-sequence folder: one camera per sequence.

* **Time.** ``timestamps.csv`` beside the frames (:mod:`.timestamps`), else
  the frame number over ``--fps``, else over 30 fps (and a note).
* **Cameras.** A sequence of pictures is a camera; a depth sequence a depth
  camera drawn through the colour scale over the first frame's range, its
  values shown under the cursor (metres for floating-point depth, the raw
  value for 16-bit depth). Each frame is read when shown.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import SchemaError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.recording import CameraTrack, RecordingModel, Segment, Timeline
from fsr_core.sources.image_sequence.frames import Sequence, find_sequences
from fsr_core.sources.image_sequence.images import FrameShape, frame_shape, read_pixels
from fsr_core.sources.image_sequence.timestamps import TIMESTAMPS_FILE, read_timestamps

__all__ = ["DEFAULT_FPS", "open_folder"]

DEFAULT_FPS: Final = 30.0
"""Frames per second of a folder without timestamps nor ``--fps``."""


def _picture(pixels: np.ndarray[Any, Any]) -> RGBFrame:
    if pixels.dtype == np.uint16:
        pixels = (pixels // 257).astype(np.uint8)
    elif pixels.dtype.kind == "f":
        pixels = (np.clip(np.nan_to_num(pixels), 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
    elif pixels.dtype != np.uint8:
        pixels = np.clip(pixels, 0, 255).astype(np.uint8)
    if pixels.ndim == 2:
        pixels = np.repeat(pixels[:, :, None], 3, axis=2)
    return RGBFrame(np.ascontiguousarray(pixels[:, :, :3]))


def _picture_fetch(
    sequence: Sequence, shape: FrameShape, index: int
) -> tuple[RGBFrame, Calibration | None]:
    return _picture(read_pixels(sequence.files[index], shape)), None


def _depth_values(sequence: Sequence, shape: FrameShape, index: int) -> FloatArray:
    pixels = read_pixels(sequence.files[index], shape)
    if pixels.ndim == 3:
        pixels = pixels[:, :, 0]
    values: FloatArray = pixels.astype(np.float64)
    return values


def _depth_fetch(
    sequence: Sequence,
    shape: FrameShape,
    near_far: tuple[float, float] | None,
    index: int,
) -> tuple[RGBFrame, Calibration | None]:
    values = _depth_values(sequence, shape, index)
    return RGBFrame(depth_colours(values, near_far)), None


def _range(values: FloatArray) -> tuple[float, float] | None:
    valid = values[np.isfinite(values) & (values > 0)]
    if not valid.size:
        return None
    return float(valid.min()), float(valid.max())


def _times(
    sequence: Sequence,
    stamps: dict[int, float] | list[float] | None,
    fps: float,
    folder: Path,
) -> FloatArray:
    if stamps is None:
        first = sequence.numbers[0]
        return np.array([(n - first) / fps for n in sequence.numbers], dtype=np.float64)
    if isinstance(stamps, dict):
        missing = [n for n in sequence.numbers if n not in stamps]
        if missing:
            raise SchemaError(
                f"{TIMESTAMPS_FILE} has no time for frame {missing[0]} "
                f"of {sequence.name}",
                path=folder,
            )
        found = [stamps[n] for n in sequence.numbers]
    else:
        if len(stamps) < len(sequence.numbers):
            raise SchemaError(
                f"{TIMESTAMPS_FILE} has {len(stamps)} rows for "
                f"{len(sequence.numbers)} frames of {sequence.name}",
                path=folder,
            )
        found = stamps[: len(sequence.numbers)]
    times = np.array(found, dtype=np.float64)
    if np.any(np.diff(times) <= 0):
        raise SchemaError(f"{TIMESTAMPS_FILE}: times do not increase", path=folder)
    return times


def _track(sequence: Sequence, times: FloatArray, notes: list[str]) -> CameraTrack:
    shape = frame_shape(sequence.files[0])
    if shape.is_depth(sequence.name):
        near_far = _range(_depth_values(sequence, shape, 0))
        unit = "m" if np.dtype(shape.dtype).kind == "f" else ""
        return CameraTrack(
            sequence.name,
            times,
            functools.partial(_depth_fetch, sequence, shape, near_far),
            values=functools.partial(_depth_values, sequence, shape),
            value_unit=unit,
            value_range=near_far,
        )
    return CameraTrack(
        sequence.name, times, functools.partial(_picture_fetch, sequence, shape)
    )


def open_folder(folder: Path, fps: float | None) -> RecordingModel:
    """Open the image-sequence folder ``folder`` as a recording of cameras.

    Raises
    ------
    FsrError
        The folder holds no sequence, a first frame cannot be read, or the
        timestamps file is malformed.
    """
    sequences = find_sequences(folder)
    if not sequences:
        raise SchemaError(
            "no sequence of numbered frames (rgb_0000.png, 0001.exr, ...)", path=folder
        )
    stamps = read_timestamps(folder)
    notes: list[str] = []
    rate = fps or DEFAULT_FPS
    if stamps is None and fps is None:
        notes.append(f"no {TIMESTAMPS_FILE} nor --fps: frames are {DEFAULT_FPS:g} fps")
    times = [_times(s, stamps, rate, folder) for s in sequences]
    start = min(float(found[0]) for found in times)  # the first frame is at 0
    tracks = [
        _track(s, found - start, notes)
        for s, found in zip(sequences, times, strict=True)
    ]
    end = max(float(track.times_s[-1]) for track in tracks)
    frames = max(len(s.numbers) for s in sequences)
    return RecordingModel(
        path=folder,
        source="image_sequence",
        title=folder.name,
        timeline=Timeline((Segment(0, 0.0, end, 0.0, 0, frames - 1),)),
        channels={},
        cameras=tuple(tracks),
        metadata={
            "folder": folder.name,
            "timing": TIMESTAMPS_FILE if stamps is not None else f"{rate:g} fps",
            "sequences": {
                s.name: {"frames": len(s.numbers), "first": s.files[0].name}
                for s in sequences
            },
        },
        report={
            "source": "image_sequence",
            "notes": notes,
            "sequences": [
                {
                    "name": s.name,
                    "frames": len(s.numbers),
                    "first_file": s.files[0].name,
                    "last_file": s.files[-1].name,
                }
                for s in sequences
            ],
        },
    )
