"""An MCAP file with indexes opens from them; each topic is read when first shown.

Opening decodes the transforms, the calibrations and the first message of
every other topic; a numeric channel reads its own chunks the first time its
values are asked for, and gives what reading the whole file at open gives.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from arm_mcap import START_NS, write_arm_mcap
from decode_counting import counting_decoders
from lazy_reads import read_fails_alike
from mcap.reader import make_reader

from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources import inspect_recording, open_recording
from fsr_core.sources.mcap import reading as mcap_reading
from fsr_core.sources.mcap.container import index_file
from fsr_core.sources.mcap.recording_model import load_mcap
from fsr_core.sources.mcap.source import bag_file

DATA = Path(__file__).resolve().parents[2] / "data" / "mcap"
FILES = [*sorted(path.name for path in DATA.glob("*.mcap")), "rosbag2_run"]


def _file(name: str) -> Path:
    path = DATA / name
    return (bag_file(path) or path) if path.is_dir() else path


def test_opening_decodes_one_message_of_a_numeric_topic_until_it_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: Counter[str] = Counter()
    monkeypatch.setattr(mcap_reading, "decoder_for", counting_decoders(calls))
    model = open_recording(DATA / "ros2.mcap")
    joints, odometry = model.channels["/joint_states"], model.channels["/odom"]
    assert calls["/joint_states"] == 1  # its columns
    assert calls["/odom"] == 1
    # The scene needs every transform at open: read by layout, two layouts
    # here, each checked against the library's decode of one message.
    assert calls["/tf"] == 2
    assert not joints.loaded
    assert not odometry.loaded
    assert joints.count == 200
    assert "position.joint_1" in joints.columns
    assert len(joints.values) == 200
    # ROS 2 messages laid out alike are read by their layout: the library
    # decodes the one message each layout is checked against.
    assert calls["/joint_states"] == 1 + 1
    assert calls["/odom"] == 1
    assert not odometry.loaded


def test_a_camera_finds_its_frame_times_in_the_message_indexes_when_shown() -> None:
    model = open_recording(DATA / "layout_out_of_order.mcap")
    (track,) = model.cameras
    assert track.count == 6
    assert not track.loaded
    assert np.all(np.diff(track.times_s) > 0)
    assert track.loaded


def _same_model(lazy: RecordingModel, eager: RecordingModel) -> None:
    assert list(lazy.channels) == list(eager.channels)
    for name, expected in eager.channels.items():
        channel = lazy.channels[name]
        assert channel.count == expected.count
        np.testing.assert_array_equal(channel.times_s, expected.times_s)
        np.testing.assert_array_equal(channel.values, expected.values)
        assert channel.columns == expected.columns
        assert (channel.unit, channel.label) == (expected.unit, expected.label)
    assert lazy.timeline == eager.timeline
    assert lazy.markers == eager.markers
    assert (lazy.integrity, lazy.integrity_reason) == (
        eager.integrity,
        eager.integrity_reason,
    )
    assert [track.name for track in lazy.cameras] == [
        track.name for track in eager.cameras
    ]
    for track, expected_track in zip(lazy.cameras, eager.cameras, strict=True):
        assert track.count == expected_track.count
        np.testing.assert_array_equal(track.times_s, expected_track.times_s)
        for index in range(len(track.times_s)):
            frame, calibration = track.fetch(index)
            assert (frame, calibration) == expected_track.fetch(index)


@pytest.mark.parametrize("name", FILES)
def test_every_topic_reads_as_reading_the_whole_file_gives(name: str) -> None:
    path = _file(name)
    lazy = load_mcap(path)
    eager = load_mcap(path, read_everything=True)
    assert eager.report["reading"] == "every chunk read at open"
    _same_model(lazy, eager)
    for key in ("topics", "messages", "unreadable_chunks", "notes"):
        assert lazy.report[key] == eager.report[key], key


def test_files_without_full_indexes_are_read_at_open() -> None:
    for name in ("layout_no_message_index.mcap", "layout_no_statistics.mcap"):
        model = open_recording(DATA / name)
        assert model.report["reading"] == "every chunk read at open"
        assert all(channel.loaded for channel in model.channels.values())
    assert (
        "read when first shown" in open_recording(DATA / "ros2.mcap").report["reading"]
    )


@pytest.mark.parametrize("base", ["publish", "header"])
def test_a_time_base_other_than_log_time_reads_every_chunk_at_open(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MCAP_TIME", base)
    model = open_recording(DATA / "ros2.mcap")
    assert model.metadata["time_base"] == base
    assert model.channels["/joint_states"].loaded


def _write(path: Path, messages: int = 120) -> Path:
    arm = (
        (START_NS + index * 10_000_000, {"q": [index * 0.5]})
        for index in range(messages)
    )
    return write_arm_mcap(path, arm, chunk_size=1024)


def _damage_last_chunk(path: Path) -> int:
    """Flip a byte inside the last chunk's data; return the chunk's offset."""
    with path.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    assert summary is not None
    last = max(summary.chunk_indexes, key=lambda index: index.chunk_start_offset)
    data = bytearray(path.read_bytes())
    data[last.chunk_start_offset + last.chunk_length - 20] ^= 0x10
    path.write_bytes(bytes(data))
    return int(last.chunk_start_offset)


def test_a_chunk_read_later_that_fails_is_reported_when_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "late.mcap")
    offset = _damage_last_chunk(path)
    model = open_recording(path)
    assert model.integrity is Integrity.VALID
    assert model.report["unreadable_chunks"] == []
    channel = model.channels["/arm/state"]
    assert 0 < len(channel.times_s) < 120
    (entry,) = model.report["unreadable_chunks"]
    assert entry["offset"] == offset
    assert any(f"chunk at byte {offset}" in note for note in model.report["notes"])
    verified = inspect_recording(path, verify=True)
    (problem,) = verified["verification"]["problems"]
    assert problem.startswith(f"byte {offset}: chunk CRC-32")
    assert not verified["valid"]


def test_a_channel_that_cannot_be_read_raises_one_error_naming_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "gone.mcap"
    shutil.copyfile(DATA / "layout_chunked_zstd.mcap", path)
    model = open_recording(path)
    channel = model.channels["/layout/pose"]
    path.unlink()
    read_fails_alike(channel, path)
    assert channel.columns == ("seq", "x", "y", "yaw")


@pytest.mark.parametrize("name", FILES)
def test_chunk_indexes_read_as_the_library_reads_them(name: str) -> None:
    path = _file(name)
    contents = index_file(path)
    if not contents.chunk_indexed:
        return
    with path.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    assert summary is not None
    expected = sorted(summary.chunk_indexes, key=lambda item: item.chunk_start_offset)
    assert [
        (
            block.offset,
            block.length,
            block.compression,
            block.uncompressed_size,
            block.start_ns,
            block.end_ns,
            dict(block.message_indexes),
            block.message_index_length,
        )
        for block in contents.blocks
    ] == [
        (
            item.chunk_start_offset,
            item.chunk_length,
            item.compression,
            item.uncompressed_size,
            item.message_start_time,
            item.message_end_time,
            dict(item.message_index_offsets),
            item.message_index_length,
        )
        for item in expected
    ]
