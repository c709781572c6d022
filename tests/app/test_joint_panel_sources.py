"""Every source's joints in the panel, its readouts, and a dataset's first plots.

Opened as a user opens them: the demo's planar arm, a skelarm log, a Genesis
arm and a batched Genesis run, LeRobot and EmbodiChain episodes and a ROS 2
MCAP, each written by its own tool (``tests/data``). The exported panel's
lines are what both panels show (``test_panel_rows.py`` checks they agree);
the transport bar's readout is the window's.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import SO100_JOINTS, TEST_DATA
from pytestqt.qtbot import QtBot

from app.canvas.panel import ReadoutPanel
from app.canvas.panel_rows.base import joint_lines
from app.canvas.panel_rows.registry import row_value
from app.window.main_window import MainWindow
from app.window.state import PlaybackClock
from app.window.widgets.transport import time_readout
from fsr_core.recording import RecordingModel
from fsr_core.sources import expand_recordings, open_recording

pytestmark = pytest.mark.gui

GENESIS = TEST_DATA / "genesis"
FRANKA = (
    "joint1",
    "joint2",
    "joint3",
    "joint4",
    "joint5",
    "joint6",
    "joint7",
    "finger_joint1",
    "finger_joint2",
)


def _episode(root: str, index: int = 0) -> Path:
    return expand_recordings([TEST_DATA / root])[index]


def _joint_lines(model: RecordingModel, play_time_s: float) -> list[str]:
    """Return the joints' lines the exported panel paints (name: value, details)."""
    value = row_value(model, "joints", play_time_s)
    assert value is not None
    texts = [line.text for line in joint_lines(value)]
    painted = ReadoutPanel(model).text_lines(play_time_s)
    start = painted.index(texts[0])
    assert painted[start : start + len(texts)] == texts
    return texts


def _readout(model: RecordingModel, play_time_s: float) -> str:
    clock = PlaybackClock()
    clock.set_frames(np.linspace(0.0, model.duration_s, 11))
    return time_readout(clock, model, play_time_s)


def test_the_planar_arm_names_its_joints_as_recorded_within_its_limits(
    short_takes: dict[str, Path],
) -> None:
    model = open_recording(short_takes["reach"])
    assert model.joints is not None
    assert model.kinematics is not None
    q = model.joint_angles_at(0.2)
    assert q is not None

    lines = _joint_lines(model, 0.2)

    assert model.joints.names == ("q0", "q1", "q2")
    assert model.kinematics.q_max_rad is not None
    assert [joint.upper for joint in model.joints.joints] == pytest.approx(
        list(model.kinematics.q_max_rad)
    )
    assert lines[0] == f"q0: {math.degrees(q[0]):.0f}°"
    assert lines[1].endswith(" N·m")  # its rate and torque, recorded
    assert "tick " in _readout(model, 0.2)


def test_a_skelarm_log_names_its_joints_with_rates_and_torques() -> None:
    model = open_recording(TEST_DATA / "skelarm" / "reach.sklog.npz")
    assert model.joints is not None

    lines = _joint_lines(model, 0.5)

    assert model.joints.names == ("j1", "j2")
    assert (model.joints.velocities, model.joints.efforts) == ("dq", "tau")
    assert [line.split(":")[0] for line in lines[::2]] == ["j1", "j2"]
    assert all(line.endswith(" N·m") for line in lines[1::2])


def test_a_genesis_arm_shows_its_dofs_in_degrees_and_metres_with_limits() -> None:
    model = open_recording(GENESIS / "v4_arm_exact.gstraj")
    assert model.joints is not None
    q = model.joint_angles_at(0.2)
    assert q is not None

    lines = _joint_lines(model, 0.2)

    assert model.joints.names == FRANKA
    assert [joint.kind.value for joint in model.joints.joints[-2:]] == [
        "prismatic",
        "prismatic",
    ]
    assert model.joints.joints[0].lower == pytest.approx(-2.8973)
    assert lines[0] == f"joint1: {math.degrees(q[0]):.0f}°"
    assert f"finger_joint1: {q[7]:.3f} m" in lines
    assert "tick " in _readout(model, 0.2)


