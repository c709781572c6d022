"""MCAP files written by the real writers open with the values their readers gave.

The files under ``tests/data/mcap/`` were written by ``mcap``,
``mcap-protobuf-support`` (Foxglove schemas), ``mcap-ros2-support`` and
``rosbags`` (``tools/make_mcap_data.py``); ``expected.json`` holds what the
upstream readers decoded from them, so these tests need none of the writers.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.calibration import project_points
from fsr_core.recording import CameraTrack, Integrity, RecordingModel
from fsr_core.sources import (
    convert_recording,
    expand_recordings,
    inspect_recording,
    open_recording,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "mcap"


@cache
def _expected() -> dict[str, Any]:
    return json.loads((DATA / "expected.json").read_text())  # type: ignore[no-any-return]


@cache
def _model(name: str) -> RecordingModel:
    return open_recording(DATA / name)


def _origin(model: RecordingModel) -> int:
    return int(model.metadata["start_time_ns"])


def _camera(model: RecordingModel, name: str) -> CameraTrack:
    return next(track for track in model.cameras if track.name == name)


LAYOUTS = sorted(path.name for path in DATA.glob("layout_*.mcap"))


@pytest.mark.parametrize("name", LAYOUTS)
def test_every_layout_variant_holds_the_same_messages(name: str) -> None:
    reference = _model("layout_chunked_zstd.mcap")
    model = _model(name)
    expected = _expected()["files"][name]
    for topic, facts in expected["topics"].items():
        if topic in model.channels:
            times = model.channels[topic].times_s
        else:
            times = _camera(model, topic).times_s
        assert len(times) == facts["message_count"]
        first = (facts["first_log_time"] - _origin(model)) / 1e9
        assert times[0] == pytest.approx(first, abs=1e-9)
    pose = model.channels["/layout/pose"]
    np.testing.assert_array_equal(
        pose.values, reference.channels["/layout/pose"].values
    )
    frame, _ = _camera(model, "/layout/image").fetch(3)
    expected_frame, _ = _camera(reference, "/layout/image").fetch(3)
    assert frame == expected_frame
    if "unfinished" in name:
        assert model.integrity is Integrity.RECOVERED
        assert model.report["notes"][0] == "no index: scanned"
    else:
        assert model.integrity is Integrity.VALID


@pytest.mark.parametrize("name", LAYOUTS)
def test_attachments_and_metadata_records_are_listed(name: str) -> None:
    expected = _expected()["files"][name]
    report = _model(name).report
    if "no_attachment_metadata_index" in name:
        # Their indexes are the summary's only pointer to them, as for mcap's reader.
        return
    assert [a["name"] for a in report["attachments"]] == [
        a["name"] for a in expected["attachments"]
    ]
    assert [a["size_bytes"] for a in report["attachments"]] == [
        a["size_bytes"] for a in expected["attachments"]
    ]
    assert [m["name"] for m in report["metadata_records"]] == [
        m["name"] for m in expected["metadata"]
    ]


def test_joint_states_are_channels_named_by_joint() -> None:
    model = _model("ros2.mcap")
    facts = _expected()["files"]["ros2.mcap"]["decoded"]["joint_states"][
        "/joint_states"
    ]
    channel = model.channels["/joint_states"]
    names = facts["first"]["name"]
    for field in ("position", "velocity", "effort"):
        columns = [channel.columns.index(f"{field}.{joint}") for joint in names]
        np.testing.assert_allclose(channel.values[0, columns], facts["first"][field])
        np.testing.assert_allclose(channel.values[-1, columns], facts["last"][field])
    assert len(channel.times_s) == 200
    assert "header.stamp.sec" not in channel.columns


def test_nested_numeric_fields_and_fixed_arrays_are_columns() -> None:
    model = _model("foxglove_protobuf.mcap")
    facts = _expected()["files"]["foxglove_protobuf.mcap"]["decoded"]["json"]
    channel = model.channels["/arm/state"]
    first = facts["/arm/state"]["first"]
    row = dict(zip(channel.columns, channel.values[0], strict=True))
    assert [row[f"q.{i}"] for i in range(6)] == pytest.approx(first["q"])
    assert row["tip.z"] == pytest.approx(first["tip"]["z"])
    assert row["gripper"] == pytest.approx(first["gripper"])
    assert row["ok"] == 1.0
    odometry = _model("ros2.mcap").channels["/odom"]
    assert "pose.covariance.35" in odometry.columns


def _raw_pixel(entry: dict[str, Any], frame: np.ndarray) -> None:
    first, last = entry["px_first"], entry["px_last"]
    encoding = entry["encoding"]
    if encoding in ("rgb8", "rgba8"):
        assert list(frame[0, 0]) == first[:3]
        assert list(frame[-1, -1]) == last[:3]
    elif encoding == "bgr8":
        assert list(frame[0, 0]) == first[::-1]
    elif encoding == "mono8":
        assert list(frame[0, 0]) == [first[0]] * 3


@pytest.mark.parametrize("name", ["foxglove_protobuf.mcap", "ros2.mcap"])
def test_every_image_decodes_as_its_reader_saw_it(name: str) -> None:
    model = _model(name)
    images = _expected()["files"][name]["decoded"]["images"]
    for topic, entries in images.items():
        track = _camera(model, topic)
        assert len(track.times_s) == len(entries)
        for index, entry in enumerate(entries):
            frame, _ = track.fetch(index)
            width = entry.get("width") or entry["pillow"]["width"]
            height = entry.get("height") or entry["pillow"]["height"]
            assert (frame.width, frame.height) == (width, height)
            if "pillow" in entry:
                mean = frame.pixels.reshape(-1, 3).mean(axis=0)
                np.testing.assert_allclose(mean, entry["pillow"]["mean_rgb"], atol=1.5)
            else:
                _raw_pixel(entry, frame.pixels)


def test_depth_draws_through_a_colour_scale_with_nan_black() -> None:
    track = _camera(_model("foxglove_protobuf.mcap"), "/raw/depth32")
    frame, _ = track.fetch(0)
    pixels = frame.pixels
    assert list(pixels[-1, -1]) == [0, 0, 0]  # NaN in the file
    assert len({tuple(p) for p in pixels.reshape(-1, 3)}) > 10


CALIBRATED_CAMERAS = [
    ("foxglove_protobuf.mcap", "/cam/front/compressed", "/cam/front/calibration"),
    ("ros2.mcap", "/camera/image_raw", "/camera/camera_info"),
    ("ros2.mcap", "/fisheye/image_raw", "/fisheye/camera_info"),
]
"""File, camera topic and calibration topic of each calibrated camera."""


@pytest.mark.parametrize(("name", "topic", "calibration_topic"), CALIBRATED_CAMERAS)
def test_each_frame_carries_the_calibration_in_force(
    name: str, topic: str, calibration_topic: str
) -> None:
    model = _model(name)
    calibrations = _expected()["files"][name]["decoded"]["calibrations"]
    published = calibrations[calibration_topic]
    track = _camera(model, topic)
    origin = _origin(model)
    for index, time_s in enumerate(track.times_s):
        _, calibration = track.fetch(index)
        assert calibration is not None
        time_ns = origin + round(time_s * 1e9)
        before = [c for c in published if c["log_time"] <= time_ns] or published[:1]
        facts = before[-1]
        profile = calibration.profile
        assert profile.fx == pytest.approx(facts["K"][0])
        assert profile.cx == pytest.approx(facts["K"][2])
        assert profile.distortion == pytest.approx(
            tuple(facts["D"][: len(profile.distortion)])
        )
        assert calibration.pose is not None


def test_a_calibration_change_is_a_new_epoch_marked_on_the_timeline() -> None:
    model = _model("foxglove_protobuf.mcap")
    track = _camera(model, "/cam/front/compressed")
    epochs = {track.fetch(i)[1].epoch for i in range(len(track.times_s))}  # type: ignore[union-attr]
    assert epochs == {0, 1}
    assert any(m.kind.value == "calibration" for m in model.markers)


def test_the_camera_pose_comes_from_the_transform_tree() -> None:
    model = _model("foxglove_protobuf.mcap")
    transforms = _expected()["files"]["foxglove_protobuf.mcap"]["decoded"]["transforms"]
    rows = transforms["/tf"]
    base = rows[0]
    camera = next(r for r in rows if r["child"] == "cam_front_optical")
    track = _camera(model, "/cam/front/compressed")
    _, calibration = track.fetch(0)
    assert calibration is not None
    assert calibration.pose is not None
    # The camera sits 0.5 m above base_link, which is near the world origin.
    position = calibration.pose.translation_m
    assert position[2] == pytest.approx(
        camera["translation"][2] + base["translation"][2]
    )
    # A point 1 m ahead of the optical frame projects to the principal point.
    ahead = calibration.pose.rotation_matrix() @ np.array([0.0, 0.0, 1.0]) + position
    pixels, in_front = project_points(
        ahead[None, :], calibration.profile, calibration.pose
    )
    assert in_front[0]
    assert pixels[0] == pytest.approx([calibration.profile.cx, calibration.profile.cy])


def test_the_transform_tree_is_a_scene_of_frames() -> None:
    model = _model("ros2.mcap")
    geometry = model.geometry
    assert geometry is not None
    assert {"world", "base_link", "camera_optical"} <= set(geometry.bodies)
    assert model.channels["/tf:base_link"].unit == "m, quat"  # not all metres


def test_a_rosbag2_folder_opens_as_one_recording() -> None:
    bag = DATA / "rosbag2_run"
    assert expand_recordings([bag]) == [bag]
    model = open_recording(bag)
    facts = _expected()["rosbag2"]
    assert model.source == "mcap"
    assert (
        len(model.channels["/joint_states"].times_s)
        == facts["topics"]["/joint_states"]["message_count"]
    )


def test_a_folder_of_mcap_files_is_a_playlist() -> None:
    listed = expand_recordings([DATA])
    assert DATA / "ros2.mcap" in listed
    assert DATA / "rosbag2_run" in listed
    assert DATA / "README.md" not in listed


def test_inspect_lists_every_topic_with_its_schema_and_rate() -> None:
    report = inspect_recording(DATA / "ros2.mcap", verify=True)
    topics = {t["topic"]: t for t in report["mcap"]["topics"]}
    expected = _expected()["files"]["ros2.mcap"]["topics"]
    assert set(topics) == set(expected)
    for name, facts in expected.items():
        assert topics[name]["messages"] == facts["message_count"]
        assert topics[name]["schema"] == facts["schema_name"]
    assert topics["/joint_states"]["rate_hz"] == pytest.approx(100.0, rel=1e-3)
    assert report["valid"]


def test_convert_writes_an_fsr_that_opens_with_the_same_values(tmp_path: Path) -> None:
    output = tmp_path / "ros2.fsr"
    convert_recording(DATA / "ros2.mcap", output)
    source = _model("ros2.mcap")
    converted = open_recording(output)
    joints = source.channels["/joint_states"]
    again = converted.channels["/joint_states"]
    np.testing.assert_array_equal(again.values, joints.values)
    np.testing.assert_allclose(again.times_s, joints.times_s, atol=1e-9)
    assert len(converted.cameras) == len(source.cameras)
    assert converted.provenance or converted.metadata
    assert not math.isnan(converted.duration_s)


@pytest.mark.parametrize(("name", "topic", "calibration_topic"), CALIBRATED_CAMERAS)
def test_inspect_lists_each_camera_with_its_calibration_epochs(
    name: str, topic: str, calibration_topic: str
) -> None:
    report = inspect_recording(DATA / name)
    (camera,) = [c for c in report["cameras"] if c["name"] == topic]
    published = _expected()["files"][name]["decoded"]["calibrations"][calibration_topic]
    epochs = camera["calibration"]
    # One epoch per distinct calibration, from the first message that sent it.
    distinct = [
        facts
        for index, facts in enumerate(published)
        if index == 0
        or (facts["K"], facts["D"], facts["distortion_model"])
        != (
            published[index - 1]["K"],
            published[index - 1]["D"],
            published[index - 1]["distortion_model"],
        )
    ]
    assert len(epochs) == len(distinct)
    for epoch, facts in zip(epochs, distinct, strict=True):
        assert epoch["start_time_ns"] == facts["log_time"]
        assert epoch["model"] == facts["distortion_model"]
        assert (epoch["width"], epoch["height"]) == (facts["width"], facts["height"])
        assert [v for row in epoch["K"] for v in row] == pytest.approx(facts["K"])
        assert epoch["D"] == pytest.approx(facts["D"][: len(epoch["D"])])
        assert epoch["digest"].startswith("sha256:")
    assert "camera_calibrations" not in report["mcap"]
