"""Hostile cases 59-72 (docs/robustness.md): index, footer CRCs, integrity profiles.

The footer holds its JSON, the batch directory and the record index, each with
its own CRC in the footer header, which has a CRC of its own; the trailer
locates the footer. Strict opens refuse any disagreement; salvage ignores the
footer and rebuilds everything from the batches (``recovered``).
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import numpy as np
import pytest
from hostile_harness import (
    FullRead,
    expect_clean_read,
    expect_open_error,
    expect_read_errors,
    fingerprint_differences,
)
from hostile_surgery import DIGEST_SIZE, FsrFile, canonical

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    IndexCorruptionError,
    LimitExceededError,
    SchemaError,
    UnsupportedVersionError,
)
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import TRAILER_SIZE, crc32

JOINTS = "observations.robot.joints"
BATCH = 5


def _footer_offset(model: FsrFile) -> int:
    return model.data_start + sum(map(len, model.batches))


def _salvage_keeps_everything(data: bytes, model: FsrFile) -> FullRead:
    salvage = expect_clean_read(data, recover=True)
    assert salvage.recovered is True
    assert salvage.record_count == len(model.entries)
    return salvage


def _directory_with(model: FsrFile, row: int, **fields: int) -> np.ndarray:
    directory = model.directory().copy()
    for name, value in fields.items():
        directory[name][row] = value
    return directory


def _batch_refused(model: FsrFile, error: type[FsrError], **fields: Any) -> FsrError:
    """Edit batch ``BATCH``'s header (CRC fixed); opening fails on that batch."""
    model.edit_batch_header(BATCH, **fields)
    found = expect_open_error(model.build(), error)
    assert (found.section, found.record) == ("batch", BATCH)
    return found


def test_directory_offset_past_the_end_is_refused(model: FsrFile) -> None:
    """#59: a batch listed 1 TB into a 19 KB file (directory CRC correct)."""
    model.directory_override = _directory_with(model, BATCH, offset=10**12)
    data = model.build()

    error = expect_open_error(data, IndexCorruptionError)

    assert error.section == "footer"
    assert "past the data section" in error.reason
    _salvage_keeps_everything(data, model)


@pytest.mark.parametrize("shift", [-8, 8, -1])
def test_overlapping_or_gapped_batches_are_refused(model: FsrFile, shift: int) -> None:
    """#60: the spec forbids overlap, so the check has no false positives."""
    offset = model.batch_offsets()[BATCH]
    model.directory_override = _directory_with(model, BATCH, offset=offset + shift)

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert "overlap, leave gaps, or do not tile" in error.reason


@pytest.mark.parametrize("count", [1 << 32, 10**7 + 1])
def test_index_count_far_beyond_the_footer_is_a_limit(
    model: FsrFile, count: int
) -> None:
    """#62: 2^32 (or just over the 10^7 batch limit) declared in a 19 KB file."""
    model.footer_fields["batch_count"] = count

    error = expect_open_error(model.build(), LimitExceededError)

    assert (error.section, error.offset) == ("footer", _footer_offset(model))


def test_index_count_under_the_limit_must_fit_the_footer(model: FsrFile) -> None:
    """#62: a count within the limits that the footer's length cannot hold."""
    model.footer_fields["record_count"] = 1000

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert "do not add up" in error.reason


def test_index_disagreeing_with_the_batch_table_is_refused_and_rebuilt(
    model: FsrFile, valid_bytes: bytes
) -> None:
    """#63: the footer's copy of an entry differs from the batch's own (CRCs correct).

    Salvage rebuilds the index from the batches: every record as written.
    """
    row = int(model.rows_of(JOINTS)[-1])
    original = int(model.entries["tick"][row])
    entries = model.entries.copy()
    entries["tick"][row] = original + 1000
    data = model.set_entries(entries, tables=False).build()

    error = expect_open_error(data, IndexCorruptionError)
    salvage = _salvage_keeps_everything(data, model)

    assert (error.section, error.record) == ("batch", model.batch_of_row(row))
    assert "own entry table" in error.reason
    intact = expect_clean_read(valid_bytes).fingerprint
    assert salvage.fingerprint is not None
    assert intact is not None
    assert fingerprint_differences(salvage.fingerprint, intact, subset=True) == []


