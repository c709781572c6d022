"""Keep docs/format.md honest: its tables and worked examples must match the code.

The specification marks every machine-checked table or block with an HTML
comment (``<!-- fsr-struct: BatchHeader -->``, ``<!-- fsr-magic -->`` ...) on the
line right before it. Structure tables have the columns ``Offset | Size | Type |
Field | ...``; the tests below re-encode each structure with the code and read
every documented field back at its documented offset.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.calibration import CalibrationProfile, calibration_digest
from fsr_core.canonical_json import canonical_dumps
from fsr_core.format import records
from fsr_core.format.profiles import IntegrityProfile, minor_for
from fsr_core.format.streams import (
    CODECS_BY_KIND,
    DTYPES,
    StreamKind,
    StreamSpec,
    check_stream_table,
)

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "format.md"
DOC_LINES = DOC_PATH.read_text(encoding="utf-8").splitlines()

# Documented scalar types -> struct codes.
SCALARS = {"u16": "<H", "u32": "<I", "u64": "<Q", "i64": "<q", "f64": "<d"}
BYTES_TYPE = re.compile(r"bytes\[(\d+)\]")
CRC_RANGE = re.compile(r"CRC-32 of bytes \[(\d+), (\d+)\)")


def _distinct(index: int, size: int) -> int:
    """Return a ``size``-byte value with its top bit set, distinct per ``index``.

    Field 0 gets the bytes ``81 02 03 ...``, field 1 ``91 12 13 ...`` and so on.
    """
    first = 0x81 + 0x10 * index
    rest = bytes(0x02 + 0x10 * index + i for i in range(size - 1))
    return int.from_bytes(bytes([first]) + rest, "big")


def _sample(cls: type[Any], *sizes: int, **fixed: Any) -> Any:
    """Return a ``cls`` whose integer fields all differ and have their top bit set.

    ``sizes`` are the widths of those fields in declaration order; ``fixed``
    gives the other fields.
    """
    names = [f.name for f in dataclasses.fields(cls) if f.name not in fixed]
    assert len(names) == len(sizes), cls.__name__
    values = {
        name: _distinct(i, size)
        for i, (name, size) in enumerate(zip(names, sizes, strict=True))
    }
    return cls(**values, **fixed)


# One instance of each fixed structure: every field a distinct value with its top
# bit set, so a field documented at the wrong offset, width or signedness reads
# back differently.
SAMPLES: dict[str, Any] = {
    "FileHeader": _sample(records.FileHeader, 2, 4, 4, 4, 4),
    "BatchHeader": _sample(
        records.BatchHeader,
        8,
        8,
        4,
        4,
        4,
        4,
        4,
        4,
        body_sha256=bytes(range(0x80, 0xA0)),
    ),
    "FooterHeader": _sample(records.FooterHeader, 8, 8, 4, 4, 4, 4, 8),
    "Trailer": _sample(records.Trailer, 8, 8),
}
SIZES = {
    "FileHeader": records.HEADER_SIZE,
    "BatchHeader": records.BATCH_HEADER_SIZE,
    "FooterHeader": records.FOOTER_HEADER_SIZE,
    "Trailer": records.TRAILER_SIZE,
}
MAGICS = {
    "FileHeader": records.FILE_MAGIC,
    "BatchHeader": records.BATCH_MAGIC,
    "FooterHeader": records.FOOTER_MAGIC,
    "Trailer": records.TRAILER_MAGIC,
}


def _marker_line(marker: str) -> int:
    tag = f"<!-- {marker} -->"
    found = [i for i, line in enumerate(DOC_LINES) if line.strip() == tag]
    assert len(found) == 1, f"{tag} must appear exactly once in {DOC_PATH.name}"
    return found[0]


def _cell(text: str) -> str:
    return text.strip().strip("`").strip()


def table(marker: str) -> list[list[str]]:
    """Return the body rows of the table right after ``marker`` (cells stripped)."""
    lines = DOC_LINES[_marker_line(marker) + 1 :]
    rows: list[list[str]] = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([_cell(c) for c in line.strip().strip("|").split(" | ")])
    assert len(rows) > 2, f"no table after <!-- {marker} -->"
    return rows[2:]  # drop the header and the |---| separator


def block(marker: str) -> str:
    """Return the contents of the fenced code block right after ``marker``."""
    lines = DOC_LINES[_marker_line(marker) + 1 :]
    assert lines[0].startswith("```"), f"no fenced block after <!-- {marker} -->"
    end = lines.index("```", 1)
    return "\n".join(lines[1:end])


def hex_dump(marker: str) -> bytes:
    """Parse an ``xxd`` dump block (``offset: hex groups  ascii``)."""
    data = b""
    for line in block(marker).splitlines():
        _, rest = line.split(": ", 1)
        data += bytes.fromhex(rest.split("  ")[0])
    return data


def struct_rows(name: str) -> list[tuple[int, int, str, str, str]]:
    """(offset, size, type, field, description) rows; offsets must be contiguous."""
    rows = []
    position = 0
    for cells in table(f"fsr-struct: {name}"):
        offset, size, kind, field = int(cells[0]), int(cells[1]), cells[2], cells[3]
        assert offset == position, f"{name}.{field}: offset {offset}, not {position}"
        match = BYTES_TYPE.fullmatch(kind)
        width = int(match.group(1)) if match else struct.calcsize(SCALARS[kind])
        assert width == size, f"{name}.{field}: type {kind} is not {size} bytes"
        rows.append((offset, size, kind, field, " | ".join(cells[4:])))
        position += size
    return rows


def _expected_fields(name: str) -> dict[str, Any]:
    expected = dataclasses.asdict(SAMPLES[name])
    expected["magic"] = MAGICS[name]
    if name == "FileHeader":
        expected["major"] = records.FORMAT_MAJOR
    if name == "Trailer":
        expected["end_marker"] = records.TRAILER_END
    return expected


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_fixed_structure_table_matches_encoding(name: str) -> None:
    sample = SAMPLES[name]
    data = sample.encode()
    assert len(data) == SIZES[name]
    decoded = (
        records.FileHeader.decode(data)
        if name == "FileHeader"
        else type(sample).decode(data, offset=0)
    )
    assert decoded == sample
    rows = struct_rows(name)
    assert rows[-1][0] + rows[-1][1] == SIZES[name]
    expected = _expected_fields(name)
    assert {row[3] for row in rows} == {*expected, "header_crc"}
    for offset, size, kind, field, description in rows:
        raw = data[offset : offset + size]
        value = (
            raw if kind.startswith("bytes") else struct.unpack(SCALARS[kind], raw)[0]
        )
        if field == "header_crc":
            match = CRC_RANGE.search(description)
            assert match, f"{name}: the CRC row must say 'CRC-32 of bytes [a, b)'"
            start, end = int(match.group(1)), int(match.group(2))
            assert value == records.crc32(data[start:end]), (
                f"{name}: CRC range [{start}, {end})"
            )
        else:
            assert value == expected[field], f"{name}.{field} at offset {offset}"


@pytest.mark.parametrize("name", ["ENTRY_DTYPE", "DIRECTORY_DTYPE"])
def test_index_dtype_table_matches_numpy_dtype(name: str) -> None:
    dtype: np.dtype[Any] = getattr(records, name)  # documented under its own name
    rows = struct_rows(name)
    assert [row[3] for row in rows] == list(dtype.names or ())
    for offset, _size, kind, field, _ in rows:
        assert dtype.fields is not None
        assert dtype.fields[field] == (np.dtype(SCALARS[kind]), offset), field
    assert rows[-1][0] + rows[-1][1] == dtype.itemsize
    assert records.ENTRY_SIZE == records.ENTRY_DTYPE.itemsize == 64
    assert records.DIRECTORY_DTYPE.itemsize == 32


def test_documented_magic_numbers_are_the_constants() -> None:
    rows = table("fsr-magic")
    names = {
        "FILE_MAGIC",
        "BATCH_MAGIC",
        "FOOTER_MAGIC",
        "TRAILER_MAGIC",
        "TRAILER_END",
    }
    assert {row[0] for row in rows} == names
    for name, hex_bytes, ascii_text, *_ in rows:
        value = getattr(records, name)
        assert bytes.fromhex(hex_bytes) == value, name
        assert (
            ascii_text.encode("ascii").decode("unicode_escape").encode("latin-1")
            == value
        )


def test_documented_profiles_and_minors() -> None:
    rows = table("fsr-profiles")
    assert {row[0] for row in rows} == {p.value for p in IntegrityProfile}
    for profile, minor, *_ in rows:
        assert minor_for(IntegrityProfile(profile)) == int(minor), profile


def test_documented_codecs_per_kind() -> None:
    rows = table("fsr-codecs")
    documented = {
        StreamKind(kind): {_cell(c) for c in codecs.split(",")}
        for kind, codecs, *_ in rows
    }
    assert documented == {kind: set(codecs) for kind, codecs in CODECS_BY_KIND.items()}


def test_documented_dtypes() -> None:
    rows = table("fsr-dtypes")
    assert {row[0] for row in rows} == set(DTYPES)
    for name, numpy_name, size in rows:
        assert np.dtype(numpy_name) == DTYPES[name], name
        assert int(size.split()[0]) == DTYPES[name].itemsize, name


def _resolve(location: str) -> Any:
    module_name, path = location.split(":")
    value: Any = importlib.import_module(module_name)
    for part in path.split("."):
        value = getattr(value, part.removesuffix("()"))
        if part.endswith("()"):
            value = value()
    return value


def test_documented_limits() -> None:
    for _limit, value, _where, location in table("fsr-limits"):
        assert _resolve(location) == int(value), location


def test_crc_check_value() -> None:
    assert records.crc32(b"123456789") == 0xCBF43926
    assert any("0xCBF43926" in line for line in DOC_LINES)


def test_header_and_metadata_examples_agree() -> None:
    header = records.FileHeader.decode(hex_dump("fsr-example: header-hex"))
    document = json.loads(block("fsr-example: metadata"))
    canonical = canonical_dumps(document)
    assert len(canonical) == header.metadata_length
    assert records.crc32(canonical) == header.metadata_crc
    assert (document["format"], document["major"], document["digest"]) == (
        "fsr",
        1,
        "sha256",
    )
    assert minor_for(IntegrityProfile(document["integrity"])) == header.minor
    specs = [
        StreamSpec.from_json(e, index=i) for i, e in enumerate(document["streams"])
    ]
    check_stream_table(specs)


def test_trailer_example_decodes() -> None:
    data = hex_dump("fsr-example: trailer-hex")
    assert len(data) == records.TRAILER_SIZE
    trailer = records.Trailer.decode(data, offset=0)
    assert trailer.footer_offset > 0
    assert trailer.footer_length > records.FOOTER_HEADER_SIZE


def test_calibration_digest_example() -> None:
    text = block("fsr-example: calibration-profile")
    digest = block("fsr-example: calibration-digest").strip()
    profile = CalibrationProfile.from_json(json.loads(text))
    assert canonical_dumps(profile.to_json()) == text.encode("utf-8")
    assert digest == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert calibration_digest(profile) == digest
