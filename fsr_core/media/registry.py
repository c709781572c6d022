"""The image codec registry, and encoding and decoding frames by codec name."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fsr_core.errors import DecodeError, FsrError, SchemaError
from fsr_core.media._checks import (
    byte_view,
    check_found_size,
    check_positive_int,
    detail,
)
from fsr_core.media.codecs import (
    DEFAULT_JPEG_QUALITY,
    DEFAULT_PNG_LEVEL,
    ImageCodec,
    JpegCodec,
    PngCodec,
    Rgb24Codec,
)
from fsr_core.media.frame import RGBFrame

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "codec_names",
    "decode_frame",
    "encode_frame",
    "get_codec",
    "register_codec",
]

DEFAULT_MAX_PIXELS = 2**26
"""Default cap on decoded image pixels (about 67 Mpx, below Pillow's bomb limit)."""

_REGISTRY: dict[str, ImageCodec] = {}


def register_codec(codec: ImageCodec, *, replace: bool = False) -> None:
    """Register ``codec`` under ``codec.name``.

    Parameters
    ----------
    codec
        The codec. Register at import time; the registry is a plain dict.
    replace
        Allow replacing a codec already registered under the same name.

    Raises
    ------
    ValueError
        If the name is empty or already taken and ``replace`` is false.
    """
    name: object = codec.name
    if not isinstance(name, str) or not name:
        raise ValueError(f"codec name must be a non-empty str, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"an image codec named {name!r} is already registered")
    _REGISTRY[name] = codec


def get_codec(name: str) -> ImageCodec:
    """Return the codec registered under ``name``.

    Raises
    ------
    SchemaError
        If no codec has that name; the message lists the known ones.
    """
    if not isinstance(name, str):
        raise TypeError(f"codec name must be a str, got {type(name).__name__}")
    codec = _REGISTRY.get(name)
    if codec is None:
        shown = name if len(name) <= 40 else name[:37] + "..."
        known = ", ".join(codec_names())
        raise SchemaError(f"unknown image codec {shown!r}; known codecs: {known}")
    return codec


def codec_names() -> tuple[str, ...]:
    """Return the registered codec names, sorted."""
    return tuple(sorted(_REGISTRY))


def encode_frame(
    codec: str,
    frame: RGBFrame | npt.NDArray[np.uint8],
    *,
    quality: int = DEFAULT_JPEG_QUALITY,
    png_level: int = DEFAULT_PNG_LEVEL,
) -> bytes:
    """Encode an image with the named codec.

    Parameters
    ----------
    codec
        A registered codec name (``rgb24``, ``jpeg``, ``png`` ...).
    frame
        A frame, or an ``(H, W, 3)`` ``uint8`` array (copied if writable).
    quality
        JPEG quality, 1-100.
    png_level
        PNG zlib compression level, 0-9.

    Returns
    -------
    bytes
        The payload.

    Raises
    ------
    SchemaError
        If the codec is unknown.
    """
    impl = get_codec(codec)
    if not isinstance(frame, RGBFrame):
        frame = RGBFrame(frame)
    return impl.encode(frame, quality=quality, png_level=png_level)


def decode_frame(
    codec: str,
    payload: bytes | memoryview,
    *,
    width: int,
    height: int,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> RGBFrame:
    """Decode a payload that the stream declares as a ``width`` x ``height`` image.

    Parameters
    ----------
    codec
        A registered codec name.
    payload
        The encoded image. Any byte content is accepted; bad content raises an
        :class:`~fsr_core.errors.FsrError` subclass and nothing else.
    width, height
        The declared image size in pixels, both at least 1.
    max_pixels
        Largest accepted image, checked on the declared and on the header's size
        before decoding. Values above Pillow's ``Image.MAX_IMAGE_PIXELS`` do not
        lift Pillow's own bomb check (also reported as ``LimitExceededError``).

    Returns
    -------
    RGBFrame
        The decoded frame, exactly ``width`` x ``height``.

    Raises
    ------
    SchemaError
        If the codec is unknown.
    LimitExceededError
        If the image is larger than ``max_pixels``.
    DecodeError
        If the payload is corrupt, truncated, of another format, or of another
        size or colour mode than declared.
    TypeError, ValueError
        If the arguments themselves are misused (not bytes-like, sizes < 1).
    """
    impl = get_codec(codec)
    check_positive_int("width", width)
    check_positive_int("height", height)
    check_positive_int("max_pixels", max_pixels)
    byte_view(payload)
    try:
        frame: object = impl.decode(
            payload, width=width, height=height, max_pixels=max_pixels
        )
    except FsrError:
        raise
    except Exception as exc:  # boundary for codecs registered by others
        raise DecodeError(f"{codec} codec failed: {detail(exc)}") from exc
    if not isinstance(frame, RGBFrame):
        raise DecodeError(f"{codec} codec returned a {type(frame).__name__}")
    check_found_size(codec, frame.width, frame.height, width, height, max_pixels)
    return frame


for _codec in (Rgb24Codec(), JpegCodec(), PngCodec()):
    register_codec(_codec)
del _codec
