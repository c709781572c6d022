"""The record index is checked in blocks at open; a defect is found across any cut.

An hour-long file's index holds millions of entries, so the open checks it a
block of rows at a time (``CHECK_BLOCK_ROWS``) to keep its temporaries small.
Each defect below must be reported exactly as the whole-index check reports it
(same error, reason, stream and record number) wherever the blocks are cut:
blocks of 1, 2 and 3 rows put a block boundary on every row of the recording.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hostile_harness import expect_clean_read, expect_open_error
from hostile_surgery import FsrFile

from fsr_core.errors import CorruptRecordError, FsrError, IndexCorruptionError
from fsr_core.format import layout

JOINTS = "observations.robot.joints"
WHOLE = 1 << 20


def _late_record(model: FsrFile, row: int) -> bytes:
    entries = model.entries.copy()
    entries["body_offset"][row] += 1
    return model.set_entries(entries).build()


def _short_payload(model: FsrFile, row: int) -> bytes:
    entries = model.entries.copy()
    entries["meta_length"][row] += 1
    entries["payload_length"][row] -= 1
    entries["raw_length"][row] -= 1
    return model.set_entries(entries).build()


def _clock_back(model: FsrFile, row: int) -> bytes:
    entries = model.entries.copy()
    rows = model.rows_of(JOINTS)
    previous = rows[int(np.flatnonzero(rows == row)[0]) - 1]
    for key in ("tick", "sim_time_s"):
        entries[key][row] = entries[key][previous] - 1
    return model.set_entries(entries).build()


def _capture_back(model: FsrFile, row: int) -> bytes:
    entries = model.entries.copy()
    rows = model.rows_of(JOINTS)
    previous = rows[int(np.flatnonzero(rows == row)[0]) - 1]
    entries["capture_seq"][row], entries["capture_seq"][previous] = (
        entries["capture_seq"][previous],
        entries["capture_seq"][row],
    )
    return model.set_entries(entries).build()


def _sequence_skip(model: FsrFile, row: int) -> bytes:
    entries = model.entries.copy()
    entries["stream_seq"][row] += 1
    return model.set_entries(entries).build()


DEFECTS: dict[str, tuple[Callable[[FsrFile, int], bytes], type[FsrError]]] = {
    "record one byte late": (_late_record, IndexCorruptionError),
    "payload one byte short": (_short_payload, CorruptRecordError),
    "clock goes back": (_clock_back, CorruptRecordError),
    "capture order swapped": (_capture_back, CorruptRecordError),
    "sequence number skipped": (_sequence_skip, CorruptRecordError),
}


def _report(error: FsrError) -> tuple[object, ...]:
    return (type(error), error.reason, error.stream, error.section, error.record)


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("position", [1, 2, -1])
def test_a_defect_is_reported_the_same_whatever_the_block_size(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch, defect: str, position: int
) -> None:
    model = FsrFile.parse(valid_bytes)
    make, error_type = DEFECTS[defect]
    row = int(model.rows_of(JOINTS)[position])
    data = make(model, row)
    reports = {}
    for rows in (WHOLE, 1, 2, 3):
        monkeypatch.setattr(layout, "CHECK_BLOCK_ROWS", rows)
        reports[rows] = _report(expect_open_error(data, error_type))

    assert reports[1] == reports[2] == reports[3] == reports[WHOLE]


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_a_valid_file_opens_the_same_in_small_blocks(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    whole = expect_clean_read(valid_bytes)
    monkeypatch.setattr(layout, "CHECK_BLOCK_ROWS", rows)
    blocked = expect_clean_read(valid_bytes)

    assert blocked.reader_info == whole.reader_info