def test_directory_stream_disagreeing_with_the_entries_is_refused(
    model: FsrFile,
) -> None:
    """#63: the directory says stream 2, the batch's entries say 5 (CRCs correct)."""
    directory = model.directory().copy()
    directory["stream_id"][BATCH] = 2
    model.directory_override = directory

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert (error.section, error.record) == ("index", model.first_rows()[BATCH])
    assert error.reason == "index entry names another stream than its batch"


@pytest.mark.parametrize(
    "part", ["footer header", "footer JSON", "directory", "index", "trailer"]
)
def test_footer_and_trailer_crc_mismatches_are_refused_and_salvaged(
    model: FsrFile, part: str
) -> None:
    """#66: each CRC of the footer region; salvage ignores the footer."""
    footer_offset = _footer_offset(model)
    if part == "footer JSON":
        model.footer_fields["json_crc"] = 0
    elif part == "directory":
        model.footer_fields["directory_crc"] = 0
    elif part == "index":
        model.footer_fields["index_crc"] = 0
    data = bytearray(model.build())
    if part == "footer header":
        data[footer_offset + 4 : footer_offset + 8] = bytes(4)
    elif part == "trailer":
        data[-TRAILER_SIZE + 4 : -TRAILER_SIZE + 8] = bytes(4)

    error = expect_open_error(bytes(data), CorruptRecordError)
    _salvage_keeps_everything(bytes(data), model)

    if part == "trailer":
        assert (error.section, error.offset) == ("trailer", len(data) - TRAILER_SIZE)
    else:
        assert (error.section, error.offset) == ("footer", footer_offset)


def _with_footer_document(model: FsrFile, edit: dict[str, object]) -> FsrFile:
    document = json.loads(model.footer_json)
    document.update(edit)
    model.footer_json = canonical(document)
    return model


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        ({"inventory": []}, IndexCorruptionError),
        ({"integrity": {"digest": "md5", "profile": "structural"}}, SchemaError),
        ({"integrity": {"digest": "sha256", "profile": "strong"}}, SchemaError),
        ({"degraded": False}, SchemaError),
        ({"gaps": "none"}, SchemaError),
        ({"calibration": {"digests": ["md5:00"], "epochs": []}}, SchemaError),
    ],
    ids=[
        "inventory",
        "digest-md5",
        "profile",
        "degraded-with-gaps",
        "gaps-type",
        "calibration",
    ],
)
def test_footer_json_disagreeing_with_the_file_is_refused(
    model: FsrFile, edit: dict[str, object], error: type[FsrError]
) -> None:
    """#63, #70: the footer JSON is checked against the index and the header."""
    found = expect_open_error(_with_footer_document(model, edit).build(), error)

    assert found.section == "footer"


def test_footer_json_that_is_not_canonical_is_refused(model: FsrFile) -> None:
    """#32 for the footer JSON (its CRC is correct)."""
    model.footer_json = model.footer_json.replace(
        b'{"calibration":', b'{ "calibration":', 1
    )

    expect_open_error(model.build(), SchemaError)


# ---------------------------------------------------------------- profiles
def test_strong_profile_without_digest_tables_is_refused(model: FsrFile) -> None:
    """#67: a structural file relabelled ``strong`` (metadata and header minor 0)."""
    document = model.document
    document["integrity"] = "strong"
    model.set_document(document)
    model.minor = 0
    model.footer_json = model.footer_json.replace(
        b'"profile":"structural"', b'"profile":"strong"'
    )

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert (error.section, error.reason) == ("footer", "batch shorter than its tables")


def test_strong_digest_table_crc_mismatch_is_refused(
    sweep_fixtures: dict[str, bytes],
) -> None:
    """#67: one batch's digest table does not match its CRC."""
    model = FsrFile.parse(sweep_fixtures["strong"])
    wrong = model.view(BATCH).header.digests_crc ^ 1

    error = _batch_refused(model, CorruptRecordError, digests_crc=wrong)

    assert "digest table" in error.reason


