"""The built-in image codecs: ``rgb24``, ``jpeg`` (simplejpeg or Pillow), ``png``.

Every decoder checks the image size from the header against ``max_pixels``
before a pixel buffer is allocated, and lets Pillow open the declared format
only.
"""

from __future__ import annotations

import functools
import importlib
import io
import logging
import struct
import warnings
from typing import Literal, Protocol, cast

import numpy as np
import numpy.typing as npt

from fsr_core.errors import DecodeError, FsrError, LimitExceededError
from fsr_core.media._checks import (
    byte_view,
    check_found_size,
    check_mode,
    check_request,
    detail,
    int_option,
)
from fsr_core.media.frame import RGBFrame

__all__ = [
    "DEFAULT_JPEG_QUALITY",
    "DEFAULT_PNG_LEVEL",
    "ImageCodec",
    "JpegBackend",
    "JpegCodec",
    "PngCodec",
    "Rgb24Codec",
]

logger = logging.getLogger(__name__)

DEFAULT_JPEG_QUALITY = 92
"""Default JPEG quality (1-100)."""
DEFAULT_PNG_LEVEL = 1
"""Default zlib compression level for PNG (0-9)."""

JpegBackend = Literal["simplejpeg", "pillow"]
"""Library a :class:`JpegCodec` uses to encode and decode."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_IHDR = struct.Struct(">I4sIIBB")  # length, type, width, height, depth, colour
_PNG_IHDR_END = 33  # signature (8) + length, type (8) + IHDR data (13) + CRC (4)
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the empty IEND chunk and its CRC
_JPEG_COLOUR_SPACES = frozenset({"YCbCr", "RGB"})


class _SimpleJpegModule(Protocol):
    """The part of simplejpeg's API this module uses (simplejpeg ships no types)."""

    def encode_jpeg(
        self,
        image: npt.NDArray[np.uint8],
        quality: int = ...,
        colorspace: str = ...,
        colorsubsampling: str = ...,
    ) -> bytes: ...

    def decode_jpeg_header(
        self, data: memoryview, *, strict: bool = ...
    ) -> tuple[int, int, str, str]: ...

    def decode_jpeg(
        self, data: memoryview, colorspace: str = ..., *, strict: bool = ...
    ) -> npt.NDArray[np.uint8]: ...


@functools.cache
def _simplejpeg() -> _SimpleJpegModule | None:
    """Return simplejpeg, imported on first use (``None`` when it is missing)."""
    try:
        module = importlib.import_module("simplejpeg")
    except ImportError:
        logger.debug("simplejpeg is not importable; JPEG uses Pillow")
        return None
    return cast("_SimpleJpegModule", module)


class ImageCodec(Protocol):
    """An image payload format, registered under :attr:`name`.

    Implementations must raise only :class:`~fsr_core.errors.FsrError` subclasses
    from :meth:`decode` for bad payloads, and must check the image size against
    ``max_pixels`` before allocating the decoded image.
    """

    @property
    def name(self) -> str:
        """Registry key, as written in a stream's ``codec`` field."""
        ...

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Encode ``frame``; options a codec does not use are ignored."""
        ...

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Decode ``payload``, which must be a ``width`` x ``height`` RGB image."""
        ...


class Rgb24Codec:
    """Raw RGB24 payloads: ``width * height * 3`` bytes, row-major."""

    name = "rgb24"

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Return the raw pixel bytes; ``options`` are ignored."""
        return frame.to_bytes()

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Wrap the payload as a frame, without a copy for ``bytes``."""
        check_request(width, height, max_pixels)
        return RGBFrame.from_rgb24(payload, width, height)


class JpegCodec:
    """Baseline JPEG, encoded with 4:4:4 chroma (no subsampling).

    Parameters
    ----------
    backend
        ``"simplejpeg"`` (libjpeg-turbo; about 12% faster decoding than Pillow) or
        ``"pillow"``. ``None`` picks simplejpeg when it is importable.

    Raises
    ------
    ValueError
        If ``backend`` is unknown, or is ``"simplejpeg"`` and it is not importable.

    Notes
    -----
    The two backends accept the same payloads but do not produce identical bytes,
    so encoded output is byte-stable only for one backend and library version.
    Only colour JPEGs (YCbCr or RGB) decode; grayscale and CMYK are a
    :class:`~fsr_core.errors.DecodeError`.
    """

    name = "jpeg"

    def __init__(self, *, backend: JpegBackend | None = None) -> None:
        if backend not in (None, "simplejpeg", "pillow"):
            raise ValueError(f"unknown JPEG backend {backend!r}")
        if backend == "simplejpeg" and _simplejpeg() is None:
            raise ValueError("the simplejpeg backend is not importable")
        # None: simplejpeg when it is importable, looked up on the first use.
        self._chosen: JpegBackend | None = backend

    @property
    def backend(self) -> JpegBackend:
        """The library in use."""
        if self._chosen is None:
            return "pillow" if _simplejpeg() is None else "simplejpeg"
        return self._chosen

    def _simplejpeg(self) -> _SimpleJpegModule | None:
        """Return simplejpeg when this codec uses it, else ``None`` (Pillow)."""
        return None if self._chosen == "pillow" else _simplejpeg()

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Return ``frame`` as JFIF bytes; uses option ``quality`` (1-100, def. 92)."""
        quality = int_option(options, "quality", DEFAULT_JPEG_QUALITY, 1, 100)
        simplejpeg = self._simplejpeg()
        if simplejpeg is not None:
            return simplejpeg.encode_jpeg(
                frame.pixels, quality=quality, colorspace="RGB", colorsubsampling="444"
            )
        return _pillow_encode(frame, "JPEG", quality=quality, subsampling=0)

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Decode a colour JPEG after checking its header (see :func:`decode_frame`)."""
        check_request(width, height, max_pixels)
        view = byte_view(payload)
        simplejpeg = self._simplejpeg()
        if simplejpeg is not None:
            return _simplejpeg_decode(simplejpeg, view, width, height, max_pixels)
        return _pillow_decode(view, "JPEG", width, height, max_pixels)


