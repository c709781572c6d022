"""Hostile input E (docs/robustness.md): batches and records (cases 38, 44-57, 69).

A batch is FSR's chunk: an 80-byte header (CRC over every field, a sequence
number), the records' entry table, (``strong``) their digests, then the body.
Each case is checked strictly and, where the catalogue defines it, with
``recover=True`` (salvage), which must keep exactly the batches before the bad
one.
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hostile_builders import render_recording, stream_recording
from hostile_harness import (
    FullRead,
    expect_clean_read,
    expect_open_error,
    expect_read_errors,
    traced_peak,
)
from hostile_surgery import FsrFile, canonical

from fsr_core.errors import (
    CorruptRecordError,
    DecodeError,
    FsrError,
    IndexCorruptionError,
    LimitExceededError,
    TruncatedFileError,
)
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.payloads import pack_arrays
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import BATCH_HEADER_SIZE, ENTRY_SIZE

JOINTS = "observations.robot.joints"
BATCH = 5  # the sweep recording's camera translation batch (3 records)


def _salvage_keeps(data: bytes, batches: int) -> FullRead:
    """Salvage must open ``data`` with exactly its first ``batches`` batches."""
    salvage = expect_clean_read(data, recover=True)
    assert salvage.recovered is True
    assert salvage.directory is not None
    assert len(salvage.directory) == batches
    return salvage


def _unsealed(model: FsrFile) -> bytes:
    """Return the batches without footer and trailer (a crashed writer's file)."""
    return model.build()[: model.data_start + sum(map(len, model.batches))]


def test_batch_naming_an_undeclared_stream_is_refused(model: FsrFile) -> None:
    """#38: header, directory and entries agree on stream id 99; the table has 14."""
    first, count = model.first_rows()[BATCH], model.view(BATCH).header.record_count
    model.edit_batch_header(BATCH, stream_id=99)
    entries = model.entries.copy()
    entries["stream_id"][first : first + count] = 99
    data = model.set_entries(entries).build()

    error = expect_open_error(data, IndexCorruptionError)
    salvage = _salvage_keeps(data, BATCH)

    assert "stream id 99" in error.reason
    assert error.section == "index"
    assert "batch names stream id 99" in salvage.reader_info["recovery"].reason


def test_batch_declaring_a_huge_body_past_the_end_is_never_allocated(
    model: FsrFile,
) -> None:
    """#44: a 60 MiB body declared (CRC correct); the file ends after the table."""
    view = model.view(BATCH)
    count = view.header.record_count
    body = 60 << 20
    model.edit_batch_header(
        BATCH,
        body_length=body,
        total_length=BATCH_HEADER_SIZE + count * ENTRY_SIZE + body,
    )
    cut = model.batch_offsets()[BATCH] + BATCH_HEADER_SIZE + count * ENTRY_SIZE
    data = model.build()[:cut]

    error = expect_open_error(data, TruncatedFileError)
    salvage, peak = traced_peak(lambda: _salvage_keeps(data, BATCH))

    assert error.section == "trailer"
    assert (
        salvage.reader_info["recovery"].reason == "batch runs past the end of the file"
    )
    assert peak < 8 << 20


@pytest.mark.parametrize("length", [0, 1, BATCH_HEADER_SIZE - 1, BATCH_HEADER_SIZE])
def test_batch_length_smaller_than_its_parts_is_refused(
    model: FsrFile, length: int
) -> None:
    """#45: a length of 0, or not even the header (header CRC correct)."""
    model.edit_batch_header(BATCH, total_length=length)
    data = model.build()
    offset = model.batch_offsets()[BATCH]

    error = expect_open_error(data, IndexCorruptionError)
    salvage = _salvage_keeps(_unsealed(model), BATCH)

    assert (error.section, error.record, error.offset) == ("batch", BATCH, offset)
    assert (
        f"batch length {length} does not match"
        in salvage.reader_info["recovery"].reason
    )


def test_flipped_payload_bit_fails_its_record_crc_on_read(model: FsrFile) -> None:
    """#46, #65: opens (payloads are not read to open); the record fails when read."""
    row = int(model.rows_of(JOINTS)[3])
    position = model.payload_offset(row) + 5
    data = bytearray(model.build())
    data[position] ^= 0x10

    problems = expect_read_errors(bytes(data), CorruptRecordError)

    assert [(p.stream, p.record, p.offset) for p in problems] == [
        (JOINTS, 3, model.record_offset(row))
    ]
    assert problems[0].reason == "record fails its CRC"


def test_flipped_payload_bit_in_an_unsealed_file_stops_salvage_at_its_batch(
    model: FsrFile,
) -> None:
    """#46 salvage: batches before the damaged one are kept, nothing after it."""
    row = int(model.rows_of(JOINTS)[3])
    batch = model.batch_of_row(row)
    data = bytearray(_unsealed(model))
    data[model.payload_offset(row) + 5] ^= 0x10

    salvage = _salvage_keeps(bytes(data), batch)

    assert (
        salvage.reader_info["recovery"].reason == "record 3 of the batch fails its CRC"
    )


HEADER_FIELDS = {
    "magic": 0,
    "crc": 4,
    "batch_seq": 8,
    "total_length": 16,
    "stream_id": 24,
    "record_count": 28,
    "generation": 32,
    "body_length": 36,
    "table_crc": 40,
    "digests_crc": 44,
    "body_sha256": 48,
    "last byte": 79,
}


@pytest.mark.parametrize("field", sorted(HEADER_FIELDS))
def test_flipped_bit_in_any_batch_header_field_is_detected(
    model: FsrFile, field: str
) -> None:
    """#47: every header field is CRC-covered; never a misframed "valid" batch."""
    offset = model.batch_offsets()[BATCH]
    data = bytearray(model.build())
    data[offset + HEADER_FIELDS[field]] ^= 0x04
    unsealed = bytes(data[: model.data_start + sum(map(len, model.batches))])

    error = expect_open_error(bytes(data), CorruptRecordError)
    salvage = _salvage_keeps(unsealed, BATCH)

    assert (error.section, error.offset) == ("batch", offset)
    assert salvage.record_count == model.first_rows()[BATCH]


def test_zeroed_batch_header_crc_is_a_mismatch_not_absent(model: FsrFile) -> None:
    """#48: the profile says CRCs are present, so zero is not "no CRC"."""
    offset = model.batch_offsets()[BATCH]
    data = bytearray(model.build())
    data[offset + 4 : offset + 8] = bytes(4)

    error = expect_open_error(bytes(data), CorruptRecordError)

    assert (error.section, error.offset) == ("batch", offset)
    assert "CRC" in error.reason


def test_of_two_damaged_batches_the_open_names_the_first(model: FsrFile) -> None:
    """The open checks every batch header at once; the error is the first batch's.

    The later batch's fault (a bad magic) is checked before the earlier one's
    (a CRC) within a batch, so only batch order decides which one is reported.
    """
    first, later = model.batch_offsets()[1], model.batch_offsets()[BATCH]
    data = bytearray(model.build())
    data[later : later + 4] = b"XXXX"
    data[first + HEADER_FIELDS["generation"]] ^= 0x04

    error = expect_open_error(bytes(data), CorruptRecordError)

    assert (error.section, error.offset, error.record) == ("batch", first, 1)
    assert "CRC" in error.reason


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("table byte", "footer index differs from the batch's own entry table"),
        ("table CRC", "batch entry table fails its CRC"),
    ],
)
def test_a_batch_table_unlike_the_index_or_its_crc_is_refused_at_open(
    model: FsrFile, fault: str, reason: str
) -> None:
    """The entry table must equal the footer's index rows and match its own CRC."""
    offset = model.batch_offsets()[BATCH]
    data = bytearray(model.build())
    if fault == "table byte":
        data[offset + BATCH_HEADER_SIZE + 8] ^= 0x01  # the first entry's capture_seq
    else:
        data[offset + HEADER_FIELDS["table_crc"]] ^= 0x01
        header_crc = zlib.crc32(bytes(data[offset + 8 : offset + BATCH_HEADER_SIZE]))
        data[offset + 4 : offset + 8] = struct.pack("<I", header_crc)

    error = expect_open_error(bytes(data), IndexCorruptionError)

    assert (error.section, error.offset, error.record) == ("batch", offset, BATCH)
    assert error.reason == reason


