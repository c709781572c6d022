"""Hostile cases 11-20 (docs/robustness.md): magic, version, header, footer, trailer.

Each defect is put into an otherwise valid recording with
:class:`hostile_surgery.FsrFile`, which recomputes every other CRC, so the
defect itself is what the reader must find. Case 21 (every prefix) is the
truncation sweep in ``test_hostile_sweeps.py``.
"""

from __future__ import annotations

import gzip
import io
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hostile_harness import (
    expect_clean_read,
    expect_junk_after_trailer,
    expect_open_error,
)
from hostile_surgery import FsrFile, encode_header
from mcap.writer import Writer as McapWriter
from PIL import Image

from fsr_core.errors import (
    BadMagicError,
    CorruptRecordError,
    FormatError,
    IndexCorruptionError,
    LimitExceededError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from fsr_core.format.records import FOOTER_HEADER_SIZE, HEADER_SIZE, TRAILER_SIZE, crc32

WriteFile = Callable[..., Path]
U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="JPEG")
    return buffer.getvalue()


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("run.fsr", b"not really")
    return buffer.getvalue()


def _mcap() -> bytes:
    buffer = io.BytesIO()
    writer = McapWriter(buffer)
    writer.start()
    writer.finish()
    return buffer.getvalue()


def _npy() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(4))
    return buffer.getvalue()


def _sqlite(tmp_path: Path) -> bytes:
    path = tmp_path / "db.sqlite"
    connection = sqlite3.connect(path)
    try:
        connection.execute("create table t (x)")
        connection.commit()
    finally:
        connection.close()
    return path.read_bytes()


