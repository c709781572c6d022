"""Small recordings built with :class:`~fsr_core.format.writer.FsrWriter` for one case.

``write_encoded`` stores a payload as given, so a container that is valid in
every structural respect can carry a hostile payload: a decompression bomb, an
image that declares 100000 x 100000 pixels, a GIF in a PNG stream.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from fsr_core.calibration import CalibrationProfile
from fsr_core.format.catalog import camera_streams, render_state_stream
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.media import encode_frame

CAMERA = "cam"
RGB = f"sensors.{CAMERA}.camera.rgb"
INTRINSICS = f"sensors.{CAMERA}.camera.intrinsics"
RENDER = "render.state"
WIDTH, HEIGHT = 8, 6


def image(
    width: int = WIDTH, height: int = HEIGHT, *, mode: str = "RGB", fmt: str = "PNG"
) -> bytes:
    """Encode a small gradient image in any Pillow format and mode."""
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    pixels[..., 0] = np.arange(width, dtype=np.uint8) * 20
    picture = Image.fromarray(pixels).convert(mode)
    buffer = io.BytesIO()
    picture.save(buffer, format=fmt)
    return buffer.getvalue()


def good_frame(codec: str) -> bytes:
    """Encode a valid ``WIDTH`` x ``HEIGHT`` frame with ``codec``."""
    pixels = np.full((HEIGHT, WIDTH, 3), 90, dtype=np.uint8)
    return encode_frame(codec, pixels)


def camera_recording(path: Path, codec: str, payloads: Sequence[bytes]) -> bytes:
    """Write one camera (``codec``, 8 x 6) whose frames are ``payloads``, as given."""
    streams = camera_streams(CAMERA, width=WIDTH, height=HEIGHT, codec=codec)
    with FsrWriter(path, streams) as writer:
        writer.write(
            INTRINSICS,
            CalibrationProfile(WIDTH, HEIGHT, 7.0, 7.0, 4.0, 3.0),
            tick=0,
            sim_time_s=0.0,
        )
        for tick, payload in enumerate(payloads):
            writer.write_encoded(
                RGB, payload, raw_length=len(payload), tick=tick, sim_time_s=tick * 0.1
            )
    return path.read_bytes()


def render_recording(path: Path, payloads: Sequence[tuple[bytes, int]]) -> bytes:
    """Write a render-state stream of ``(payload, raw_length)`` records."""
    with FsrWriter(path, [render_state_stream(RENDER)]) as writer:
        for tick, (payload, raw_length) in enumerate(payloads):
            writer.write_encoded(
                RENDER, payload, raw_length=raw_length, tick=tick, sim_time_s=tick * 0.1
            )
    return path.read_bytes()


def stream_recording(
    path: Path, spec: StreamSpec, records: Sequence[tuple[int, float, Any]]
) -> bytes:
    """Write one stream of ``(tick, sim_time_s, value)`` records."""
    with FsrWriter(path, [spec]) as writer:
        for tick, sim_time_s, value in records:
            writer.write(spec.name, value, tick=tick, sim_time_s=sim_time_s)
    return path.read_bytes()
