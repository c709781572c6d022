"""Hostile input H (docs/robustness.md): payloads inside a valid container (73-79).

The container is valid in every structural respect (the writer built it and
read it back); only a payload is hostile. Each bad frame sits between two good
ones: exactly the bad record must fail, with its stream and record number, and
the frames around it must still decode (playback continues).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hostile_builders import RGB, camera_recording, good_frame, image, stream_recording
from hostile_harness import expect_clean_read, expect_open_error, expect_read_errors
from hostile_surgery import FsrFile

from fsr_core.errors import (
    CorruptRecordError,
    DecodeError,
    FsrError,
    LimitExceededError,
    SchemaError,
)
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind, StreamSpec


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data))
    )


def _png_with_size(width: int, height: int) -> bytes:
    """Return a valid 8x6 PNG whose IHDR (CRC correct) declares another size."""
    png = good_frame("png")
    ihdr = struct.pack(">II", width, height) + png[24:29]
    return png[:8] + _chunk(b"IHDR", ihdr) + png[33:]


def _png_with_chunk(kind: bytes, data: bytes) -> bytes:
    """Return a valid PNG with an extra ancillary chunk before its image data."""
    png = good_frame("png")
    return png[:33] + _chunk(kind, data) + png[33:]


def _jpeg_with_size(width: int, height: int) -> bytes:
    """Return a valid 8x6 baseline JPEG whose SOF0 declares another size."""
    jpeg = bytearray(good_frame("jpeg"))
    sof = jpeg.index(b"\xff\xc0")
    jpeg[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(jpeg)


def _bomb(size: int) -> bytes:
    return zlib.compress(bytes(size), 9)


def _read_bad_frame(
    tmp_path: Path, codec: str, bad: bytes, error: type[FsrError], **kwargs: object
) -> FsrError:
    good = good_frame(codec)
    data = camera_recording(tmp_path / f"{codec}.fsr", codec, [good, bad, good])

    problems = expect_read_errors(data, error, **kwargs)

    assert [(p.stream, p.record) for p in problems] == [(RGB, 1)]
    with FsrReader.open(io.BytesIO(data)) as reader:
        assert reader.record(RGB, 0).decoded.width == 8
        assert reader.record(RGB, 2).decoded.width == 8
    return problems[0]


@pytest.mark.parametrize(
    ("codec", "bad"),
    [
        ("png", _png_with_size(100_000, 100_000)),
        ("png", _png_with_size(1 << 31, 1)),
        ("jpeg", _jpeg_with_size(65_500, 65_500)),
    ],
    ids=["png-100000x100000", "png-2^31-wide", "jpeg-65500x65500"],
)
def test_image_declaring_a_huge_size_is_refused_from_its_header(
    tmp_path: Path, codec: str, bad: bytes
) -> None:
    """#73: refused from the header dims, before any pixel buffer exists."""
    error = _read_bad_frame(tmp_path, codec, bad, LimitExceededError)

    assert "exceeds the limit of 67108864 pixels" in error.reason


def test_image_pixel_limit_is_inclusive(tmp_path: Path) -> None:
    """``max_pixels`` at N (8 x 6 = 48) reads, at N - 1 is refused."""
    frame = good_frame("png")
    data = camera_recording(tmp_path / "limit.fsr", "png", [frame])

    expect_clean_read(data, limits=ReaderLimits(max_pixels=48))
    problems = expect_read_errors(
        data, LimitExceededError, limits=ReaderLimits(max_pixels=47)
    )

    assert [(p.stream, p.record) for p in problems] == [(RGB, 0)]


@pytest.mark.parametrize(
    "chunk",
    [
        (b"zTXt", b"comment\x00\x00" + _bomb(8 << 20)),
        (b"iCCP", b"profile\x00\x00" + _bomb(8 << 20)),
        (b"iTXt", b"comment\x00\x01\x00\x00\x00" + _bomb(8 << 20)),
    ],
    ids=["zTXt", "iCCP", "iTXt"],
)
def test_png_with_a_decompression_bomb_chunk_is_a_decode_error(
    tmp_path: Path, chunk: tuple[bytes, bytes]
) -> None:
    """#74: Pillow's "Decompressed Data Too Large" is wrapped."""
    _read_bad_frame(tmp_path, "png", _png_with_chunk(*chunk), DecodeError)