def test_zeroed_record_crc_fails_that_record(model: FsrFile) -> None:
    """#48 for a record CRC (zeroed in the table and the index, both CRCs fixed)."""
    row = int(model.rows_of(JOINTS)[1])
    entries = model.entries.copy()
    entries["record_crc"][row] = 0

    problems = expect_read_errors(
        model.set_entries(entries).build(), CorruptRecordError
    )

    assert [(p.stream, p.record) for p in problems] == [(JOINTS, 1)]


def _arrays_payload() -> tuple[bytes, int]:
    return pack_arrays({"q": np.arange(4, dtype=np.float64)})


def _render_read(
    tmp_path: Path, payload: bytes, raw_length: int, error: type[FsrError]
) -> tuple[FsrError, int]:
    """Read a render-state file whose record 1 is ``payload``: its error, peak."""
    good = _arrays_payload()
    data = render_recording(
        tmp_path / "render.fsr", [good, (payload, raw_length), good]
    )
    problems, peak = traced_peak(lambda: expect_read_errors(data, error))
    assert [(p.stream, p.record) for p in problems] == [("render.state", 1)]
    return problems[0], peak


def test_declared_4_gib_uncompressed_is_refused_before_decompression(
    tmp_path: Path,
) -> None:
    """#49: the declared size alone is over the 256 MiB cap; nothing is inflated."""
    payload, _ = _arrays_payload()

    error, peak = _render_read(tmp_path, payload, (1 << 32) - 1, LimitExceededError)

    assert "declared uncompressed size 4294967295" in error.reason
    assert peak < 4 << 20