FOREIGN: dict[str, tuple[Callable[[Path], bytes], str]] = {
    "png": (lambda _: _png(), "a PNG image"),
    "jpeg": (lambda _: _jpeg(), "a JPEG image"),
    "zip": (lambda _: _zip(), "a ZIP archive"),
    "mcap": (lambda _: _mcap(), "an MCAP file"),
    "rrd": (lambda _: b"RRF2" + bytes(60), "a Rerun .rrd file"),
    "npy": (lambda _: _npy(), "a NumPy .npy file"),
    "gzip": (lambda _: gzip.compress(b"x" * 100), "a gzip stream"),
    "sqlite": (_sqlite, "an SQLite database"),
    "hdf5": (lambda _: b"\x89HDF\r\n\x1a\n" + bytes(56), "an HDF5 file"),
    "short zip": (lambda _: b"PK\x03\x04", "a ZIP archive"),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_foreign_format_is_bad_magic_naming_the_format(
    kind: str, tmp_path: Path, write_file: WriteFile
) -> None:
    """#11: another format renamed ``.fsr``; the message says what it is."""
    make, name = FOREIGN[kind]
    path = write_file(make(tmp_path), f"{kind.replace(' ', '_')}.fsr")

    error = expect_open_error(path, BadMagicError)

    assert name in error.reason
    assert (error.section, error.offset) == ("header", 0)


def test_unknown_bytes_are_bad_magic(write_file: WriteFile) -> None:
    """Bytes that are no known format at all."""
    error = expect_open_error(
        write_file(b"hello world, not a recording at all!"), BadMagicError
    )

    assert error.reason == "bad magic: no FSR magic"


def test_unknown_major_version_is_unsupported(model: FsrFile) -> None:
    """#12: right magic, major version 2 (header CRC correct)."""
    model.major = 2

    error = expect_open_error(model.build(), UnsupportedVersionError)

    assert (error.section, error.offset) == ("header", 8)
    assert "major version 2" in error.reason


def test_newer_minor_with_unknown_fields_is_accepted(model: FsrFile) -> None:
    """#13: a later 1.x writer (minor 3) adds a field this reader does not know."""
    document = model.document
    document["pad"] = {"future": [1, 2, 3], "note": "ignored by 1.2 readers"}
    model.set_document(document)
    model.minor = 3

    result = expect_clean_read(model.build())

    assert result.reader_info["profile"].value == "structural"


def test_unknown_required_feature_is_unsupported(model: FsrFile) -> None:
    """#14: a required feature bit this reader does not implement."""
    model.required_features = 1 << 7

    error = expect_open_error(model.build(), UnsupportedVersionError)

    assert (error.section, error.offset) == ("header", 12)
    assert "0x00000080" in error.reason


def test_unknown_optional_feature_is_ignored(model: FsrFile) -> None:
    """#58 (optional half): an optional feature bit is skipped."""
    model.optional_features = 1 << 9

    expect_clean_read(model.build())


def _with_header(data: bytes, **fields: int) -> bytes:
    """Return ``data`` with header fields replaced (header CRC recomputed)."""
    parsed = FsrFile.parse(data)
    values = {
        "minor": parsed.minor,
        "metadata_length": len(parsed.metadata),
        "metadata_crc": crc32(parsed.metadata),
    }
    values.update(fields)
    return encode_header(**values) + data[HEADER_SIZE:]


def test_metadata_length_past_the_end_is_truncated(valid_bytes: bytes) -> None:
    """#15: a declared length larger than the bytes that remain (under the limit)."""
    data = _with_header(valid_bytes, metadata_length=len(valid_bytes) + 100)

    error = expect_open_error(data, TruncatedFileError)

    assert (error.section, error.offset) == ("metadata", HEADER_SIZE)


@pytest.mark.parametrize("length", [U32_MAX, 1 << 31, (1 << 20) + 1])
def test_huge_metadata_length_is_refused_before_reading(
    valid_bytes: bytes, length: int
) -> None:
    """#16, #30: 4 GiB, 2 GiB and 1 MiB + 1 declared; nothing is allocated."""
    error = expect_open_error(
        _with_header(valid_bytes, metadata_length=length), LimitExceededError
    )

    assert (error.section, error.offset) == ("metadata", 20)
    assert str(length) in error.reason


@pytest.mark.parametrize(
    ("field", "value"),
    [("footer_offset", U64_MAX), ("footer_length", U64_MAX), ("footer_offset", 0)],
)
def test_trailer_fields_at_extremes_are_index_corruption(
    model: FsrFile, field: str, value: int
) -> None:
    """#16: trailer offsets of 2^64-1 or 0 (CRC correct): no ``OverflowError``."""
    model.trailer_fields[field] = value
    data = model.build()

    error = expect_open_error(data, IndexCorruptionError)

    assert (error.section, error.offset) == ("trailer", len(data) - TRAILER_SIZE)


@pytest.mark.parametrize("field", ["batch_count", "record_count"])
def test_footer_counts_at_extremes_are_refused(model: FsrFile, field: str) -> None:
    """#16, #62: the footer declares 2^64-1 batches or records in a 19 KB file."""
    model.footer_fields[field] = U64_MAX
    data = model.build()

    error = expect_open_error(data, LimitExceededError)

    assert (error.section, error.offset) == (
        "footer",
        model.data_start + sum(map(len, model.batches)),
    )


def test_footer_json_length_at_extreme_does_not_add_up(model: FsrFile) -> None:
    """#16: a 4 GiB footer JSON length in a footer of a few KB."""
    model.footer_fields["json_length"] = U32_MAX

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert error.section == "footer"
    assert "do not add up" in error.reason


def test_missing_trailer_is_truncated_strictly_and_recovered_by_scan(
    valid_bytes: bytes, model: FsrFile
) -> None:
    """#17: a crashed writer left every batch but no footer or trailer."""
    data_end = model.data_start + sum(map(len, model.batches))
    unfinished = valid_bytes[:data_end]

    error = expect_open_error(unfinished, TruncatedFileError)
    salvage = expect_clean_read(unfinished, recover=True)

    assert (error.section, error.offset) == ("trailer", data_end)
    assert "did not finish" in error.reason
    assert salvage.recovered is True
    assert salvage.record_count == len(model.entries)
    assert salvage.reader_info["recovery"].reason == "end of file"


@pytest.mark.parametrize("where", ["before data start", "past EOF", "inside a batch"])
def test_misplaced_footer_offset_is_refused_strictly_and_ignored_in_salvage(
    model: FsrFile, where: str
) -> None:
    """#18: the trailer points before the data, past the end, or into a batch.

    Strict: ``IndexCorruptionError`` (the trailer cannot locate the footer), or
    ``CorruptRecordError`` when it does locate a batch instead of a footer.
    Salvage ignores the footer and rebuilds the index by a linear scan.
    """
    intact = model.build()
    footer_offset = model.data_start + sum(map(len, model.batches))
    footer_length = len(intact) - TRAILER_SIZE - footer_offset
    batch_offset = model.batch_offsets()[3]
    if where == "before data start":
        model.trailer_fields["footer_offset"] = 10
    elif where == "past EOF":
        model.trailer_fields["footer_offset"] = len(intact) + 1000
    else:
        model.trailer_fields["footer_offset"] = batch_offset
        model.trailer_fields["footer_length"] = (
            footer_offset + footer_length - batch_offset
        )
    data = model.build()

    expected = CorruptRecordError if where == "inside a batch" else IndexCorruptionError
    error = expect_open_error(data, expected)
    salvage = expect_clean_read(data, recover=True)

    if where == "inside a batch":
        assert (error.section, error.offset) == ("footer", batch_offset)
    else:
        assert (error.section, error.offset) == ("trailer", len(data) - TRAILER_SIZE)
    assert salvage.recovered is True
    assert salvage.record_count == len(model.entries)


@pytest.mark.parametrize("junk", [b"\x00", b"garbage" * 100, bytes(FOOTER_HEADER_SIZE)])
def test_bytes_after_the_trailer_are_counted(valid_bytes: bytes, junk: bytes) -> None:
    """#19: junk is ``FormatError('N bytes after the trailer')``; salvage keeps all."""
    expect_junk_after_trailer(valid_bytes + junk, valid_bytes, len(junk))


def test_two_concatenated_recordings_are_never_merged(
    sweep_fixtures: dict[str, bytes],
) -> None:
    """#20: the first file only; the second is trailing garbage."""
    first, second = sweep_fixtures["structural"], sweep_fixtures["fast"]
    data = first + second

    error = expect_open_error(data, FormatError)
    salvage = expect_clean_read(data, recover=True)

    assert error.reason == f"{len(second)} bytes after the trailer"
    assert salvage.record_count == expect_clean_read(first).record_count
    assert salvage.directory is not None
    assert int(salvage.directory["offset"][-1]) < len(first)