@pytest.mark.parametrize("codec", ["png", "jpeg"])
@pytest.mark.parametrize("keep", [0.3, 0.6, 0.8])
def test_truncated_frame_is_a_decode_error_and_playback_continues(
    tmp_path: Path, codec: str, keep: float
) -> None:
    """#75: never completed (``LOAD_TRUNCATED_IMAGES`` stays off)."""
    frame = good_frame(codec)

    _read_bad_frame(tmp_path, codec, frame[: int(len(frame) * keep)], DecodeError)


def test_bytes_after_the_png_end_are_a_decode_error(tmp_path: Path) -> None:
    """#75, #52 for PNG: a frame is exactly one PNG, nothing after its IEND."""
    _read_bad_frame(tmp_path, "png", good_frame("png") + b"junk", DecodeError)


FOREIGN = {
    "gif": lambda: image(fmt="GIF"),
    "tiff": lambda: image(fmt="TIFF"),
    "bmp": lambda: image(fmt="BMP"),
    "webp": lambda: image(fmt="WEBP"),
    "empty": lambda: b"",
    "zeros": lambda: bytes(100),
}


@pytest.mark.parametrize("codec", ["png", "jpeg"])
@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_frame_in_another_format_is_a_decode_error(
    tmp_path: Path, codec: str, kind: str
) -> None:
    """#76: Pillow may only open the declared format."""
    _read_bad_frame(tmp_path, codec, FOREIGN[kind](), DecodeError)


def test_png_frame_in_a_jpeg_stream_is_a_decode_error(tmp_path: Path) -> None:
    """#76 across the two image codecs."""
    _read_bad_frame(tmp_path, "jpeg", good_frame("png"), DecodeError)


def test_jpeg_frame_in_a_png_stream_is_a_decode_error(tmp_path: Path) -> None:
    """#76 the other way."""
    _read_bad_frame(tmp_path, "png", good_frame("jpeg"), DecodeError)


@pytest.mark.parametrize(
    ("codec", "bad", "words"),
    [
        (
            "png",
            image(16, 12),
            "16\N{MULTIPLICATION SIGN}12 px, expected 8\N{MULTIPLICATION SIGN}6",
        ),
        ("jpeg", image(16, 12, fmt="JPEG"), "16\N{MULTIPLICATION SIGN}12 px"),
        ("png", image(mode="L"), "colour type 0"),
        ("png", image(mode="RGBA"), "colour type 6"),
        ("png", image(mode="P"), "colour type 3"),
        ("png", image(mode="I;16"), "bit depth 16"),
        ("jpeg", image(mode="L", fmt="JPEG"), "colour space"),
        ("jpeg", image(mode="CMYK", fmt="JPEG"), "colour space"),
    ],
    ids=[
        "png-size",
        "jpeg-size",
        "png-gray",
        "png-rgba",
        "png-palette",
        "png-16bit",
        "jpeg-gray",
        "jpeg-cmyk",
    ],
)
def test_frame_of_another_size_or_mode_is_refused(
    tmp_path: Path, codec: str, bad: bytes, words: str
) -> None:
    """#77: decoded dims and mode must be the stream's declared ``[H, W, 3]`` uint8.

    Another size is a ``SchemaError`` (the frame contradicts its stream
    definition); another mode or colour space is a ``DecodeError``.
    """
    expected = SchemaError if "px" in words else DecodeError
    error = _read_bad_frame(tmp_path, codec, bad, expected)

    assert words in error.reason


def test_raw_payload_length_wrong_for_the_shape_is_refused_at_open(
    model: FsrFile,
) -> None:
    """#78: the stream table says 5 channels, every record holds 4."""
    document = model.document
    joints = next(
        s for s in document["streams"] if s["name"] == "observations.robot.joints"
    )
    joints["shape"] = [5]
    joints["channels"] = [*joints["channels"], "extra"]
    joints["units"] = [*joints["units"], "rad"]
    model.set_document(document)

    error = expect_open_error(model.build(), CorruptRecordError)

    assert (error.section, error.stream) == ("index", "observations.robot.joints")
    assert "payload length 32" in error.reason


