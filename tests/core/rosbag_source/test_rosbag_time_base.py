"""A bag's messages placed at their header stamps or at their log times.

``stamped.bag`` (ROS 1) and ``rosbag2/stamped`` were written by ``rosbags``'
writers with every message that has a header logged 30 ms after its stamp
(``tools/make_rosbag_data.py``); ``expected.json`` holds the log times and the
stamps ``rosbags`` read back. ``/odom_speed`` (``std_msgs/Float64``) has no
header and stays at its log time whatever the time base.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.errors import SchemaError
from fsr_core.recording import RecordingModel
from fsr_core.sources import inspect_recording, open_recording
from fsr_core.sources.open_options import OpenOptions
from tests.data_paths import ROSBAG1_DATA, ROSBAG2_DATA

STAMPED = [ROSBAG1_DATA / "stamped.bag", ROSBAG2_DATA / "stamped"]


def _topics(path: Path) -> dict[str, Any]:
    expected = json.loads((path.parent / "expected.json").read_text())
    return expected[path.name]["topics"]  # type: ignore[no-any-return]


@cache
def _opened(path: Path, base: str) -> RecordingModel:
    return open_recording(path, options=OpenOptions(time_base=base))


def _start(model: RecordingModel, channel: str) -> float:
    return float(model.channels[channel].times_s[0])


@pytest.mark.parametrize("path", STAMPED, ids=lambda path: path.name)
def test_header_stamps_place_messages_at_their_stamps(path: Path) -> None:
    topics = _topics(path)
    joints, speed = topics["/joint_states"], topics["/odom_speed"]
    model = _opened(path, "header")
    # The joints sit at their stamps; the speed, without a header, at log time.
    lead = _start(model, "/odom_speed") - _start(model, "/joint_states")
    assert lead == pytest.approx((speed["first_ns"] - joints["first_stamp_ns"]) / 1e9)
    times = model.channels["/joint_states"].times_s
    assert times[-1] - times[0] == pytest.approx(
        (joints["last_stamp_ns"] - joints["first_stamp_ns"]) / 1e9
    )
    frames = model.cameras[0].times_s
    image = topics[model.cameras[0].name]
    assert frames[0] - times[0] == pytest.approx(
        (image["first_stamp_ns"] - joints["first_stamp_ns"]) / 1e9
    )
    pose = model.channels["/tf:base_link"].times_s
    tf = topics["/tf"]
    assert pose[-1] - times[0] == pytest.approx(
        (tf["last_stamp_ns"] - joints["first_stamp_ns"]) / 1e9
    )
    assert model.metadata["time_base"] == "header"
    notes = " ".join(model.report["notes"])
    assert "without a header stamp" in notes
    assert "/odom_speed" in notes
    assert "/joint_states" not in notes


@pytest.mark.parametrize("path", STAMPED, ids=lambda path: path.name)
def test_log_time_is_the_default_and_keeps_the_recorded_lag(path: Path) -> None:
    topics = _topics(path)
    joints, speed = topics["/joint_states"], topics["/odom_speed"]
    model = open_recording(path)
    lag = _start(model, "/joint_states") - _start(model, "/odom_speed")
    assert lag == pytest.approx((joints["first_ns"] - speed["first_ns"]) / 1e9)
    assert lag == pytest.approx(0.03)
    header = _opened(path, "header")
    np.testing.assert_allclose(
        model.channels["/joint_states"].values,
        header.channels["/joint_states"].values,
    )


def test_a_bag_has_no_publish_time_so_it_plays_at_log_time() -> None:
    path = STAMPED[0]
    model = _opened(path, "publish")
    logged = open_recording(path)
    np.testing.assert_array_equal(
        model.channels["/joint_states"].times_s,
        logged.channels["/joint_states"].times_s,
    )
    assert any("no publish time" in note for note in model.report["notes"])


def test_inspect_names_the_time_base() -> None:
    report = inspect_recording(STAMPED[1], options=OpenOptions(time_base="header"))
    assert report["rosbag2"]["time_base"] == "header stamp"
    topics = {entry["topic"]: entry for entry in report["rosbag2"]["topics"]}
    assert topics["/odom_speed"]["at_log_time"] == topics["/odom_speed"]["messages"]
    assert "at_log_time" not in topics["/joint_states"]


def test_a_timeline_name_a_bag_lacks_is_refused_naming_the_bases() -> None:
    # ``--time-base`` also takes a Rerun recording's timeline names; a bag
    # has none of them and says which bases it has.
    with pytest.raises(SchemaError, match="log, publish, header") as caught:
        open_recording(STAMPED[0], options=OpenOptions(time_base="frame_nr"))
    assert caught.value.path == str(STAMPED[0])