def test_a_genesis_free_body_is_no_joint() -> None:
    model = open_recording(GENESIS / "v4_box_exact.gstraj")

    assert model.joints is None
    assert "No joint angles recorded" in ReadoutPanel(model).text_lines(0.0)


def test_a_batched_genesis_run_says_which_environment_is_shown() -> None:
    model = open_recording(GENESIS / "v4_batch_exact.gstraj")

    lines = ReadoutPanel(model).text_lines(0.0)

    assert "Environment env0 of 3" in lines
    assert (
        ReadoutPanel(model, environment="env2")
        .text_lines(0.0)
        .count("Environment env2 of 3")
        == 1
    )


@pytest.mark.parametrize("root", ["lerobot/tiny_v30", "lerobot/tiny_v21"])
def test_a_lerobot_episode_names_its_state_by_info_json(root: str) -> None:
    model = open_recording(_episode(root, 1))
    assert model.joints is not None
    q = model.joint_angles_at(0.3)
    assert q is not None

    lines = _joint_lines(model, 0.3)

    assert model.joints.names == SO100_JOINTS
    assert lines == [
        f"{name}: {math.degrees(value):.0f}°"
        for name, value in zip(SO100_JOINTS, q, strict=True)
    ]
    readout = _readout(model, 0.3)
    assert "tick" not in readout
    assert " · episode 1 · frame " in readout


def test_an_embodichain_episode_shows_velocity_and_effort() -> None:
    model = open_recording(_episode("embodichain/complete"))
    assert model.joints is not None
    effort = model.channels["observation.qf"].value_at(0.3)

    lines = _joint_lines(model, 0.3)

    assert model.joints.names[-1] == "gripper"
    assert (model.joints.velocities, model.joints.efforts) == (
        "observation.qvel",
        "observation.qf",
    )
    assert lines[1].endswith(f" · {effort[0]:.2f} N·m")
    assert " · episode 0 · frame " in _readout(model, 0.3)


def test_an_mcap_joint_state_topic_gives_names_velocities_and_efforts() -> None:
    model = open_recording(TEST_DATA / "mcap" / "ros2.mcap")
    assert model.joints is not None
    assert not model.channels["/joint_states"].loaded  # opening reads no topic

    lines = _joint_lines(model, 0.5)

    assert model.joints.names == tuple(f"joint_{k}" for k in range(1, 7))
    assert lines[0].startswith("joint_1: ")
    assert lines[1].endswith(" N·m")
    readout = _readout(model, 0.5)
    assert "tick" not in readout
    assert "episode" not in readout


@pytest.mark.parametrize(
    ("root", "state"),
    [("lerobot/tiny_v30", SO100_JOINTS), ("embodichain/complete", None)],
)
def test_a_dataset_episode_opens_on_its_state_and_action_plots(
    window: MainWindow, qtbot: QtBot, root: str, state: tuple[str, ...] | None
) -> None:
    window.open_files([_episode(root)])
    model = window.session.model
    assert model is not None
    assert model.joints is not None

    qtbot.waitUntil(lambda: window.plots.plot_count == 2)

    assert window.session.options.options.plots == (
        ("observation.state",),
        ("action",),
    )
    assert not window.plots_dock.isHidden()
    names = list(state or model.joints.names)
    assert window.plots.series_names(0) == names
    assert window.plots.series_names(1) == names


def test_the_transport_names_no_ticks_for_an_mcap_in_the_window(
    window: MainWindow, qtbot: Any
) -> None:
    window.open_files([TEST_DATA / "mcap" / "ros2.mcap"])
    window.session.clock.seek(0.5)

    text = window.transport.readout.text()

    assert text.startswith("t = 0.500 s · frame ")
    assert "tick" not in text