def test_strong_record_digest_mismatch_fails_that_record(
    sweep_fixtures: dict[str, bytes],
) -> None:
    """#68: a record's SHA-256 in the table is wrong (table CRC fixed)."""
    model = FsrFile.parse(sweep_fixtures["strong"])
    row = int(model.rows_of(JOINTS)[2])
    batch = model.batch_of_row(row)
    view = model.view(batch)
    index = row - model.first_rows()[batch]
    digests = bytearray(view.digests)
    digests[index * DIGEST_SIZE] ^= 0xFF
    header = dataclasses.replace(view.header, digests_crc=crc32(bytes(digests)))
    model.batches[batch] = dataclasses.replace(
        view, header=header, digests=bytes(digests)
    ).encode()

    problems = expect_read_errors(model.build(), CorruptRecordError)

    assert [(p.stream, p.record) for p in problems] == [(JOINTS, 2)]
    assert problems[0].reason == "record fails its SHA-256"


def test_fast_batch_without_its_body_digest_is_refused(
    sweep_fixtures: dict[str, bytes],
) -> None:
    """#72: ``fast`` requires a SHA-256 per batch; a zero digest is "missing"."""
    model = FsrFile.parse(sweep_fixtures["fast"])

    error = _batch_refused(model, SchemaError, body_sha256=bytes(DIGEST_SIZE))

    assert "fast profile but the batch carries no body digest" in error.reason


def test_fast_batch_body_digest_mismatch_fails_its_records(
    sweep_fixtures: dict[str, bytes],
) -> None:
    """#68 for ``fast``: the batch digest is checked when its records are read."""
    model = FsrFile.parse(sweep_fixtures["fast"])
    wrong = bytes(DIGEST_SIZE - 1) + b"\x01"
    model.edit_batch_header(BATCH, body_sha256=wrong)

    problems = expect_read_errors(model.build(), CorruptRecordError)

    assert {(p.section, p.record, p.reason) for p in problems} == {
        ("batch", BATCH, "batch body fails its SHA-256")
    }


@pytest.mark.parametrize("profile", ["structural", "strong"])
def test_body_digest_outside_the_fast_profile_is_refused(
    sweep_fixtures: dict[str, bytes], profile: str
) -> None:
    """#72 reversed: a digest where the profile says there is none is not ignored."""
    model = FsrFile.parse(sweep_fixtures[profile])

    _batch_refused(model, SchemaError, body_sha256=b"\x01" * DIGEST_SIZE)


@pytest.mark.parametrize(
    ("declared", "minor"), [("fast", 2), ("strong", 1), ("structural", 0)]
)
def test_profile_disagreeing_with_the_binary_minor_is_refused(
    model: FsrFile, declared: str, minor: int
) -> None:
    """#67, #72: the metadata names one profile, the header's minor another."""
    document = model.document
    document["integrity"] = declared
    model.set_document(document)
    model.minor = minor

    error = expect_open_error(model.build(), UnsupportedVersionError)

    assert (error.section, error.offset) == ("header", 10)


def test_structural_profile_never_reports_verified(valid_bytes: bytes) -> None:
    """#71: structural records open and read, but none is ``verified``."""
    with FsrReader.open(io.BytesIO(valid_bytes)) as reader:
        verified = {record.verified for record in reader.iter_records()}
        frames = {frame.verified for frame in reader.iter_media()}

    assert verified == {False}
    assert frames == {False}


@pytest.mark.parametrize("profile", ["fast", "strong"])
def test_fast_and_strong_records_are_verified(
    sweep_fixtures: dict[str, bytes], profile: str
) -> None:
    """#71 counterpart: digest profiles report every record as verified."""
    with FsrReader.open(io.BytesIO(sweep_fixtures[profile])) as reader:
        verified = {record.verified for record in reader.iter_records()}

    assert verified == {True}


def test_structural_payload_flip_is_still_caught_by_the_record_crc(
    model: FsrFile,
) -> None:
    """#71: "unverified" is not "unchecked": every record carries a CRC-32."""
    row = int(model.rows_of("sensors.overview.camera.rgb")[1])
    data = bytearray(model.build())
    data[model.payload_offset(row) + 40] ^= 0x01

    problems = expect_read_errors(bytes(data), CorruptRecordError)

    assert ("sensors.overview.camera.rgb", 1) in [
        (p.stream, p.record) for p in problems
    ]
