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

from __future__ import annotations

import importlib
import io
import logging
import struct
import warnings
from dataclasses import dataclass
from typing import Literal, Protocol, cast

import numpy as np
import numpy.typing as npt
from PIL import Image

from fsr_core.errors import DecodeError, FsrError, LimitExceededError, SchemaError

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

logger = logging.getLogger(__name__)

DEFAULT_MAX_PIXELS = 2**26
"""Default cap on decoded image pixels (about 67 Mpx, below Pillow's bomb limit)."""
DEFAULT_JPEG_QUALITY = 92
"""Default JPEG quality (1-100)."""
DEFAULT_PNG_LEVEL = 1
"""Default zlib compression level for PNG (0-9)."""

JpegBackend = Literal["simplejpeg", "pillow"]
"""Library a :class:`JpegCodec` uses to encode and decode."""

_TIMES = "\N{MULTIPLICATION SIGN}"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_IHDR = struct.Struct(">I4sIIBB")  # length, type, width, height, depth, colour
_PNG_IHDR_END = 33  # signature (8) + length, type (8) + IHDR data (13) + CRC (4)
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the empty IEND chunk and its CRC
_JPEG_COLOUR_SPACES = frozenset({"YCbCr", "RGB"})
_MAX_REASON_DETAIL = 60


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


def _load_simplejpeg() -> _SimpleJpegModule | None:
    try:
        module = importlib.import_module("simplejpeg")
    except ImportError:
        logger.debug("simplejpeg is not importable; JPEG uses Pillow")
        return None
    return cast("_SimpleJpegModule", module)


_SIMPLEJPEG = _load_simplejpeg()


@dataclass(frozen=True, eq=False, repr=False)
class RGBFrame:
    """An immutable 8-bit RGB image.

    Parameters
    ----------
    pixels
        An ``(H, W, 3)`` ``uint8`` array (``H, W >= 1``). An array that is already
        read-only and C-contiguous is kept as it is, without a copy; the caller
        promises not to change it through another view. Any other array (writable,
        non-contiguous or an ndarray subclass) is copied. The stored array is
        C-contiguous with ``flags.writeable == False``.

    Raises
    ------
    TypeError
        If ``pixels`` is not a ``uint8`` ndarray.
    ValueError
        If ``pixels`` is not ``(H, W, 3)`` with ``H, W >= 1``.

    Notes
    -----
    Frames compare equal when their pixels are equal. They are not hashable.
    """

    pixels: npt.NDArray[np.uint8]

    def __post_init__(self) -> None:
        """Validate ``pixels`` and store a read-only, C-contiguous array."""
        object.__setattr__(self, "pixels", _frozen_pixels(self.pixels))

    @property
    def width(self) -> int:
        """Image width in pixels."""
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        """Image height in pixels."""
        return int(self.pixels.shape[0])

    @property
    def nbytes(self) -> int:
        """Size of the pixel data in bytes (``width * height * 3``)."""
        return int(self.pixels.nbytes)

    def to_bytes(self) -> bytes:
        """Return the pixels as raw RGB24 bytes, row-major, top row first."""
        return self.pixels.tobytes()

    @classmethod
    def from_rgb24(cls, data: bytes | memoryview, width: int, height: int) -> RGBFrame:
        """Build a frame from raw RGB24 bytes.

        Parameters
        ----------
        data
            ``width * height * 3`` bytes, row-major, top row first. ``bytes`` are
            used without a copy; other buffers are copied.
        width, height
            Image size in pixels, both at least 1.

        Returns
        -------
        RGBFrame
            The frame.

        Raises
        ------
        DecodeError
            If ``data`` does not hold exactly ``width * height * 3`` bytes.
        """
        _check_positive_int("width", width)
        _check_positive_int("height", height)
        view = _byte_view(data)
        expected_bytes = width * height * 3
        if view.nbytes != expected_bytes:
            raise DecodeError(
                f"rgb24 payload has {view.nbytes} bytes, expected {expected_bytes} "
                f"({width}{_TIMES}{height}{_TIMES}3)"
            )
        buffer = data if isinstance(data, bytes) else view.tobytes()
        return cls(np.frombuffer(buffer, dtype=np.uint8).reshape(height, width, 3))

    def __eq__(self, other: object) -> bool:
        """Return whether ``other`` is a frame with the same pixels."""
        if not isinstance(other, RGBFrame):
            return NotImplemented
        return bool(np.array_equal(self.pixels, other.pixels))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """Return a short description (size only, not the pixels)."""
        return f"RGBFrame(width={self.width}, height={self.height})"

    def __reduce__(self) -> tuple[object, tuple[bytes, int, int]]:
        """Pickle through :meth:`from_rgb24` so the copy is read-only too."""
        return (type(self).from_rgb24, (self.to_bytes(), self.width, self.height))


