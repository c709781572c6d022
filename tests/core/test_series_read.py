"""A numeric stream read whole gives what reading it record by record gives.

``FsrReader.read_series`` reads many records per read; it must return the
same values and refuse a damaged record exactly as the record-by-record read
does, in every integrity profile.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import CorruptRecordError
from fsr_core.format import series_read
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.reader import FsrReader
from fsr_core.format.runs import runs_within
from fsr_core.format.writer import FsrWriter

STREAM = "observations.arm"
PROFILES = ("structural", "fast", "strong")


def _write(path: Path, profile: str, count: int) -> np.ndarray:
    spec = numeric_stream(STREAM, [f"q{i}" for i in range(7)], "rad")
    values = np.sin(np.arange(count * 7, dtype=np.float64).reshape(count, 7) / 97.0)
    with FsrWriter(path, [spec], integrity=profile) as out:
        for tick, row in enumerate(values):
            out.write(STREAM, row, tick=tick, sim_time_s=tick / 1000.0)
    return values


def _slow(reader: FsrReader) -> np.ndarray:
    return np.stack([record.decoded for record in reader.iter_records(STREAM)])


@pytest.mark.parametrize("profile", PROFILES)
def test_the_whole_stream_equals_the_records_one_by_one(
    tmp_path: Path, profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small spans, so many span boundaries are crossed.
    monkeypatch.setattr(series_read, "SPAN_BYTES", 4096)
    count = 3000
    written = _write(tmp_path / "run.fsr", profile, count)
    with FsrReader.open(tmp_path / "run.fsr") as reader:
        ticks, times, values = reader.read_series(STREAM)
        np.testing.assert_array_equal(values, written)
        np.testing.assert_array_equal(values, _slow(reader))
    np.testing.assert_array_equal(ticks, np.arange(count))
    np.testing.assert_allclose(times, np.arange(count) / 1000.0)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_flipped_byte_is_refused_as_the_record_read_refuses_it(
    tmp_path: Path, profile: str
) -> None:
    path = tmp_path / "run.fsr"
    _write(path, profile, 3000)
    with FsrReader.open(path) as reader:
        target = reader.record(STREAM, 1234).offset + 3
    data = bytearray(path.read_bytes())
    data[target] ^= 0x40
    path.write_bytes(bytes(data))
    with FsrReader.open(path) as reader, pytest.raises(CorruptRecordError) as slow:
        _slow(reader)
    with FsrReader.open(path) as reader, pytest.raises(CorruptRecordError) as fast:
        reader.read_series(STREAM)
    assert str(fast.value) == str(slow.value)


def test_a_span_never_reads_over_a_wide_gap_between_its_records() -> None:
    # Three records close together, then one past a gap wider than allowed.
    starts = np.array([0, 100, 200, 10_000], dtype=np.int64)
    ends = starts + 50

    assert runs_within(starts, ends, 1 << 20) == [(0, 4)]
    assert runs_within(starts, ends, 1 << 20, max_gap=1000) == [(0, 3), (3, 4)]
    assert runs_within(starts, ends, 150, max_gap=1000) == [(0, 2), (2, 3), (3, 4)]
