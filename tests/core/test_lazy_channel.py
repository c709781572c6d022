"""Channels and camera tracks that read their arrays when first asked for.

A lazy channel answers for its name, columns, width and sample count without
reading; its times and values are read once, by whichever thread asks first,
and a reading that fails raises the same FsrError, naming the file, every
time it is asked, without reading again.
"""

from __future__ import annotations

import threading
from dataclasses import FrozenInstanceError
from pathlib import Path

import numpy as np
import pytest
from lazy_reads import read_fails_alike

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError, OpenFailedError
from fsr_core.recording import CameraTrack, Channel, ChannelData

PATH = Path("/recordings/run.mcap")


class _Loader:
    """Returns fixed arrays and counts its calls."""

    def __init__(self, columns: tuple[str, ...] | None = None) -> None:
        self.calls = 0
        self.columns = columns

    def __call__(self) -> ChannelData:
        self.calls += 1
        times = np.arange(5, dtype=np.float64) * 0.1
        width = 3 if self.columns is None else len(self.columns)
        values = np.arange(5 * width, dtype=np.float64).reshape(5, width)
        return ChannelData(times, values, self.columns)


def _lazy(
    loader: _Loader, count: int | None = None, path: Path | None = None
) -> Channel:
    return Channel.lazy(
        "/arm",
        loader,
        unit="rad",
        label="arm",
        columns=("a", "b", "c"),
        count=count,
        path=path,
    )


def test_a_lazy_channel_tells_its_metadata_without_reading() -> None:
    loader = _Loader()
    channel = _lazy(loader, count=5, path=PATH)
    assert (channel.name, channel.unit, channel.label) == ("/arm", "rad", "arm")
    assert channel.columns == ("a", "b", "c")
    assert channel.width == 3
    assert channel.count == 5
    assert not channel.loaded
    assert "loaded=False" in repr(channel)
    assert channel.read_error is None
    assert loader.calls == 0


def test_asking_for_values_reads_once_and_keeps_the_arrays() -> None:
    loader = _Loader()
    channel = _lazy(loader)
    assert channel.count is None
    np.testing.assert_array_equal(channel.values[:, 0], [0.0, 3.0, 6.0, 9.0, 12.0])
    np.testing.assert_allclose(channel.times_s, np.arange(5) * 0.1)
    assert channel.value_at(0.25).tolist() == [6.0, 7.0, 8.0]
    assert channel.loaded
    assert channel.count == 5
    assert loader.calls == 1


def test_columns_found_while_reading_replace_the_first_guess() -> None:
    loader = _Loader(columns=("a", "b", "c", "d"))
    channel = _lazy(loader)
    assert channel.width == 3
    _ = channel.values
    assert channel.columns == ("a", "b", "c", "d")
    assert channel.width == 4


def test_threads_asking_at_once_read_the_channel_once() -> None:
    entered, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow() -> tuple[FloatArray, FloatArray]:
        calls.append(1)
        entered.set()
        assert release.wait(10)
        return np.zeros(3), np.ones(3)

    channel = Channel.lazy("x", slow)
    started = threading.Barrier(5)
    found: list[FloatArray] = []

    def read() -> None:
        started.wait(10)
        found.append(channel.values)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.wait(10)
    assert entered.wait(10)  # one reader is in the loader; the others wait for it
    release.set()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 1
    assert len(found) == 4
    assert all(values is found[0] for values in found)


def test_a_failing_loader_raises_one_error_naming_the_file_every_time() -> None:
    calls: list[int] = []

    def broken() -> tuple[FloatArray, FloatArray]:
        calls.append(1)
        raise OpenFailedError("cannot open: No such file or directory")

    channel = Channel.lazy("/odom", broken, columns=("x",), path=PATH)
    error = read_fails_alike(channel, PATH)
    assert len(calls) == 1
    assert not channel.loaded
    assert channel.read_error is error
    assert channel.columns == ("x",)


def test_any_other_loader_failure_becomes_an_fsr_error_naming_the_file() -> None:
    def buggy() -> tuple[FloatArray, FloatArray]:
        raise ZeroDivisionError("division by zero")

    channel = Channel.lazy("/odom", buggy, path=PATH)
    with pytest.raises(FsrError, match="channel '/odom' could not be read") as caught:
        _ = channel.values
    assert caught.value.path == str(PATH)


def test_a_loader_whose_times_and_values_disagree_is_refused() -> None:
    channel = Channel.lazy("/odom", lambda: (np.zeros(3), np.zeros(2)), path=PATH)
    with pytest.raises(FsrError, match="3 times for 2 values"):
        _ = channel.values


def test_a_channel_built_with_its_arrays_is_unchanged() -> None:
    times = np.array([0.0, 0.5])
    channel = Channel("speed", times, np.array([1.0, 2.0]), "m/s", "speed", ("v",))
    assert channel.loaded
    assert channel.count == 2
    assert channel.width == 1
    assert channel.times_s is times
    assert channel.value_at(0.7).tolist() == [2.0]
    keyword = Channel(name="q", times_s=times, values=np.zeros((2, 4)), columns=())
    assert keyword.width == 4
    assert keyword.unit == ""


def test_channels_and_tracks_are_read_only() -> None:
    channel = _lazy(_Loader())
    with pytest.raises(FrozenInstanceError):
        channel.name = "other"
    with pytest.raises(FrozenInstanceError):
        del channel.unit
    track = CameraTrack("cam", np.zeros(2), lambda index: (None, None))  # type: ignore[arg-type,return-value]
    with pytest.raises(FrozenInstanceError):
        track.name = "other"


def test_a_lazy_camera_track_reads_its_frame_times_when_asked() -> None:
    calls: list[int] = []

    def times() -> FloatArray:
        calls.append(1)
        return np.array([0.0, 0.1, 0.2])

    track = CameraTrack.lazy("/cam", times, lambda index: (None, None), count=3)  # type: ignore[arg-type,return-value]
    assert track.count == 3
    assert not track.loaded
    assert calls == []
    assert track.index_at(0.15) == 1
    assert track.loaded
    assert (track.values, track.value_unit, track.value_range) == (None, "", None)
    assert calls == [1]
