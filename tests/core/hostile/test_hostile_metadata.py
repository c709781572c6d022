"""Hostile input C (docs/robustness.md): the JSON metadata block (cases 22-36).

Every variant replaces the metadata of a valid recording and rewrites the
header with the right length and metadata CRC (and the rest of the file with
shifted offsets), so the JSON checks are what must fail. Metadata errors carry
``section='metadata'`` and the offset of the metadata block (32).
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from hostile_harness import expect_clean_read, expect_open_error
from hostile_surgery import FsrFile

from fsr_core.errors import FsrError, LimitExceededError, SchemaError
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import HEADER_SIZE


def _metadata_error(model: FsrFile, error: type[FsrError]) -> FsrError:
    found = expect_open_error(model.build(), error)
    assert (found.section, found.offset) == ("metadata", HEADER_SIZE)
    return found


def test_invalid_utf8_is_a_syntax_error_with_its_byte(model: FsrFile) -> None:
    """#22."""
    model.replace_metadata_text(b'"synthetic"', b'"synth\xff\xfeetic"')
    position = model.metadata.index(b"\xff")

    error = _metadata_error(model, SchemaError)

    assert f"not valid UTF-8 (byte {position})" in error.reason


def test_byte_order_mark_is_refused(model: FsrFile) -> None:
    """#23: Python would accept it silently."""
    model.metadata = b"\xef\xbb\xbf" + model.metadata

    error = _metadata_error(model, SchemaError)

    assert "byte order mark" in error.reason


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        (b'{"digest":"sha256",', b'{"digest":"sha256","digest":"sha256",', "digest"),
        (b'"seed":7', b'"seed":7,"seed":8', "seed"),
        (b'{"digest":"sha256",', b'{"\\u0064igest":"md5","digest":"sha256",', "digest"),
        (b'"seed":7', b'"se\\u0065d":7,"seed":7', "seed"),
    ],
    ids=["top-level", "nested", "escaped-top-level", "escaped-nested"],
)
def test_duplicate_keys_are_refused_even_after_unescaping(
    model: FsrFile, old: bytes, new: bytes, key: str
) -> None:
    r"""#24, #25: ``{"a":1,"a":2}`` and ``{"\u0041":1,"A":2}``."""
    model.replace_metadata_text(old, new)

    error = _metadata_error(model, SchemaError)

    assert f"duplicate JSON key {key!r}" in error.reason


@pytest.mark.parametrize(
    "token", [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e999"]
)
def test_non_finite_numbers_are_refused(model: FsrFile, token: bytes) -> None:
    """#26, #27: the constants and the overflowing literals (``parse_float`` check)."""
    model.replace_metadata_text(b'"seed":7', b'"seed":' + token)

    error = _metadata_error(model, SchemaError)

    assert "non-finite JSON number" in error.reason


@pytest.mark.parametrize("digits", [41, 4301, 100_000])
def test_long_number_tokens_are_a_limit_not_a_value_error(
    model: FsrFile, digits: int
) -> None:
    """#28: beyond 40 characters; Python's own 4300-digit guard never fires."""
    model.replace_metadata_text(b'"seed":7', b'"seed":' + b"7" * digits)

    error = _metadata_error(model, LimitExceededError)

    assert "number token longer than 40" in error.reason


def test_number_token_of_exactly_40_characters_is_accepted(model: FsrFile) -> None:
    """#28 at N: the limit is inclusive."""
    model.replace_metadata_text(b'"seed":7', b'"seed":' + b"7" * 40)

    result = expect_clean_read(model.build())

    assert result.fingerprint is not None


def _nest(model: FsrFile, levels: int) -> FsrFile:
    # the document is level 1 and "metadata" level 2, so this reaches 2 + levels
    return model.replace_metadata_text(
        b'"metadata":{', b'"metadata":{"a":' + b"[" * levels + b"]" * levels + b","
    )


@pytest.mark.parametrize("levels", [31, 100_000])
def test_deep_nesting_is_refused_by_the_prescan(model: FsrFile, levels: int) -> None:
    """#29: depth 33 and 100,002; never a ``RecursionError``."""
    error = _metadata_error(_nest(model, levels), LimitExceededError)

    assert "nesting deeper than 32" in error.reason


def test_nesting_of_exactly_32_levels_is_accepted(model: FsrFile) -> None:
    """#29 at N."""
    expect_clean_read(_nest(model, 30).build())


def test_lone_surrogate_is_refused(model: FsrFile) -> None:
    r"""#31: ``"\ud800"`` decodes in Python but is not encodable UTF-8."""
    model.replace_metadata_text(b'"synthetic"', b'"\\ud800"')

    error = _metadata_error(model, SchemaError)

    assert "lone surrogate" in error.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'{"digest":"sha256",', b'{"digest": "sha256", '),
        (b'"digest":"sha256","format":"fsr",', b'"format":"fsr","digest":"sha256",'),
        (b'"seed":7', b'"seed":7e0'),
        (b'"seed":7', b'"seed":7.00'),
        (b'"fsr_core.synthetic/1"', b'"fsr_core.synthetic\\/1"'),
        (b'"synthetic"', b'"synth\\u0065tic"'),
        (b'"format":"fsr"', b'"format":"fsr"\t'),
    ],
    ids=[
        "whitespace",
        "key-order",
        "exponent",
        "trailing-zeros",
        "escaped-slash",
        "needless-escape",
        "tab",
    ],
)
def test_valid_but_non_canonical_json_is_refused(
    model: FsrFile, old: bytes, new: bytes
) -> None:
    """#32: the digest covers the exact bytes, so only the canonical form is valid."""
    model.replace_metadata_text(old, new)

    error = _metadata_error(model, SchemaError)

    assert "not in canonical form" in error.reason or "not canonical" in error.reason