def _frozen_pixels(pixels: object) -> npt.NDArray[np.uint8]:
    if not isinstance(pixels, np.ndarray):
        raise TypeError(f"pixels must be a numpy array, got {type(pixels).__name__}")
    if pixels.dtype != np.uint8:
        raise TypeError(f"pixels must have dtype uint8, got {pixels.dtype}")
    shape = pixels.shape
    if len(shape) != 3 or shape[2] != 3 or shape[0] < 1 or shape[1] < 1:
        raise ValueError(
            f"pixels must have shape (H, W, 3) with H, W >= 1, got {shape}"
        )
    array = cast("npt.NDArray[np.uint8]", pixels)
    if (
        type(array) is not np.ndarray
        or array.flags.writeable
        or not array.flags.c_contiguous
    ):
        array = np.array(array, dtype=np.uint8, order="C", copy=True, subok=False)
        array.flags.writeable = False
    return array


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
        _check_request(width, height, max_pixels)
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
        if backend is None:
            backend = "pillow" if _SIMPLEJPEG is None else "simplejpeg"
        if backend not in ("simplejpeg", "pillow"):
            raise ValueError(f"unknown JPEG backend {backend!r}")
        if backend == "simplejpeg" and _SIMPLEJPEG is None:
            raise ValueError("the simplejpeg backend is not importable")
        self._backend: JpegBackend = backend

    @property
    def backend(self) -> JpegBackend:
        """The library in use."""
        return self._backend

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Return ``frame`` as JFIF bytes; uses option ``quality`` (1-100, def. 92)."""
        quality = _int_option(options, "quality", DEFAULT_JPEG_QUALITY, 1, 100)
        if self._backend == "simplejpeg" and _SIMPLEJPEG is not None:
            return _SIMPLEJPEG.encode_jpeg(
                frame.pixels, quality=quality, colorspace="RGB", colorsubsampling="444"
            )
        return _pillow_encode(frame, "JPEG", quality=quality, subsampling=0)

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Decode a colour JPEG after checking its header (see :func:`decode_frame`)."""
        _check_request(width, height, max_pixels)
        view = _byte_view(payload)
        if self._backend == "simplejpeg" and _SIMPLEJPEG is not None:
            return _simplejpeg_decode(_SIMPLEJPEG, view, width, height, max_pixels)
        return _pillow_decode(view, "JPEG", width, height, max_pixels)


class PngCodec:
    """Lossless 8-bit RGB PNG (colour type 2), via Pillow."""

    name = "png"

    def encode(self, frame: RGBFrame, **options: object) -> bytes:
        """Return ``frame`` as PNG bytes; uses option ``png_level`` (0-9, def. 1)."""
        level = _int_option(options, "png_level", DEFAULT_PNG_LEVEL, 0, 9)
        return _pillow_encode(frame, "PNG", compress_level=level)

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        """Decode an 8-bit RGB PNG after checking its IHDR; see :func:`decode_frame`."""
        _check_request(width, height, max_pixels)
        view = _byte_view(payload)
        found_width, found_height, depth, colour_type = _png_header(view)
        _check_found_size("png", found_width, found_height, width, height, max_pixels)
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
        raise DecodeError(f"jpeg header could not be read: {_detail(exc)}") from exc
    _check_found_size("jpeg", int(found_width), int(found_height), width, height, limit)
    if colour_space not in _JPEG_COLOUR_SPACES:
        raise DecodeError(
            f"jpeg image has colour space {colour_space!r}, expected YCbCr or RGB"
        )
    try:
        pixels = module.decode_jpeg(view, "RGB", strict=True)
    except Exception as exc:  # codec boundary; libjpeg errors vary
        raise DecodeError(f"jpeg payload could not be decoded: {_detail(exc)}") from exc
    return _decoded_frame("jpeg", pixels, width, height)