def test_zlib_bomb_stops_at_the_declared_size(tmp_path: Path) -> None:
    """#50: 16 MiB of zeros (about 1000:1) declared as 100 bytes."""
    bomb = zlib.compress(bytes(16 << 20), 9)

    error, peak = _render_read(tmp_path, bomb, 100, LimitExceededError)

    assert "exceeds the declared 100 bytes" in error.reason
    assert peak < 4 << 20


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p, n: (p, n + 100), "declared"),
        (lambda p, n: (p[:-6], n), "ends early"),
        (lambda p, n: (p + b"junk", n), "bytes follow the end"),
        (lambda p, n: (p + p, n), "bytes follow the end"),
        (lambda p, n: (b"\x78\x9c" + bytes(20), n), "corrupt"),
    ],
    ids=["short-output", "truncated-stream", "trailing-data", "two-members", "corrupt"],
)
def test_zlib_stream_defects_are_decode_errors(
    tmp_path: Path, make: Callable[[bytes, int], tuple[bytes, int]], words: str
) -> None:
    """#51 (output shorter than declared), #52 (data after the end), corruption."""
    payload, raw_length = make(*_arrays_payload())

    error, _ = _render_read(tmp_path, payload, raw_length, DecodeError)

    assert words in error.reason


def _nested(levels: int) -> object:
    value: object = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _packed(manifest: object, tail: bytes = b"") -> tuple[bytes, int]:
    head = canonical(manifest)
    raw = struct.pack("<I", len(head)) + head + tail
    return zlib.compress(raw), len(raw)


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (
            _packed(
                {"arrays": [{"name": "x", "dtype": "float64", "shape": [1 << 40]}]}
            ),
            DecodeError,
        ),
        (
            _packed({"arrays": [{"name": "x", "dtype": "O", "shape": [1]}]}, bytes(8)),
            DecodeError,
        ),
        (
            _packed({"arrays": [{"name": "x", "dtype": "float64", "shape": [-1]}]}),
            DecodeError,
        ),
        (
            _packed({"arrays": [{"name": "x", "dtype": "float64", "shape": [1] * 33}]}),
            DecodeError,
        ),
        (
            _packed(
                {"arrays": [{"name": "x", "dtype": "uint8", "shape": [2]}]}, bytes(3)
            ),
            DecodeError,
        ),
        (_packed({"arrays": {}}), DecodeError),
        (_packed(_nested(40)), LimitExceededError),
        ((zlib.compress(b"\xff\xff\xff\x7f{}"), 6), DecodeError),
        ((zlib.compress(b"\x01"), 1), DecodeError),
    ],
    ids=[
        "2^40-elements",
        "object-dtype",
        "negative-dim",
        "rank-33",
        "extra-bytes",
        "no-list",
        "deep",
        "huge-manifest-length",
        "short",
    ],
)
def test_hostile_packed_array_manifests_are_refused(
    tmp_path: Path, payload: tuple[bytes, int], error: type[FsrError]
) -> None:
    """#53 for packed arrays: the manifest never sizes an allocation unchecked."""
    _render_read(tmp_path, *payload, error)


