"""Hostile input D and 82 (docs/robustness.md): stream table and names (37-43, 82).

The stream table lives in the metadata, so each defect is a canonical metadata
document with correct CRCs; where a stream is renamed, the footer that names
it is rewritten too, so only the name itself can be at fault.
"""

from __future__ import annotations

from typing import Any

import pytest
from hostile_harness import expect_clean_read, expect_open_error
from hostile_surgery import FsrFile

from fsr_core.errors import (
    FsrError,
    IndexCorruptionError,
    LimitExceededError,
    SchemaError,
)
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.records import HEADER_SIZE

JOINTS = "observations.robot.joints"
EVENTS = "events"


def _stream(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in document["streams"] if s["name"] == name)


def _edit_stream(model: FsrFile, name: str, **fields: Any) -> FsrFile:
    document = model.document
    _stream(document, name).update(fields)
    return model.set_document(document)


def _metadata_error(model: FsrFile, error: type[FsrError]) -> FsrError:
    found = expect_open_error(model.build(), error)
    assert (found.section, found.offset) == ("metadata", HEADER_SIZE)
    return found


def test_duplicate_stream_id_is_refused(model: FsrFile) -> None:
    """#37: ids must be 0, 1, 2, ... in table order."""
    _edit_stream(model, JOINTS, id=0)

    error = _metadata_error(model, SchemaError)

    assert "/streams/1/id is 0, expected 1" in error.reason


def test_duplicate_stream_name_is_refused(model: FsrFile) -> None:
    """#37 by name."""
    model.rename_stream(EVENTS, JOINTS)

    error = _metadata_error(model, SchemaError)

    assert f"duplicate stream name {JOINTS!r}" in error.reason


@pytest.mark.parametrize(
    "shape", [[1 << 40, 1 << 40, 3], [(1 << 28) + 1], [1 << 20, 1 << 20]]
)
def test_shape_product_over_the_cap_is_a_limit(
    model: FsrFile, shape: list[int]
) -> None:
    """#39: computed with Python ints, refused before any allocation."""
    _edit_stream(model, JOINTS, shape=shape)

    error = _metadata_error(model, LimitExceededError)

    assert "elements per record exceed" in error.reason


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        ([1] * 33, "rank 33 exceeds 32"),
        ([0], "positive integers"),
        ([-4], "positive integers"),
        ([4, 0], "positive"),
    ],
)
def test_rank_over_32_and_non_positive_dims_are_refused(
    model: FsrFile, shape: list[int], words: str
) -> None:
    """#40 (HDF5 CVE-2018-17439)."""
    _edit_stream(model, JOINTS, shape=shape)

    error = _metadata_error(model, SchemaError)

    assert words in error.reason


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        (JOINTS, {"codec": "pickle"}),
        (JOINTS, {"codec": "npy", "dtype": "O"}),
        (EVENTS, {"codec": "pickle"}),
        ("render.state", {"codec": "npz"}),
        ("sensors.overview.camera.rgb", {"codec": "gif"}),
    ],
)
def test_forbidden_or_unknown_codec_is_refused(
    model: FsrFile, name: str, fields: dict[str, Any]
) -> None:
    """#41: nothing is ever unpickled; codecs come from a per-kind allow-list."""
    _edit_stream(model, name, **fields)

    error = _metadata_error(model, SchemaError)

    assert f"codec {fields['codec']!r} is not allowed" in error.reason


@pytest.mark.parametrize(
    "dtype", ["O", "V8", "M8[s]", ">f8", "<f8", "float128", "object", "complex64"]
)
def test_dtype_outside_the_allow_list_is_refused(model: FsrFile, dtype: str) -> None:
    """#42: only the little-endian numeric names of ``streams.DTYPES``."""
    _edit_stream(model, JOINTS, dtype=dtype)

    error = _metadata_error(model, SchemaError)

    assert f"dtype {dtype!r} is not allowed" in error.reason


def test_zero_streams_with_batches_present_is_index_corruption(model: FsrFile) -> None:
    """#43: the records name streams the (empty) table does not declare."""
    document = model.document
    document["streams"] = []
    model.set_document(document)

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert "only 0 declared" in error.reason
    assert error.section == "index"


