"""Camera frames and the image codec registry.

:class:`RGBFrame` is the immutable camera frame every layer passes around. Image
payloads are turned into frames (and back) by codecs registered by name: ``rgb24``
(raw bytes), ``jpeg`` (simplejpeg when importable, else Pillow) and ``png`` (Pillow).
Other codecs implement :class:`ImageCodec` and are added with :func:`register_codec`.

Decoding treats every payload as hostile: the image size is read from the header and
checked against ``max_pixels`` before any pixel buffer is allocated, Pillow may only
open the declared format, truncated images are never completed, and any failure
surfaces as a :class:`~fsr_core.errors.FsrError` subclass.
"""

from fsr_core.media.codecs import (
    DEFAULT_JPEG_QUALITY,
    DEFAULT_PNG_LEVEL,
    ImageCodec,
    JpegBackend,
    JpegCodec,
    PngCodec,
    Rgb24Codec,
)
from fsr_core.media.frame import RGBFrame
from fsr_core.media.registry import (
    DEFAULT_MAX_PIXELS,
    codec_names,
    decode_frame,
    encode_frame,
    get_codec,
    register_codec,
)

__all__ = [
    "DEFAULT_JPEG_QUALITY",
    "DEFAULT_MAX_PIXELS",
    "DEFAULT_PNG_LEVEL",
    "ImageCodec",
    "JpegBackend",
    "JpegCodec",
    "PngCodec",
    "RGBFrame",
    "Rgb24Codec",
    "codec_names",
    "decode_frame",
    "encode_frame",
    "get_codec",
    "register_codec",
]