def test_entry_offsets_inconsistent_with_the_body_are_refused(model: FsrFile) -> None:
    """#53: a record starting one byte late (table, index and CRCs consistent)."""
    row = int(model.rows_of(JOINTS)[2])
    entries = model.entries.copy()
    entries["body_offset"][row] += 1

    error = expect_open_error(model.set_entries(entries).build(), IndexCorruptionError)

    assert "overlap or leave a gap" in error.reason
    assert (error.section, error.record) == ("index", row)


def test_payload_length_wrong_for_the_declared_shape_is_refused(model: FsrFile) -> None:
    """#53, #78: one byte moved from payload to metadata length: framing still tiles."""
    row = int(model.rows_of(JOINTS)[2])
    entries = model.entries.copy()
    entries["meta_length"][row] += 1
    entries["payload_length"][row] -= 1
    entries["raw_length"][row] -= 1

    error = expect_open_error(model.set_entries(entries).build(), CorruptRecordError)

    assert "payload length 31" in error.reason
    assert (error.section, error.stream) == ("index", JOINTS)


def test_time_going_backwards_within_a_stream_is_refused(model: FsrFile) -> None:
    """#54, #64: two records' clocks swapped; strict and salvage both refuse it.

    Salvage rebuilds the same entries from the batch tables, so it finds the
    same defect (the catalogue's "salvage flags the stream" is not offered).
    """
    rows = model.rows_of(JOINTS)
    entries = model.entries.copy()
    for key in ("tick", "sim_time_s"):
        entries[key][rows[1]], entries[key][rows[2]] = (
            entries[key][rows[2]],
            entries[key][rows[1]],
        )
    data = model.set_entries(entries).build()

    error = expect_open_error(data, CorruptRecordError)
    salvage_error = expect_open_error(data, CorruptRecordError, recover=True)

    assert (error.stream, error.record, error.section) == (JOINTS, 2, "index")
    assert "tick goes backwards within generation" in error.reason
    assert salvage_error.reason == error.reason


def _numeric(tmp_path: Path, clocks: list[tuple[int, float]]) -> bytes:
    spec = numeric_stream("x", ["a"])
    return stream_recording(
        tmp_path / "clocks.fsr",
        spec,
        [(t, s, [float(i)]) for i, (t, s) in enumerate(clocks)],
    )


