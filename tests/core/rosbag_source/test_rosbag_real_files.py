"""ROS bags written by the real writers open with the values rosbags read back.

The bags under ``tests/data/rosbag1/`` and ``tests/data/rosbag2/`` were
written by ``rosbags``' writers (``tools/make_rosbag_data.py``);
``expected.json`` beside them holds what ``rosbags``' readers decoded, so
these tests need no writer.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import ROSBAG1_DATA, ROSBAG2_DATA

from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources import (
    convert_recording,
    inspect_recording,
    open_recording,
    source_for,
)

ROS1_BAGS = (
    "none.bag",
    "bz2.bag",
    "lz4.bag",
    "small_chunks_lz4.bag",
    "small_chunks_bz2.bag",
)
ROS2_BAGS = ("plain", "split", "zstd_file", "zstd_message", "bare.db3")
ALL_BAGS = [ROSBAG1_DATA / name for name in ROS1_BAGS] + [
    ROSBAG2_DATA / name for name in ROS2_BAGS
]


@cache
def _expected(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "expected.json").read_text())  # type: ignore[no-any-return]


def _topics(path: Path) -> dict[str, Any]:
    return _expected(path.parent)[path.name]["topics"]  # type: ignore[no-any-return]


@cache
def _model(path: Path) -> RecordingModel:
    return open_recording(path)


def _column(model: RecordingModel, channel: str, column: str) -> np.ndarray:
    found = model.channels[channel]
    return np.asarray(found.values[:, found.columns.index(column)])


@pytest.mark.parametrize("path", ALL_BAGS, ids=lambda path: path.name)
def test_each_bag_opens_with_the_values_rosbags_reads(path: Path) -> None:
    topics = _topics(path)
    model = _model(path)

    assert model.source == ("rosbag1" if path.suffix == ".bag" else "rosbag2")
    assert model.integrity is Integrity.VALID
    speed = topics["/odom_speed"]
    np.testing.assert_array_equal(
        _column(model, "/odom_speed", "data"), speed["values"]
    )
    first_ns = min(topic["first_ns"] for topic in topics.values())
    last_ns = max(topic["last_ns"] for topic in topics.values())
    assert model.duration_s == pytest.approx((last_ns - first_ns) / 1e9)
    times = model.channels["/odom_speed"].times_s
    assert times[0] == pytest.approx((speed["first_ns"] - first_ns) / 1e9)
    tf = model.channels["/tf:base_link"]
    assert tf.count == topics["/tf"]["messages"]
    assert tf.values[-1, 0] == pytest.approx(topics["/tf"]["last_translation_x"])
    # Metres for the translation only: the quaternion has no unit.
    assert tf.unit == "m, quat"
    assert tf.columns == ("x", "y", "z", "qx", "qy", "qz", "qw")


@pytest.mark.parametrize("path", ALL_BAGS, ids=lambda path: path.name)
def test_joint_states_are_the_joints_by_name(path: Path) -> None:
    expected = _topics(path)["/joint_states"]
    model = _model(path)

    joints = model.joints
    assert joints is not None
    assert joints.names == tuple(expected["names"])
    assert joints.positions == "/joint_states"
    assert model.channels["/joint_states"].count == expected["messages"]
    last = model.joint_angles_at(model.duration_s)
    assert last is not None
    np.testing.assert_allclose(last, expected["last_position"])
    first = model.joint_angles_at(0.0)
    assert first is not None
    np.testing.assert_allclose(first, expected["first_position"])


@pytest.mark.parametrize("path", ALL_BAGS, ids=lambda path: path.name)
def test_cameras_show_their_frames_with_calibration_and_pose(path: Path) -> None:
    topics = _topics(path)
    model = _model(path)
    cameras = {track.name: track for track in model.cameras}

    assert set(cameras) == {"/camera/image_raw", "/camera/image_raw/compressed"}
    raw = cameras["/camera/image_raw"]
    assert raw.count == topics["/camera/image_raw"]["messages"]
    frame, calibration = raw.fetch(0)
    assert frame.pixels.shape == (24, 32, 3)
    assert frame.pixels[0, 0].tolist() == topics["/camera/image_raw"]["first_pixel"]
    assert calibration is not None
    k = topics["/camera/camera_info"]["k"]
    profile = calibration.profile
    assert (profile.fx, profile.cx, profile.fy, profile.cy) == (k[0], k[2], k[4], k[5])
    assert profile.distortion_model == "plumb_bob"
    np.testing.assert_allclose(profile.distortion, topics["/camera/camera_info"]["d"])
    assert calibration.pose is not None  # camera_optical placed by /tf_static
    compressed, _ = cameras["/camera/image_raw/compressed"].fetch(raw.count - 1)
    last_raw, _ = raw.fetch(raw.count - 1)
    np.testing.assert_array_equal(compressed.pixels, last_raw.pixels)  # PNG: lossless


@pytest.mark.parametrize(
    "path", [ROSBAG1_DATA / "none.bag", ROSBAG2_DATA / "split"], ids=str
)
def test_the_transform_tree_is_the_scene_and_the_robot_is_carried(path: Path) -> None:
    bag = source_for(path).open(path)  # the source's own model, before any robot
    assert bag.geometry is not None
    assert {"world", "base_link", "camera_optical"} <= set(bag.geometry.bodies)

    model = _model(path)  # drawn with the robot it carries, posed by its joints
    assert model.geometry is not None
    assert {"upper", "fore", "hand"} <= set(model.geometry.bodies)
    assert model.robot_description is not None
    assert b'<robot name="three_link">' in model.robot_description.text
    assert model.robot_description.where.endswith("/robot_description")
    assert "/chatter" not in model.channels
    assert any("'/chatter'" in note for note in model.report["notes"])


def test_a_split_bag_reads_both_files_joined_in_time() -> None:
    split, plain = _model(ROSBAG2_DATA / "split"), _model(ROSBAG2_DATA / "plain")

    assert split.report["files"] == ["split_0.db3", "split_1.db3"]
    np.testing.assert_array_equal(
        split.channels["/joint_states"].values, plain.channels["/joint_states"].values
    )
    np.testing.assert_array_equal(
        split.channels["/joint_states"].times_s, plain.channels["/joint_states"].times_s
    )


def test_the_registry_finds_each_kind_by_its_bytes_or_folder(tmp_path: Path) -> None:
    assert source_for(ROSBAG1_DATA / "lz4.bag").name == "rosbag1"
    assert source_for(ROSBAG2_DATA / "plain").name == "rosbag2"
    assert source_for(ROSBAG2_DATA / "bare.db3").name == "rosbag2"
    renamed = tmp_path / "recording.dat"
    renamed.write_bytes((ROSBAG1_DATA / "bz2.bag").read_bytes())
    assert open_recording(renamed).source == "rosbag1"


def test_inspect_reports_index_compression_and_topics() -> None:
    report = inspect_recording(ROSBAG1_DATA / "small_chunks_bz2.bag", verify=True)

    assert report["source"] == "rosbag1"
    assert report["valid"] is True
    own = report["rosbag1"]
    assert own["index"] == "index"
    assert own["compression"] == ["bz2"]
    assert own["messages"] == sum(
        topic["messages"]
        for topic in _topics(ROSBAG1_DATA / "small_chunks_bz2.bag").values()
    )
    assert report["verification"]["problem_count"] == 0
    assert report["verification"]["checked_records"] == own["messages"]
    ros2 = inspect_recording(ROSBAG2_DATA / "zstd_message")
    assert ros2["rosbag2"]["compression"] == ["zstd per message"]


def test_convert_names_the_bag_and_the_rosbags_version(tmp_path: Path) -> None:
    from importlib.metadata import version

    output = tmp_path / "run.fsr"
    conversion = convert_recording(ROSBAG2_DATA / "split", output)

    converted = open_recording(conversion.output)
    assert converted.source == "fsr"
    provenance = json.dumps(converted.provenance)
    assert "split" in provenance
    assert f"rosbags {version('rosbags')}" in provenance
    original = _model(ROSBAG2_DATA / "split")
    np.testing.assert_allclose(
        _column(converted, "/odom_speed", "data"),
        _column(original, "/odom_speed", "data"),
    )


@pytest.mark.parametrize(
    "path",
    [ROSBAG1_DATA / "lz4.bag", ROSBAG2_DATA / "split"],
    ids=lambda path: path.name,
)
def test_opening_reads_only_what_the_scene_needs(path: Path) -> None:
    topics = _topics(path)
    model = open_recording(path)  # a fresh model: nothing read since opening

    speed = model.channels["/odom_speed"]
    assert not speed.loaded
    assert speed.count == topics["/odom_speed"]["messages"]
    assert model.channels["/joint_states"].columns[-1] == "effort.wrist"
    assert model.channels["/tf:base_link"].loaded  # the scene needs the tree
    camera = model.cameras[0]
    assert not camera.loaded
    assert camera.count == topics[camera.name]["messages"]
    np.testing.assert_array_equal(speed.values[:, 0], topics["/odom_speed"]["values"])
    assert camera.times_s.size == camera.count