def _stream(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in document["streams"] if s["name"] == name)


def _set_field(
    model: FsrFile, field: str, value: Any, *, stream: str | None = None
) -> dict[str, Any]:
    """Set ``field`` of the metadata document, or of ``stream``'s entry in it.

    Returns the object changed (the document or the stream's entry).
    """
    document = model.document
    target = document if stream is None else _stream(document, stream)
    target[field] = value
    model.set_document(document)
    return target


JOINTS = "observations.robot.joints"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("shape", ["4"]),
        ("shape", [-4]),
        ("shape", [4.0]),
        ("shape", [True]),
        ("shape", 4),
        ("required", "yes"),
        ("finite", 1),
        ("id", "1"),
        ("units", 5),
        ("channels", "q0"),
        ("attributes", []),
    ],
)
def test_wrong_types_in_the_stream_table_name_the_stream(
    model: FsrFile, field: str, value: Any
) -> None:
    """#33: a count as a string, a negative size, a float or ``true`` for an int, ..."""
    stream = _set_field(model, field, value, stream=JOINTS)

    error = _metadata_error(model, SchemaError)

    assert f"/streams/{stream['id']}" in error.reason or JOINTS in error.reason


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("major", "1"),
        ("major", 2),
        ("format", "mcap"),
        ("integrity", "paranoid"),
        ("metadata", []),
    ],
)
def test_wrong_document_fields_are_schema_errors(
    model: FsrFile, field: str, value: Any
) -> None:
    """#33: the top-level fields have fixed types and values."""
    _set_field(model, field, value)

    _metadata_error(model, SchemaError)


@pytest.mark.parametrize(
    "text", [b"[]", b"{}", b'"fsr"', b"null", b"1", b'{"streams":{}}']
)
def test_top_level_that_is_not_a_stream_table_is_refused(
    model: FsrFile, text: bytes
) -> None:
    """#34."""
    model.metadata = text

    _metadata_error(model, SchemaError)


@pytest.mark.parametrize("items", [10_001, 400_000])
def test_arrays_with_too_many_items_are_refused(model: FsrFile, items: int) -> None:
    """#35: beyond 10,000 entries per array (400k is ~800 KB, under the size cap)."""
    model.replace_metadata_text(
        b'"metadata":{', b'"metadata":{"a":[' + b",".join([b"0"] * items) + b"],"
    )

    error = _metadata_error(model, LimitExceededError)

    assert "more than 10000 items" in error.reason


def test_objects_with_too_many_entries_are_refused(model: FsrFile) -> None:
    """#35 for objects."""
    entries = b",".join(b'"k%05d":0' % i for i in range(10_001))
    model.replace_metadata_text(b'"metadata":{', b'"metadata":{"a":{' + entries + b"},")

    error = _metadata_error(model, LimitExceededError)

    assert "more than 10000 entries" in error.reason


def test_array_of_exactly_10000_items_is_accepted(model: FsrFile) -> None:
    """#35 at N."""
    model.replace_metadata_text(
        b'"metadata":{', b'"metadata":{"a":[' + b",".join([b"0"] * 10_000) + b"],"
    )

    expect_clean_read(model.build())


def test_control_characters_in_values_are_data(model: FsrFile) -> None:
    """#36: NUL, C0 and bidi characters in metadata values are accepted and kept."""
    document = model.document
    document["metadata"]["run"]["name"] = "syn\x00th\x1fetic\u202e"
    model.set_document(document)

    with FsrReader.open(io.BytesIO(model.build())) as reader:
        name = reader.metadata["run"]["name"]

    expect_clean_read(model.build())
    assert name == "syn\x00th\x1fetic\u202e"


@pytest.mark.parametrize("algorithm", ["md5", "sha1", "none", "blake3", ""])
def test_unsupported_digest_algorithm_is_refused(
    model: FsrFile, algorithm: str
) -> None:
    """#70: ``md5``, ``sha1``, ``none`` or unknown: never a silent downgrade."""
    _set_field(model, "digest", algorithm)

    error = _metadata_error(model, SchemaError)

    assert f"unsupported digest algorithm {algorithm!r}" in error.reason