def _pillow_decode(
    view: memoryview, image_format: str, width: int, height: int, limit: int
) -> RGBFrame:
    codec = image_format.lower()
    try:
        # The filter is process-global state (a racing thread may restore it), so it
        # is only a second line: PNG sizes are checked before Pillow sees the bytes
        # and JPEG sizes right after the lazy open, before any pixel is decoded.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(view), formats=[image_format]) as image:
                found_width, found_height = image.size
                _check_found_size(
                    codec, found_width, found_height, width, height, limit
                )
                _check_mode(codec, image.mode)
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
            f"{codec} payload could not be decoded: {_detail(exc)}"
        ) from exc
    return _decoded_frame(codec, pixels, width, height)


def _pillow_encode(frame: RGBFrame, image_format: str, **params: int) -> bytes:
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


def _check_found_size(
    codec: str, found_width: int, found_height: int, width: int, height: int, limit: int
) -> None:
    _check_limit(found_width, found_height, limit)
    if (found_width, found_height) != (width, height):
        raise SchemaError(
            f"{codec} image is {found_width}{_TIMES}{found_height} px, "
            f"expected {width}{_TIMES}{height} px"
        )


def _check_mode(codec: str, mode: str) -> None:
    if mode != "RGB":
        raise DecodeError(f"{codec} image has mode {mode!r}, expected 'RGB'")


def _check_limit(width: int, height: int, max_pixels: int) -> None:
    if width * height > max_pixels:
        raise LimitExceededError(
            f"image of {width}{_TIMES}{height} px exceeds the limit of "
            f"{max_pixels} pixels"
        )


def _check_request(width: int, height: int, max_pixels: int) -> None:
    _check_positive_int("width", width)
    _check_positive_int("height", height)
    _check_positive_int("max_pixels", max_pixels)
    _check_limit(width, height, max_pixels)


def _check_positive_int(label: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{label} must be at least 1, got {value}")


def _int_option(
    options: dict[str, object], key: str, default: int, low: int, high: int
) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{key} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be in {low}..{high}, got {value}")
    return value


def _byte_view(payload: bytes | memoryview) -> memoryview:
    try:
        view = memoryview(payload)
    except TypeError as exc:
        raise TypeError(
            f"payload must be bytes or a memoryview, got {type(payload).__name__}"
        ) from exc
    if view.format == "B" and view.ndim == 1:
        return view
    if not view.c_contiguous:
        raise ValueError("payload memoryview must be C-contiguous")
    return view.cast("B")


def _detail(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if len(text) > _MAX_REASON_DETAIL:
        text = text[: _MAX_REASON_DETAIL - 3] + "..."
    return text


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
    _check_positive_int("width", width)
    _check_positive_int("height", height)
    _check_positive_int("max_pixels", max_pixels)
    _byte_view(payload)
    try:
        frame: object = impl.decode(
            payload, width=width, height=height, max_pixels=max_pixels
        )
    except FsrError:
        raise
    except Exception as exc:  # boundary for codecs registered by others
        raise DecodeError(f"{codec} codec failed: {_detail(exc)}") from exc
    if not isinstance(frame, RGBFrame):
        raise DecodeError(f"{codec} codec returned a {type(frame).__name__}")
    _check_found_size(codec, frame.width, frame.height, width, height, max_pixels)
    return frame


for _codec in (Rgb24Codec(), JpegCodec(), PngCodec()):
    register_codec(_codec)
del _codec
