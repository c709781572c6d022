"""Camera images of MCAP messages as RGB frames.

Compressed images (``foxglove.CompressedImage``, ``sensor_msgs/CompressedImage``:
JPEG, PNG, WebP) decode with Pillow; raw images (``foxglove.RawImage``,
``sensor_msgs/Image``) are read from their bytes by encoding: colour
(``rgb8``, ``bgr8``, ``rgba8``, ``bgra8``), grey (``mono8``, ``8UC1``,
``mono16``, ``16UC1``) and depth (``32FC1``, ``16UC1`` in millimetres) drawn
through a colour scale from the frame's own nearest to farthest value. Sizes
are checked against the bytes and the pixel budget before any pixel is made.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.errors import DecodeError, LimitExceededError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.sources.toolkit.message_kinds import TopicKind

__all__ = [
    "MAX_IMAGE_PIXELS",
    "RAW_ENCODINGS",
    "check_pixels",
    "compressed_frame",
    "image_frame",
    "message_bytes",
    "raw_frame",
]

MAX_IMAGE_PIXELS: Final = 64 << 20
"""Largest image (pixels) a message may hold: 64 Mpx, a 8K camera and more."""


def message_bytes(value: object, what: str) -> bytes:
    """Return image bytes as a message holds them (bytes, a list, or base64 text)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError as exc:
            raise DecodeError(f"{what}: data is not base64") from exc
    if isinstance(value, list) and all(isinstance(item, int) for item in value[:16]):
        try:
            return bytes(value)
        except (ValueError, TypeError) as exc:
            raise DecodeError(f"{what}: data is not a list of bytes") from exc
    raise DecodeError(f"{what}: image data is {type(value).__name__}, not bytes")


def check_pixels(width: int, height: int, what: str) -> None:
    """Refuse an image ``what`` of no pixels, or of more than :data:`MAX_IMAGE_PIXELS`.

    Raises
    ------
    DecodeError
        Its width or height is not positive.
    LimitExceededError
        It has more pixels than the budget.
    """
    if width <= 0 or height <= 0:
        raise DecodeError(f"{what}: image size {width}x{height} is empty")
    if width * height > MAX_IMAGE_PIXELS:
        raise LimitExceededError(
            f"{what}: image of {width}x{height} pixels is over the "
            f"{MAX_IMAGE_PIXELS >> 20} Mpx budget"
        )


def compressed_frame(data: bytes, image_format: str, what: str) -> RGBFrame:
    """Decode a JPEG, PNG or WebP image.

    Raises
    ------
    DecodeError
        The bytes are not an image Pillow reads.
    LimitExceededError
        The image is larger than :data:`MAX_IMAGE_PIXELS`.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            check_pixels(image.width, image.height, what)
            rgb = image.convert("RGB")
            pixels = np.asarray(rgb, dtype=np.uint8)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        shown = image_format[:40] or "unnamed"
        raise DecodeError(f"{what}: {shown} image does not decode: {exc}") from exc
    except Image.DecompressionBombError as exc:
        raise LimitExceededError(f"{what}: {exc}") from exc
    return RGBFrame(pixels)


def _grey(values: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    data = values.astype(np.float64)
    low, high = float(data.min()), float(data.max())
    scaled = (data - low) / (high - low) * 255.0 if high > low else np.zeros_like(data)
    grey = np.round(scaled).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=2)


def _colour(order: tuple[int, int, int]) -> Callable[[npt.NDArray[Any]], Any]:
    def convert(rows: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
        return rows[..., list(order)].astype(np.uint8)

    return convert


def _mono8(rows: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    return np.repeat(rows[..., :1].astype(np.uint8), 3, axis=2)


def _depth(rows: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    return depth_colours(rows[..., 0].astype(np.float64))


_Layout = tuple[str, int, Callable[[npt.NDArray[Any]], npt.NDArray[np.uint8]]]

RAW_ENCODINGS: Final[dict[str, _Layout]] = {
    "rgb8": ("u1", 3, _colour((0, 1, 2))),
    "bgr8": ("u1", 3, _colour((2, 1, 0))),
    "8UC3": ("u1", 3, _colour((2, 1, 0))),
    "rgba8": ("u1", 4, _colour((0, 1, 2))),
    "bgra8": ("u1", 4, _colour((2, 1, 0))),
    "8UC4": ("u1", 4, _colour((2, 1, 0))),
    "mono8": ("u1", 1, _mono8),
    "8UC1": ("u1", 1, _mono8),
    "mono16": ("u2", 1, lambda rows: _grey(rows[..., 0])),
    "16UC1": ("u2", 1, _depth),
    "32FC1": ("f4", 1, _depth),
}
"""Raw encodings: element type, channels per pixel, conversion to RGB."""


def raw_frame(
    data: bytes,
    *,
    width: int,
    height: int,
    encoding: str,
    step: int,
    big_endian: bool,
    what: str,
) -> RGBFrame:
    """Build a frame from a raw image's bytes.

    Raises
    ------
    DecodeError
        An unknown encoding, or a size, row step or byte count that disagree.
    LimitExceededError
        The image is larger than :data:`MAX_IMAGE_PIXELS`.
    """
    layout = RAW_ENCODINGS.get(encoding)
    if layout is None:
        raise DecodeError(
            f"{what}: raw image encoding {encoding[:40]!r} is not supported "
            f"({', '.join(RAW_ENCODINGS)} are)"
        )
    kind, channels, convert = layout
    check_pixels(width, height, what)
    dtype = np.dtype(kind).newbyteorder(">" if big_endian else "<")
    row_bytes = width * channels * dtype.itemsize
    step = step or row_bytes
    if step < row_bytes:
        raise DecodeError(
            f"{what}: row step {step} is shorter than a row of {width} {encoding} "
            f"pixels ({row_bytes} bytes)"
        )
    if len(data) < step * (height - 1) + row_bytes:
        raise DecodeError(
            f"{what}: {len(data)} bytes cannot hold {width}x{height} {encoding} "
            f"pixels with a row step of {step}"
        )
    buffer = np.frombuffer(data, dtype=np.uint8, count=step * (height - 1) + row_bytes)
    rows = np.lib.stride_tricks.as_strided(
        buffer, shape=(height, row_bytes), strides=(step, 1)
    )
    pixels = np.ascontiguousarray(rows).view(dtype).reshape(height, width, channels)
    return RGBFrame(np.ascontiguousarray(convert(pixels)))


def image_frame(kind: TopicKind, tree: Any, what: str) -> RGBFrame:
    """Return the frame of a decoded image message (compressed or raw).

    Raises
    ------
    DecodeError
        The message is not an image structure, or its bytes do not decode.
    LimitExceededError
        The image is larger than :data:`MAX_IMAGE_PIXELS`.
    """
    if not isinstance(tree, dict):
        raise DecodeError(f"{what}: the image message is not a structure")
    data = message_bytes(tree.get("data", b""), what)
    if kind is TopicKind.COMPRESSED_IMAGE:
        return compressed_frame(data, str(tree.get("format", "")), what)
    fields = {name: tree.get(name) for name in ("width", "height", "step")}
    if not all(isinstance(value, int) for value in fields.values()):
        raise DecodeError(f"{what}: width, height or step is not an integer")
    encoding = tree.get("encoding")
    return raw_frame(
        data,
        width=int(fields["width"]),  # type: ignore[arg-type]
        height=int(fields["height"]),  # type: ignore[arg-type]
        encoding=str(encoding or ""),
        step=int(fields["step"]),  # type: ignore[arg-type]
        big_endian=bool(tree.get("is_bigendian", False)),
        what=what,
    )