def test_stream_count_over_the_limit_is_refused(
    model: FsrFile, valid_bytes: bytes
) -> None:
    """``max_streams`` at N opens, at N + 1 is refused before the table is parsed."""
    count = len(model.document["streams"])

    expect_clean_read(valid_bytes, limits=ReaderLimits(max_streams=count))
    error = expect_open_error(
        valid_bytes, LimitExceededError, limits=ReaderLimits(max_streams=count - 1)
    )

    assert f"{count} streams exceed the limit of {count - 1}" in error.reason
    assert (error.section, error.offset) == ("metadata", HEADER_SIZE)


BAD_NAMES = {
    "bidi override": "\u202eevents",
    "zero width space": "ev\u200bents",
    "zero width joiner": "ev\u200dents",
    "parent path": "../events",
    "absolute path": "/events",
    "backslash": "a\\events",
    "colon": "c:events",
    "NFC composed": "caf\u00e9",
    "NFD decomposed": "cafe\u0301",
    "NUL": "ev\x00ents",
    "C1 control": "ev\x85ents",
    "space": "my events",
    "leading dot": ".events",
    "leading dash": "-events",
    "empty": "",
    "257 bytes": "e" * 257,
    "fullwidth": "\uff45vents",
}


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_hostile_stream_names_are_refused(model: FsrFile, case: str) -> None:
    """#82: bidi, zero-width, path-like, non-ASCII (so no NFC twins), over 256 bytes."""
    model.rename_stream(EVENTS, BAD_NAMES[case])

    error = _metadata_error(model, SchemaError)

    assert "stream name" in error.reason


def test_nfc_twins_cannot_both_be_declared(model: FsrFile) -> None:
    r"""#82: ``é`` and ``e\u0301`` are NFC duplicates; neither is a valid name."""
    model.rename_stream(EVENTS, "caf\u00e9").rename_stream("task.context", "cafe\u0301")

    error = _metadata_error(model, SchemaError)

    assert error.reason.startswith("/streams/7: stream name")


def test_name_of_exactly_256_bytes_is_accepted(model: FsrFile) -> None:
    """#82 at N."""
    name = "e" * 256
    model.rename_stream(EVENTS, name)

    result = expect_clean_read(model.build())

    assert result.fingerprint is not None
    assert any(key.startswith(f"record/{name}/") for key in result.fingerprint)


@pytest.mark.parametrize("name", ["CON", "NUL", "aux.txt", "LPT1"])
def test_windows_reserved_names_are_plain_stream_names(
    model: FsrFile, name: str
) -> None:
    """#82: names are never used as paths, so reserved device names are harmless."""
    model.rename_stream(EVENTS, name)

    result = expect_clean_read(model.build())

    assert result.fingerprint is not None
    assert f"record/{name}/0" in result.fingerprint


def test_megabyte_name_is_refused_as_oversized_metadata(model: FsrFile) -> None:
    """#82: a 1 MB name makes the metadata itself exceed its 1 MiB limit."""
    model.rename_stream(EVENTS, "e" * (1 << 20))

    error = expect_open_error(model.build(), LimitExceededError)

    assert (error.section, error.offset) == ("metadata", 20)  # the length field
    assert "exceeds the limit" in error.reason


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("sensors.overview.camera.rgb", {"camera": "../overview"}),
        ("sensors.overview.camera.rgb", {"camera": "\u202eoverview"}),
        (JOINTS, {"channels": ["q0", "q\u200b1", "dq0", "dq1"]}),
        (JOINTS, {"channels": ["q0", "q0", "dq0", "dq1"]}),
        (JOINTS, {"units": ["rad", "rad", "rad/s", "rad/s\x00"]}),
        (JOINTS, {"camera": "overview"}),
    ],
)
def test_hostile_camera_channel_and_unit_names_are_refused(
    model: FsrFile, name: str, fields: dict[str, Any]
) -> None:
    """#82 for the other names a stream carries."""
    _edit_stream(model, name, **fields)

    _metadata_error(model, SchemaError)