def test_nan_and_inf_are_data_in_a_non_finite_stream(tmp_path: Path) -> None:
    """#79: a stream declared ``finite=False`` keeps NaN and infinities."""
    spec = StreamSpec(
        name="x", kind=StreamKind.NUMERIC, codec="raw", dtype="float64", shape=(3,),
        channels=("a", "b", "c"), finite=False,
    )  # fmt: skip
    data = stream_recording(
        tmp_path / "nan.fsr",
        spec,
        [(0, 0.0, [np.nan, np.inf, -np.inf]), (1, 0.1, [1.0, 2.0, 3.0])],
    )

    expect_clean_read(data)
    with FsrReader.open(io.BytesIO(data)) as reader:
        values = reader.record("x", 0).decoded

    assert np.isnan(values[0])
    assert np.isposinf(values[1])
    assert np.isneginf(values[2])


def test_nan_in_a_finite_stream_fails_that_record(model: FsrFile) -> None:
    """#79: a NaN written into a ``finite`` stream (record CRC recomputed)."""
    row = int(model.rows_of("observations.robot.joints")[2])
    record = model.record_bytes(row)
    meta = int(model.entries["meta_length"][row])
    model.edit_record(row, record[:meta] + np.array([np.nan, 0.0, 0.0, 0.0]).tobytes())

    problems = expect_read_errors(model.build(), SchemaError)

    assert [(p.stream, p.record) for p in problems] == [
        ("observations.robot.joints", 2)
    ]
    assert "NaN or infinite" in problems[0].reason


def _same_length(length: int, make: Callable[[int], bytes]) -> bytes:
    for pad in range(length + 1):
        candidate = make(pad)
        if len(candidate) == length:
            return candidate
    raise AssertionError(f"cannot build {length} bytes")


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (
            lambda n: b"[" * (n // 2) + b"]" * (n - n // 2),
            LimitExceededError,
            "nesting",
        ),
        (
            lambda n: b'{"a":"' + b"x" * n + b'","a":1}',
            DecodeError,
            "duplicate JSON key",
        ),
        (lambda n: b'{"a":' + b"9" * n + b"}", LimitExceededError, "number token"),
        (lambda n: b'{"a":"' + b"\xff" * n + b'"}', DecodeError, "UTF-8"),
        (lambda n: b'{"a":NaN,"b":"' + b"x" * n + b'"}', DecodeError, "non-finite"),
    ],
    ids=["deep", "duplicate-key", "long-number", "bad-utf8", "nan"],
)
def test_hostile_json_payloads_fail_only_their_record(
    model: FsrFile, make: Callable[[int], bytes], error: type[FsrError], words: str
) -> None:
    """G1 for JSON payloads: bounded parser, FsrError only, the record located."""
    row = int(model.rows_of("control.authored")[0])
    record = model.record_bytes(row)
    meta = int(model.entries["meta_length"][row])
    model.edit_record(row, record[:meta] + _same_length(len(record) - meta, make))

    problems = expect_read_errors(model.build(), error)

    assert [(p.stream, p.record) for p in problems] == [("control.authored", 0)]
    assert words in problems[0].reason


def test_hostile_record_metadata_fails_only_its_record(model: FsrFile) -> None:
    """G1 for per-record metadata JSON: a duplicate key, CRC recomputed."""
    row = int(model.rows_of("scene.geometry.meshes")[0])
    record = model.record_bytes(row)
    meta = int(model.entries["meta_length"][row])
    model.edit_record(
        row,
        _same_length(meta, lambda n: b'{"a":"' + b"x" * n + b'","a":1}')
        + record[meta:],
    )

    problems = expect_read_errors(model.build(), CorruptRecordError)

    assert [(p.stream, p.record) for p in problems] == [("scene.geometry.meshes", 0)]
    assert "record metadata" in problems[0].reason
