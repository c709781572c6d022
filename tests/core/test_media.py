"""Tests for fsr_core.media: RGBFrame and the image codec registry."""

from __future__ import annotations

import importlib.util
import io
import pickle
import struct
import tracemalloc
import zlib
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, JpegImagePlugin, PngImagePlugin

from fsr_core import media
from fsr_core.errors import DecodeError, FsrError, LimitExceededError, SchemaError
from fsr_core.media import (
    ImageCodec,
    JpegCodec,
    RGBFrame,
    codec_names,
    decode_frame,
    encode_frame,
    get_codec,
    register_codec,
    registry,
)

WIDTH = 32
HEIGHT = 24
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HAVE_SIMPLEJPEG = importlib.util.find_spec("simplejpeg") is not None
JPEG_BACKENDS = ["simplejpeg", "pillow"] if HAVE_SIMPLEJPEG else ["pillow"]
BUILTIN_CODECS = ["rgb24", "jpeg", "png"]


def gradient_image(width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """Return a smooth RGB test image (JPEG-friendly)."""
    ys, xs = np.mgrid[0:height, 0:width]
    red = xs * 255 // max(width - 1, 1)
    green = ys * 255 // max(height - 1, 1)
    blue = (xs + ys) * 255 // max(width + height - 2, 1)
    return np.stack([red, green, blue], axis=-1).astype(np.uint8)


def noise_image(seed: int = 7) -> np.ndarray:
    """Return a random RGB image (large PNG IDAT, every byte matters)."""
    return np.random.default_rng(seed).integers(
        0, 256, size=(HEIGHT, WIDTH, 3), dtype=np.uint8
    )


def stripe_image() -> np.ndarray:
    """1-pixel red/blue columns: destroyed by chroma subsampling, kept by 4:4:4."""
    pixels = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    pixels[:, 0::2, 0] = 255
    pixels[:, 1::2, 2] = 255
    return pixels


def png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_with_ihdr(width: int, height: int, depth: int = 8, colour: int = 2) -> bytes:
    """Return a PNG whose valid IHDR claims ``width`` x ``height``, no pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", zlib.compress(b""))
        + png_chunk(b"IEND", b"")
    )


def jpeg_with_size(payload: bytes, width: int, height: int) -> bytes:
    """Rewrite the SOF0 dimensions of a baseline JPEG (walks the marker segments)."""
    data = bytearray(payload)
    offset = 2  # after SOI
    while offset + 4 <= len(data):
        marker = data[offset + 1]
        (length,) = struct.unpack_from(">H", data, offset + 2)
        if marker == 0xC0:
            struct.pack_into(">HH", data, offset + 5, height, width)
            return bytes(data)
        offset += 2 + length
    raise AssertionError("no SOF0 marker found")


def pillow_bytes(image: Image.Image, image_format: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=image_format, **params)
    return buffer.getvalue()


def jpeg_codec(backend: str) -> JpegCodec:
    return JpegCodec(backend=backend)  # type: ignore[arg-type]


@cache
def valid_payloads() -> tuple[tuple[str, bytes], ...]:
    """One valid 32x24 payload per codec, from a noisy image."""
    pixels = noise_image()
    return tuple((name, encode_frame(name, pixels)) for name in BUILTIN_CODECS)


# --- RGBFrame -------------------------------------------------------------------


def test_frame_pixels_are_read_only() -> None:
    frame = RGBFrame(gradient_image())

    with pytest.raises(ValueError, match="read-only"):
        frame.pixels[0, 0, 0] = 1


def test_frame_copies_writable_input_so_later_writes_do_not_leak() -> None:
    source = gradient_image()

    frame = RGBFrame(source)
    source[0, 0, 0] ^= 0xFF

    assert not np.shares_memory(frame.pixels, source)
    assert frame.pixels[0, 0, 0] != source[0, 0, 0]


def test_frame_keeps_read_only_contiguous_input_without_copy() -> None:
    source = gradient_image()
    source.flags.writeable = False

    frame = RGBFrame(source)

    assert frame.pixels is source


def test_frame_copies_non_contiguous_input_to_c_order() -> None:
    source = np.ascontiguousarray(gradient_image()[:, ::2])
    strided = gradient_image()[:, ::2]
    strided.flags.writeable = False

    frame = RGBFrame(strided)

    assert frame.pixels.flags.c_contiguous
    assert not frame.pixels.flags.writeable
    assert np.array_equal(frame.pixels, source)


@pytest.mark.parametrize(
    ("pixels", "error"),
    [
        (np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint16), TypeError),
        (np.zeros((HEIGHT, WIDTH, 3), dtype=np.float32), TypeError),
        ([[[0, 0, 0]]], TypeError),
        (np.zeros((HEIGHT, WIDTH), dtype=np.uint8), ValueError),
        (np.zeros((HEIGHT, WIDTH, 4), dtype=np.uint8), ValueError),
        (np.zeros((0, WIDTH, 3), dtype=np.uint8), ValueError),
        (np.zeros((HEIGHT, 0, 3), dtype=np.uint8), ValueError),
    ],
)
def test_frame_rejects_wrong_type_dtype_or_shape(
    pixels: object, error: type[Exception]
) -> None:
    with pytest.raises(error):
        RGBFrame(pixels)  # type: ignore[arg-type]


def test_frame_reports_width_height_nbytes_and_raw_bytes() -> None:
    pixels = gradient_image()

    frame = RGBFrame(pixels)

    assert (frame.width, frame.height) == (WIDTH, HEIGHT)
    assert frame.nbytes == WIDTH * HEIGHT * 3
    assert frame.to_bytes() == pixels.tobytes()
    assert repr(frame) == f"RGBFrame(width={WIDTH}, height={HEIGHT})"


def test_frames_compare_by_pixel_content_and_are_unhashable() -> None:
    first = RGBFrame(gradient_image())
    same = RGBFrame(gradient_image())
    other = RGBFrame(noise_image())

    assert first == same
    assert first != other
    assert first != "not a frame"
    with pytest.raises(TypeError):
        hash(first)


def test_from_rgb24_round_trips_raw_bytes() -> None:
    pixels = noise_image()

    frame = RGBFrame.from_rgb24(pixels.tobytes(), WIDTH, HEIGHT)

    assert np.array_equal(frame.pixels, pixels)
    assert not frame.pixels.flags.writeable


def test_from_rgb24_copies_a_mutable_buffer() -> None:
    buffer = bytearray(noise_image().tobytes())

    frame = RGBFrame.from_rgb24(memoryview(buffer), WIDTH, HEIGHT)
    before = frame.to_bytes()
    buffer[0] ^= 0xFF

    assert frame.to_bytes() == before


@pytest.mark.parametrize("delta", [-1, 1, -WIDTH * HEIGHT * 3])
def test_from_rgb24_with_wrong_length_raises_decode_error(delta: int) -> None:
    data = bytes(WIDTH * HEIGHT * 3 + delta)

    with pytest.raises(DecodeError, match=rf"has {len(data)} bytes, expected 2304"):
        RGBFrame.from_rgb24(data, WIDTH, HEIGHT)


def test_pickled_frame_stays_read_only_and_equal() -> None:
    frame = RGBFrame(noise_image())

    restored = pickle.loads(pickle.dumps(frame))

    assert restored == frame
    assert not restored.pixels.flags.writeable


# --- registry -------------------------------------------------------------------


def test_builtin_codecs_are_registered() -> None:
    assert set(BUILTIN_CODECS) <= set(codec_names())
    assert list(codec_names()) == sorted(codec_names())
    assert [get_codec(name).name for name in BUILTIN_CODECS] == BUILTIN_CODECS


def test_unknown_codec_raises_schema_error_naming_it_and_the_known_ones() -> None:
    with pytest.raises(SchemaError) as excinfo:
        get_codec("webp")

    message = str(excinfo.value)
    assert "'webp'" in message
    assert all(name in message for name in BUILTIN_CODECS)


def test_encode_with_unknown_codec_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match="unknown image codec 'h264'"):
        encode_frame("h264", gradient_image())


def test_decode_with_unknown_codec_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match="unknown image codec 'h264'"):
        decode_frame("h264", b"", width=WIDTH, height=HEIGHT)


class _BrokenCodec(media.Rgb24Codec):
    """A third-party codec that breaks the contract (raises KeyError)."""

    name = "broken"

    def decode(
        self, payload: bytes | memoryview, *, width: int, height: int, max_pixels: int
    ) -> RGBFrame:
        raise KeyError("oops")


@pytest.fixture
def isolated_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


@pytest.mark.usefixtures("isolated_registry")
def test_registering_a_taken_name_raises_unless_replace_is_set() -> None:
    replacement = JpegCodec(backend="pillow")

    with pytest.raises(ValueError, match="already registered"):
        register_codec(replacement)
    register_codec(replacement, replace=True)

    assert get_codec("jpeg") is replacement


@pytest.mark.usefixtures("isolated_registry")
def test_decode_frame_wraps_foreign_codec_errors_in_decode_error() -> None:
    codec: ImageCodec = _BrokenCodec()
    register_codec(codec)

    with pytest.raises(DecodeError, match="broken codec failed") as excinfo:
        decode_frame("broken", b"x", width=WIDTH, height=HEIGHT)

    assert isinstance(excinfo.value.__cause__, KeyError)


# --- round trips ----------------------------------------------------------------


@pytest.mark.parametrize("codec", ["rgb24", "png"])
def test_lossless_codecs_round_trip_exactly(codec: str) -> None:
    pixels = noise_image()

    payload = encode_frame(codec, pixels)
    frame = decode_frame(codec, payload, width=WIDTH, height=HEIGHT)

    assert np.array_equal(frame.pixels, pixels)
    assert not frame.pixels.flags.writeable


def test_encode_frame_accepts_a_frame_or_an_array_alike() -> None:
    pixels = noise_image()

    assert encode_frame("png", pixels) == encode_frame("png", RGBFrame(pixels))


def test_png_level_changes_size_but_not_pixels() -> None:
    pixels = gradient_image(256, 64)

    fast = encode_frame("png", pixels, png_level=1)
    small = encode_frame("png", pixels, png_level=9)
    stored = encode_frame("png", pixels, png_level=0)

    assert len(stored) > len(fast) >= len(small)
    for payload in (fast, small, stored):
        frame = decode_frame("png", payload, width=256, height=64)
        assert np.array_equal(frame.pixels, pixels)


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
def test_jpeg_round_trip_of_smooth_gradient_is_close(backend: str) -> None:
    codec = jpeg_codec(backend)
    pixels = gradient_image()

    payload = codec.encode(RGBFrame(pixels), quality=92)
    frame = codec.decode(payload, width=WIDTH, height=HEIGHT, max_pixels=2**26)

    error = np.abs(frame.pixels.astype(np.int16) - pixels).mean()
    assert error < 3


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
def test_jpeg_encodes_with_444_chroma_sampling(backend: str) -> None:
    pixels = stripe_image()

    payload = jpeg_codec(backend).encode(RGBFrame(pixels))
    with Image.open(io.BytesIO(payload)) as image:
        sampling = JpegImagePlugin.get_sampling(image)
    subsampled = pillow_bytes(
        Image.fromarray(pixels), "JPEG", quality=92, subsampling=2
    )
    ours = decode_frame("jpeg", payload, width=WIDTH, height=HEIGHT).pixels
    theirs = decode_frame("jpeg", subsampled, width=WIDTH, height=HEIGHT).pixels

    assert sampling == 0  # 4:4:4
    ours_error = np.abs(ours.astype(np.int16) - pixels).mean()
    theirs_error = np.abs(theirs.astype(np.int16) - pixels).mean()
    assert ours_error < theirs_error / 3


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
def test_jpeg_backends_decode_each_others_payloads(backend: str) -> None:
    pixels = gradient_image()
    other = JPEG_BACKENDS[-1] if backend == JPEG_BACKENDS[0] else JPEG_BACKENDS[0]

    payload = jpeg_codec(other).encode(RGBFrame(pixels))
    frame = jpeg_codec(backend).decode(
        payload, width=WIDTH, height=HEIGHT, max_pixels=2**26
    )

    assert np.abs(frame.pixels.astype(np.int16) - pixels).mean() < 3


def test_default_jpeg_backend_is_simplejpeg_when_importable() -> None:
    expected = "simplejpeg" if HAVE_SIMPLEJPEG else "pillow"

    assert JpegCodec().backend == expected


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("quality", 0, ValueError),
        ("quality", 101, ValueError),
        ("quality", 9.5, TypeError),
        ("png_level", 10, ValueError),
        ("png_level", -1, ValueError),
    ],
)
def test_out_of_range_encode_options_raise(
    option: str, value: object, error: type[Exception]
) -> None:
    codec = "jpeg" if option == "quality" else "png"

    with pytest.raises(error, match=option):
        encode_frame(codec, gradient_image(), **{option: value})  # type: ignore[arg-type]


# --- hostile payloads -----------------------------------------------------------


def test_png_header_claiming_100000_squared_raises_limit_before_any_allocation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payload = png_with_ihdr(100_000, 100_000)

    def refuse_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("Pillow must not see an oversized payload")

    monkeypatch.setattr(Image, "open", refuse_open)
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError) as excinfo:
            decode_frame("png", payload, width=100_000, height=100_000)
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert str(excinfo.value) == (
        "image of 100000\N{MULTIPLICATION SIGN}100000 px exceeds the limit of "
        "67108864 pixels"
    )
    assert peak_bytes < 1_000_000


def test_png_header_larger_than_declared_size_raises_limit_first() -> None:
    payload = png_with_ihdr(100_000, 100_000)

    with pytest.raises(LimitExceededError, match="100000"):
        decode_frame("png", payload, width=WIDTH, height=HEIGHT)


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
@pytest.mark.parametrize("size", [9_000, 60_000])
def test_jpeg_header_beyond_pixel_limit_raises_limit_exceeded(
    backend: str, size: int
) -> None:
    payload = jpeg_with_size(encode_frame("jpeg", gradient_image()), size, size)

    with pytest.raises(LimitExceededError):
        jpeg_codec(backend).decode(payload, width=size, height=size, max_pixels=2**26)


@pytest.mark.parametrize("codec", BUILTIN_CODECS)
def test_pixel_limit_is_inclusive(codec: str) -> None:
    payload = encode_frame(codec, noise_image())

    decode_frame(codec, payload, width=WIDTH, height=HEIGHT, max_pixels=WIDTH * HEIGHT)
    with pytest.raises(LimitExceededError, match="exceeds the limit of 767 pixels"):
        decode_frame(
            codec, payload, width=WIDTH, height=HEIGHT, max_pixels=WIDTH * HEIGHT - 1
        )


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
@pytest.mark.parametrize("cut", [0, 2, 100, 1000, -10, -1])
def test_truncated_jpeg_raises_decode_error(backend: str, cut: int) -> None:
    payload = encode_frame("jpeg", noise_image())

    with pytest.raises(DecodeError):
        jpeg_codec(backend).decode(
            payload[:cut], width=WIDTH, height=HEIGHT, max_pixels=2**26
        )


@pytest.mark.parametrize("cut", [0, 8, 20, 40, 1000, -100])
def test_truncated_png_raises_decode_error(cut: int) -> None:
    payload = encode_frame("png", noise_image())  # -100 cuts into IDAT

    with pytest.raises(DecodeError):
        decode_frame("png", payload[:cut], width=WIDTH, height=HEIGHT)


@pytest.mark.parametrize("image_format", ["GIF", "TIFF", "BMP", "JPEG"])
def test_other_format_in_png_stream_raises_decode_error(image_format: str) -> None:
    payload = pillow_bytes(Image.fromarray(noise_image()), image_format)

    with pytest.raises(DecodeError):
        decode_frame("png", payload, width=WIDTH, height=HEIGHT)


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
@pytest.mark.parametrize("image_format", ["PNG", "GIF", "TIFF"])
def test_other_format_in_jpeg_stream_raises_decode_error(
    backend: str, image_format: str
) -> None:
    payload = pillow_bytes(Image.fromarray(noise_image()), image_format)

    with pytest.raises(DecodeError):
        jpeg_codec(backend).decode(
            payload, width=WIDTH, height=HEIGHT, max_pixels=2**26
        )


@pytest.mark.parametrize("codec", ["jpeg", "png"])
def test_declared_size_mismatch_raises_schema_error_naming_both(codec: str) -> None:
    payload = encode_frame(codec, noise_image())

    with pytest.raises(SchemaError) as excinfo:
        decode_frame(codec, payload, width=HEIGHT, height=WIDTH)

    message = str(excinfo.value)
    assert "32\N{MULTIPLICATION SIGN}24" in message
    assert "expected 24\N{MULTIPLICATION SIGN}32" in message


def test_rgb24_length_mismatch_raises_decode_error() -> None:
    payload = encode_frame("rgb24", noise_image())

    with pytest.raises(DecodeError, match="expected 2400"):
        decode_frame("rgb24", payload, width=WIDTH, height=HEIGHT + 1)


@pytest.mark.parametrize("mode", ["L", "RGBA", "P", "LA", "1", "I;16"])
def test_png_that_is_not_8_bit_rgb_raises_decode_error(mode: str) -> None:
    payload = pillow_bytes(Image.fromarray(noise_image()).convert(mode), "PNG")

    with pytest.raises(DecodeError, match="expected 8-bit RGB"):
        decode_frame("png", payload, width=WIDTH, height=HEIGHT)


@pytest.mark.parametrize("backend", JPEG_BACKENDS)
@pytest.mark.parametrize("mode", ["L", "CMYK"])
def test_jpeg_that_is_not_colour_raises_decode_error(backend: str, mode: str) -> None:
    payload = pillow_bytes(Image.fromarray(noise_image()).convert(mode), "JPEG")

    with pytest.raises(DecodeError, match="expected"):
        jpeg_codec(backend).decode(
            payload, width=WIDTH, height=HEIGHT, max_pixels=2**26
        )


def test_png_with_huge_compressed_text_chunk_raises_decode_error() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("comment", "a" * (PngImagePlugin.MAX_TEXT_CHUNK + 1), zip=True)
    payload = pillow_bytes(Image.fromarray(noise_image()), "PNG", pnginfo=info)

    with pytest.raises(DecodeError):
        decode_frame("png", payload, width=WIDTH, height=HEIGHT)


def test_png_with_bad_crc_raises_decode_error() -> None:
    payload = bytearray(encode_frame("png", noise_image()))
    payload[29] ^= 0x01  # first byte of the IHDR CRC

    with pytest.raises(DecodeError):
        decode_frame("png", bytes(payload), width=WIDTH, height=HEIGHT)


def test_decode_accepts_memoryview_payloads() -> None:
    payload = encode_frame("png", noise_image())
    padded = bytearray(b"\0" * 5 + payload)

    frame = decode_frame("png", memoryview(padded)[5:], width=WIDTH, height=HEIGHT)

    assert np.array_equal(frame.pixels, noise_image())


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"width": 0, "height": HEIGHT}, ValueError),
        ({"width": WIDTH, "height": -1}, ValueError),
        ({"width": WIDTH, "height": HEIGHT, "max_pixels": 0}, ValueError),
        ({"width": 32.0, "height": HEIGHT}, TypeError),
        ({"width": True, "height": HEIGHT}, TypeError),
    ],
)
def test_decode_frame_argument_misuse_raises_type_or_value_error(
    kwargs: dict[str, object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        decode_frame("rgb24", bytes(WIDTH * HEIGHT * 3), **kwargs)  # type: ignore[arg-type]


def test_decode_frame_rejects_a_non_bytes_payload_with_type_error() -> None:
    with pytest.raises(TypeError, match="payload"):
        decode_frame("png", "not bytes", width=WIDTH, height=HEIGHT)  # type: ignore[arg-type]


# --- fuzzing: nothing but FsrError escapes decode -------------------------------

ALL_DECODERS: list[tuple[str, ImageCodec]] = [
    ("rgb24", media.Rgb24Codec()),
    ("png", media.PngCodec()),
    *((f"jpeg/{backend}", jpeg_codec(backend)) for backend in JPEG_BACKENDS),
]
FUZZ_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def decode_or_fsr_error(codec: ImageCodec, payload: bytes) -> None:
    """Decode; an FsrError is fine, any other exception fails the test."""
    try:
        frame = codec.decode(payload, width=WIDTH, height=HEIGHT, max_pixels=2**26)
    except FsrError:
        return
    assert (frame.width, frame.height) == (WIDTH, HEIGHT)


decoders = st.sampled_from(ALL_DECODERS).map(lambda item: item[1])
prefixes = st.sampled_from([b"", PNG_SIGNATURE, b"\xff\xd8\xff\xe0", b"\xff\xd8"])


@FUZZ_SETTINGS
@given(codec=decoders, prefix=prefixes, body=st.binary(max_size=600))
def test_random_bytes_decode_to_a_frame_or_raise_only_fsr_errors(
    codec: ImageCodec, prefix: bytes, body: bytes
) -> None:
    decode_or_fsr_error(codec, prefix + body)


@FUZZ_SETTINGS
@given(codec=decoders, source=st.integers(0, 2), fraction=st.floats(0, 1))
def test_truncated_payloads_decode_to_a_frame_or_raise_only_fsr_errors(
    codec: ImageCodec, source: int, fraction: float
) -> None:
    payload = valid_payloads()[source][1]

    decode_or_fsr_error(codec, payload[: int(len(payload) * fraction)])


@FUZZ_SETTINGS
@given(
    codec=decoders,
    source=st.integers(0, 2),
    position=st.floats(0, 1, exclude_max=True),
    value=st.integers(0, 255),
)
def test_mutated_payloads_decode_to_a_frame_or_raise_only_fsr_errors(
    codec: ImageCodec, source: int, position: float, value: int
) -> None:
    payload = bytearray(valid_payloads()[source][1])
    payload[int(len(payload) * position)] = value

    decode_or_fsr_error(codec, bytes(payload))


@pytest.mark.parametrize(("name", "codec"), ALL_DECODERS)
def test_every_single_byte_flip_in_the_png_and_jpeg_headers_is_contained(
    name: str, codec: ImageCodec
) -> None:
    for _, payload in valid_payloads():
        for position in range(min(len(payload), 700)):
            mutated = bytearray(payload)
            mutated[position] ^= 0xFF
            decode_or_fsr_error(codec, bytes(mutated))