def _saved(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_equal_timestamps_are_accepted_in_stable_order(tmp_path: Path) -> None:
    """#55."""
    data = _numeric(tmp_path, [(0, 0.0), (0, 0.0), (0, 0.0), (1, 0.1)])

    expect_clean_read(data)
    with FsrReader.open(_saved(tmp_path / "eq.fsr", data)) as reader:
        assert reader.seek_row("x", tick=0, mode="exact") == 0
        assert reader.seek_row("x", tick=0, mode="at_or_before") == 2
        assert [r.decoded[0] for r in reader.iter_records("x")] == [0.0, 1.0, 2.0, 3.0]


def test_ticks_at_the_int64_extremes_are_accepted(tmp_path: Path) -> None:
    """#56: the span 2^64 - 1 does not fit int64; it must not wrap into "backwards"."""
    low, high = -(1 << 63), (1 << 63) - 1
    data = _numeric(tmp_path, [(low, 0.0), (0, 1.0), (high, 2.0)])

    expect_clean_read(data)
    with FsrReader.open(_saved(tmp_path / "ext.fsr", data)) as reader:
        info = reader.streams["x"]
        assert (info.first_tick, info.last_tick) == (low, high)
        assert reader.seek_row("x", tick=high, mode="exact") == 2
        assert reader.seek_row("x", tick=low, mode="nearest") == 0
        assert reader.seek_row("x", tick=high - 1, mode="nearest") == 2


def test_nearest_seek_across_a_span_wider_than_int64(tmp_path: Path) -> None:
    """#56: 0 is 2^63 after the first record and 2^63 - 1 before the second."""
    data = _numeric(tmp_path, [(-(1 << 63), 0.0), ((1 << 63) - 1, 1.0)])

    with FsrReader.open(_saved(tmp_path / "wide.fsr", data)) as reader:
        assert reader.seek_row("x", tick=0, mode="nearest") == 1
        assert reader.seek_row("x", tick=-1, mode="nearest") == 0


def test_billion_second_gap_is_accepted(tmp_path: Path) -> None:
    """#57: nothing is allocated per tick or per second of the gap."""
    data = _numeric(tmp_path, [(0, 0.0), (1, 1e9), (2, 1e9 + 0.5)])

    expect_clean_read(data)
    with FsrReader.open(_saved(tmp_path / "gap.fsr", data)) as reader:
        assert reader.seek_row("x", sim_time_s=5e8, mode="at_or_after") == 1


def test_two_swapped_batches_break_the_sequence(model: FsrFile) -> None:
    """#69: adjacent batches swapped as bytes, each CRC valid.

    Strict: the batch at the directory's offset is not the one it lists.
    Salvage: the scan finds batch 6 where 5 belongs and keeps batches 0-4.
    """
    model.directory_override = model.directory()  # the footer still lists the old order
    model.batches[BATCH], model.batches[BATCH + 1] = (
        model.batches[BATCH + 1],
        model.batches[BATCH],
    )
    data = model.build()

    error = expect_open_error(data, IndexCorruptionError)
    salvage = _salvage_keeps(data, BATCH)

    assert (error.section, error.record) == ("batch", BATCH)
    assert (
        "expected 5 (batches missing or swapped)"
        in salvage.reader_info["recovery"].reason
    )


def test_two_swapped_batches_of_one_stream_renumbered_break_the_record_sequence(
    multi_batch_bytes: bytes,
) -> None:
    """#69: batches renumbered and the index rebuilt: only the record order is left.

    Every CRC, batch sequence number and directory row is then consistent;
    the stream's record sequence numbers (2, 3, 0, 1, 4) give it away.
    """
    model = FsrFile.parse(multi_batch_bytes)
    joints = [
        i
        for i in range(len(model.batches))
        if model.view(i).header.stream_id == model.stream_id(JOINTS)
    ]
    first, second = joints[0], joints[1]
    model.batches[first], model.batches[second] = (
        model.batches[second],
        model.batches[first],
    )
    data = model.reindex().build()

    error = expect_open_error(data, CorruptRecordError)

    assert (error.stream, error.section) == (JOINTS, "index")
    assert "batches missing or swapped" in error.reason


def test_batch_generation_disagreeing_with_its_records_is_refused(
    model: FsrFile,
) -> None:
    """A batch holds one generation; its header says another (CRC correct)."""
    model.edit_batch_header(BATCH, generation=3)

    error = expect_open_error(model.build(), IndexCorruptionError)

    assert (error.section, error.record) == ("batch", BATCH)


def test_edits_keep_the_model_valid(model: FsrFile, valid_bytes: bytes) -> None:
    """The surgery itself: an edit that changes nothing rebuilds the same bytes."""
    row = int(model.rows_of(JOINTS)[0])
    model.edit_record(row, model.record_bytes(row))
    model.edit_batch_header(BATCH, **dataclasses.asdict(model.view(BATCH).header))

    assert model.set_entries(model.entries).build() == valid_bytes