class PngCodec:
    """Lossless 8-bit RGB PNG (colour type 2), via Pillow."""

    name = "png"

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Return ``frame`` as PNG bytes; uses option ``png_level`` (0-9, def. 1)."""
        level = int_option(options, "png_level", DEFAULT_PNG_LEVEL, 0, 9)
        return _pillow_encode(frame, "PNG", compress_level=level)

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Decode an 8-bit RGB PNG after checking its IHDR; see :func:`decode_frame`."""
        check_request(width, height, max_pixels)
        view = byte_view(payload)
        found_width, found_height, depth, colour_type = _png_header(view)
        check_found_size("png", found_width, found_height, width, height, max_pixels)
        if depth != 8 or colour_type != 2:
            raise DecodeError(
                f"png image has bit depth {depth} and colour type {colour_type}, "
                "expected 8-bit RGB (colour type 2)"
            )
        if bytes(view[-len(_PNG_IEND) :]) != _PNG_IEND:
            # Pillow decodes a PNG cut after its image data without complaint.
            raise DecodeError("png payload does not end with an IEND chunk (truncated)")
        return _pillow_decode(view, "PNG", width, height, max_pixels)


def _png_header(view: memoryview) -> tuple[int, int, int, int]:
    if bytes(view[: len(_PNG_SIGNATURE)]) != _PNG_SIGNATURE:
        raise DecodeError("png payload does not start with the PNG signature")
    if view.nbytes < _PNG_IHDR_END:
        raise DecodeError(f"png payload ends at byte {view.nbytes}, inside its header")
    length, kind, width, height, depth, colour_type = _PNG_IHDR.unpack_from(
        view, len(_PNG_SIGNATURE)
    )
    if length != 13 or kind != b"IHDR":
        raise DecodeError("png payload does not start with a 13-byte IHDR chunk")
    return int(width), int(height), int(depth), int(colour_type)


def _simplejpeg_decode(
    module: _SimpleJpegModule, view: memoryview, width: int, height: int, limit: int
) -> RGBFrame:
    try:
        found_height, found_width, colour_space, _ = module.decode_jpeg_header(
            view, strict=True
        )
    except Exception as exc:  # codec boundary; libjpeg errors vary
        raise DecodeError(f"jpeg header could not be read: {detail(exc)}") from exc
    check_found_size("jpeg", int(found_width), int(found_height), width, height, limit)
    if colour_space not in _JPEG_COLOUR_SPACES:
        raise DecodeError(
            f"jpeg image has colour space {colour_space!r}, expected YCbCr or RGB"
        )
    try:
        pixels = module.decode_jpeg(view, "RGB", strict=True)
    except Exception as exc:  # codec boundary; libjpeg errors vary
        raise DecodeError(f"jpeg payload could not be decoded: {detail(exc)}") from exc
    return _decoded_frame("jpeg", pixels, width, height)


def _pillow_decode(
    view: memoryview, image_format: str, width: int, height: int, limit: int
) -> RGBFrame:
    from PIL import Image  # imported on the first image Pillow decodes

    codec = image_format.lower()
    try:
        # The filter is process-global state (a racing thread may restore it), so it
        # is only a second line: PNG sizes are checked before Pillow sees the bytes
        # and JPEG sizes right after the lazy open, before any pixel is decoded.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(view), formats=[image_format]) as image:
                found_width, found_height = image.size
                check_found_size(codec, found_width, found_height, width, height, limit)
                check_mode(codec, image.mode)
                image.load()
                pixels = np.asarray(image)
    except FsrError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise LimitExceededError(
            f"{codec} image exceeds Pillow's decompression-bomb limit"
        ) from exc
    except Exception as exc:  # codec boundary; Pillow raises many types
        raise DecodeError(
            f"{codec} payload could not be decoded: {detail(exc)}"
        ) from exc
    return _decoded_frame(codec, pixels, width, height)


def _pillow_encode(frame: RGBFrame, image_format: str, **params: int) -> bytes:
    from PIL import Image  # imported on the first image Pillow encodes

    buffer = io.BytesIO()
    Image.fromarray(frame.pixels).save(buffer, format=image_format, **params)
    return buffer.getvalue()


def _decoded_frame(
    codec: str, pixels: npt.NDArray[np.generic], width: int, height: int
) -> RGBFrame:
    if pixels.dtype != np.uint8 or pixels.shape != (height, width, 3):
        raise DecodeError(
            f"{codec} decoder gave a {pixels.dtype} array of shape {pixels.shape}, "
            f"expected uint8 ({height}, {width}, 3)"
        )
    if pixels.flags.owndata and pixels.flags.c_contiguous:
        pixels.flags.writeable = False  # a fresh buffer of ours: freeze, don't copy
    return RGBFrame(cast("npt.NDArray[np.uint8]", pixels))
