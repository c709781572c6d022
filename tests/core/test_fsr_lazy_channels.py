"""An FSR recording opens without reading its numeric records; a sample is one read.

The player, the side panel and the export's panel ask a channel for the
sample in force at a play time; until something needs the whole channel (a
plot), that is one record read from the file, and it must be exactly the
sample the whole channel gives at that time, across generation resets and
outside the recorded span. A damaged record fails the read that meets it,
naming the file, and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from long_channels import write_long_take

from fsr_core.errors import CorruptRecordError, FsrError
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

ARM = "observations.arm"
# (generation, tick) of every record: a reset restarts the clock at tick 0.
CLOCKS = [(0, t) for t in range(0, 40, 2)] + [(1, t) for t in range(0, 30, 3)]
MARKER = 4242.125  # the value of the record the damage test breaks


def _value(index: int) -> list[float]:
    return [MARKER if index == 7 else 0.5 * index, -float(index), index**2 / 7.0]


def _write(path: Path) -> Path:
    with FsrWriter(path, [numeric_stream(ARM, ["a", "b", "c"], "rad")]) as writer:
        for index, (generation, tick) in enumerate(CLOCKS):
            writer.write(
                ARM,
                _value(index),
                tick=tick,
                sim_time_s=tick / 100.0,
                generation=generation,
            )
    return path


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    return _write(tmp_path / "run.fsr")


def _probe_times(model: RecordingModel) -> list[float]:
    loaded = open_recording(model.path).channels[ARM]
    times = loaded.times_s
    middles = ((times[1:] + times[:-1]) / 2).tolist()
    return [-1.0, *times.tolist(), *middles, model.duration_s + 5.0]


def test_open_reads_no_numeric_record_but_knows_the_channel(recording: Path) -> None:
    channel = open_recording(recording).channels[ARM]

    assert not channel.loaded
    assert (channel.count, channel.width, channel.columns, channel.unit) == (
        len(CLOCKS),
        3,
        ("a", "b", "c"),
        "rad",
    )


def test_a_sample_read_alone_is_the_one_the_whole_channel_gives(
    recording: Path,
) -> None:
    lazy_model = open_recording(recording)
    lazy = lazy_model.channels[ARM]
    whole = open_recording(recording).channels[ARM]
    whole_values = whole.values  # reads every record

    for play_time_s in _probe_times(lazy_model):
        expected = whole_values[whole.index_at(play_time_s)]
        np.testing.assert_array_equal(lazy.value_at(play_time_s), expected)
    assert not lazy.loaded
    assert whole.count == len(whole_values) == len(CLOCKS)


def test_the_whole_channel_holds_every_record_on_the_play_time_axis(
    recording: Path,
) -> None:
    model = open_recording(recording)
    channel = model.channels[ARM]

    np.testing.assert_array_equal(
        channel.values, np.array([_value(i) for i in range(len(CLOCKS))])
    )
    # The reset's records follow the first generation's on the play axis.
    assert np.all(np.diff(channel.times_s) >= 0)
    assert channel.times_s[-1] == pytest.approx(model.duration_s)


def test_a_damaged_record_fails_only_the_reads_that_meet_it(recording: Path) -> None:
    times = open_recording(recording).channels[ARM].times_s
    data = bytearray(recording.read_bytes())
    at = bytes(data).index(np.float64(MARKER).tobytes())
    data[at] ^= 0xFF
    damaged = recording.with_name("damaged.fsr")
    damaged.write_bytes(bytes(data))
    channel = open_recording(damaged).channels[ARM]  # the index is intact: it opens

    np.testing.assert_array_equal(channel.value_at(times[6]), _value(6))
    with pytest.raises(CorruptRecordError) as caught:
        channel.value_at(times[7])
    assert str(damaged) in str(caught.value)
    np.testing.assert_array_equal(channel.value_at(times[8]), _value(8))
    with pytest.raises(FsrError) as whole:
        _ = channel.values
    assert str(damaged) in str(whole.value)
    assert channel.read_error is not None


LONG = 5000
SPIKES = {37: 9.0, 2222: -7.5, 4999: 3.25}  # sample -> value of column 0


def _long_values() -> np.ndarray:
    index = np.arange(LONG)
    values = np.column_stack((np.sin(index / 50.0), np.cos(index / 300.0) * 2.0))
    for at, value in SPIKES.items():
        values[at, 0] = value
    return values


@pytest.fixture
def long_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write a 5000-sample channel, "long" for thresholds scaled down to it."""
    return write_long_take(
        tmp_path / "long.fsr", _long_values(), monkeypatch, buckets=64, part_rows=300
    )


def test_a_long_channel_is_overviewed_with_every_bucket_extreme(
    long_recording: Path,
) -> None:
    channel = open_recording(long_recording).channels[ARM]
    assert channel.prefers_overview
    overview = channel.overview()
    values = _long_values()
    times = np.arange(LONG) / 1000.0

    assert not channel.loaded
    per_bucket = -(-LONG // 64)
    for column in range(2):
        at, shown = overview.times_s[:, column], overview.values[:, column]
        assert np.all(np.diff(at) >= 0)
        assert (at[0], at[-1]) == (times[0], times[-1])
        for first in range(0, LONG, per_bucket):
            bucket = values[first : first + per_bucket, column]
            inside = (at >= times[first]) & (at <= times[first + len(bucket) - 1])
            assert shown[inside].min() == bucket.min()
            assert shown[inside].max() == bucket.max()
    for at_sample, spike in SPIKES.items():
        assert spike in overview.values[:, 0]
        assert times[at_sample] in overview.times_s[:, 0]
    assert len(overview.values) <= 2 * 64 + 2


def test_a_span_of_a_long_channel_is_its_samples_there(long_recording: Path) -> None:
    channel = open_recording(long_recording).channels[ARM]
    whole = _long_values()

    span = channel.span(1.0005, 1.2, limit=1000)
    assert span is not None
    # From the last sample at or before the start to the first at or after the end.
    np.testing.assert_array_equal(span.times_s, np.arange(1000, 1201) / 1000.0)
    np.testing.assert_array_equal(span.values, whole[1000:1201])
    assert channel.span(0.0, 4.0, limit=1000) is None  # too many to read
    assert not channel.loaded
    loaded = open_recording(long_recording).channels[ARM]
    _ = loaded.values
    same = loaded.span(1.0005, 1.2, limit=1000)
    assert same is not None
    np.testing.assert_array_equal(same.values, span.values)


def test_samples_of_a_many_batch_stream_are_found_batch_by_batch(
    long_recording: Path,
) -> None:
    lazy = open_recording(long_recording).channels[ARM]
    whole = open_recording(long_recording).channels[ARM]
    times = whole.times_s
    probes = [-1.0, *times[::97].tolist(), *(times[::131] + 0.0004).tolist(), 99.0]

    for play_time_s in probes:
        np.testing.assert_array_equal(
            lazy.value_at(play_time_s), whole.value_at(play_time_s)
        )
    for start_s, end_s in ((0.2555, 0.7), (1.0, 1.0), (-3.0, 0.01), (4.9, 50.0)):
        part, expected = (
            lazy.span(start_s, end_s, 10_000),
            whole.span(start_s, end_s, 10_000),
        )
        assert part is not None
        assert expected is not None
        np.testing.assert_array_equal(part.times_s, expected.times_s)
        np.testing.assert_array_equal(part.values, expected.values)
    assert not lazy.loaded
