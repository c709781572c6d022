"""A live channel past a few MiB keeps its rows in a spill file, readable as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import LimitExceededError
from fsr_core.sources.live import GrowingChannel
from fsr_core.sources.live.spill import SPILL_DIR_VARIABLE, SPILL_FROM_BYTES

_FDS = Path("/proc/self/fd")

pytestmark = pytest.mark.skipif(not _FDS.is_dir(), reason="spilling is for Linux")

_COLUMNS = tuple(f"joint_{index}" for index in range(7))
_ROWS_PAST_SPILL = 3 * SPILL_FROM_BYTES // (8 * len(_COLUMNS))


def _fill(channel: GrowingChannel, rows: int, batch: int = 997) -> np.ndarray:
    """Append ``rows`` more samples at 1 kHz in batches; return them."""
    rng = np.random.default_rng(channel.count)
    written = rng.normal(size=(rows, len(_COLUMNS)))
    start = channel.count
    for first in range(0, rows, batch):
        stop = min(first + batch, rows)
        times = np.arange(start + first, start + stop) / 1000.0
        channel.append(times, written[first:stop])
    return written


def _open_in(directory: Path) -> list[str]:
    """Return the files this process holds open in ``directory`` (unlinked too)."""
    found = []
    for fd in _FDS.iterdir():
        try:
            target = str(fd.readlink())
        except OSError:
            continue
        if target.startswith(str(directory)):
            found.append(target)
    return found


def test_a_long_channel_spills_and_reads_back_every_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SPILL_DIR_VARIABLE, str(tmp_path))
    channel = GrowingChannel("q", _COLUMNS, "rad")
    early = _fill(channel, 5000)
    view_before = channel.values  # a model handed out before the spill
    assert not channel.spilled

    written = np.concatenate([early, _fill(channel, _ROWS_PAST_SPILL)])
    assert channel.spilled
    assert channel.count == len(written)
    np.testing.assert_array_equal(channel.values, written)
    np.testing.assert_array_equal(channel.times_s, np.arange(len(written)) / 1000.0)
    np.testing.assert_array_equal(view_before, early)
    times, values = channel.window(1.0, 1.002)
    np.testing.assert_array_equal(times, [1.0, 1.001, 1.002])
    np.testing.assert_array_equal(values, written[1000:1003])
    held = channel.value_at(2.5)
    assert held is not None
    np.testing.assert_array_equal(held, written[2500])
    # The rows live in files of the spill directory, unlinked as made.
    spills = _open_in(tmp_path)
    assert spills
    assert all(name.endswith("(deleted)") for name in spills)
    assert list(tmp_path.iterdir()) == []


def test_a_column_added_after_the_spill_is_nan_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SPILL_DIR_VARIABLE, str(tmp_path))
    channel = GrowingChannel("q", _COLUMNS)
    written = _fill(channel, _ROWS_PAST_SPILL)
    channel.add_columns(["gripper"])
    channel.append(np.array([1e6]), np.arange(8.0).reshape(1, 8))

    assert channel.columns == (*_COLUMNS, "gripper")
    np.testing.assert_array_equal(channel.values[:-1, :7], written)
    assert np.isnan(channel.values[:-1, 7]).all()
    np.testing.assert_array_equal(channel.values[-1], np.arange(8.0))


def test_a_narrow_batch_leaves_the_missing_columns_nan_in_the_spill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SPILL_DIR_VARIABLE, str(tmp_path))
    channel = GrowingChannel("q", _COLUMNS)
    _fill(channel, _ROWS_PAST_SPILL)
    channel.append(np.array([1e6, 1e6 + 1]), np.ones((2, 3)))

    np.testing.assert_array_equal(channel.values[-2:, :3], np.ones((2, 3)))
    assert np.isnan(channel.values[-2:, 3:]).all()


def test_the_spill_is_refused_past_the_live_disk_budget_with_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SPILL_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv("FSR_VIEWER_LIVE_DISK_BUDGET", "6MiB")
    channel = GrowingChannel("q", _COLUMNS)

    with pytest.raises(LimitExceededError) as caught:
        _fill(channel, _ROWS_PAST_SPILL)
    message = str(caught.value)
    assert "live channel 'q'" in message
    assert "FSR_VIEWER_LIVE_DISK_BUDGET=" in message
    assert "\n" not in message


def test_without_a_usable_spill_directory_the_channel_stays_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a file, not a directory"
    blocked.write_text("")
    monkeypatch.setenv(SPILL_DIR_VARIABLE, str(blocked / "live"))
    channel = GrowingChannel("q", _COLUMNS)

    written = _fill(channel, _ROWS_PAST_SPILL)

    assert not channel.spilled
    np.testing.assert_array_equal(channel.values, written)
