"""HDF5 simulation datasets written by robosuite and in ACT's layout, opened.

``tests/data/hdf5/lift.hdf5`` comes from robosuite's own data collection and
``gather_demonstrations_as_hdf5`` with the observations added as robomimic's
converter adds them; ``aloha/`` holds two ACT-layout episode files. The truths
(``*.truth.json``) are what h5py read back (``tools/make_hdf5_data.py``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from data_paths import HDF5_DATA as DATA

from fsr_core.errors import FsrError, LimitExceededError, SchemaError
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import (
    episode_address,
    expand_recordings,
    inspect_recording,
    open_recording,
    source_for,
)

LIFT = DATA / "lift.hdf5"
ALOHA = DATA / "aloha"


def _truth(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((DATA / name).read_text())
    return found


@pytest.fixture(scope="module")
def lift_demo_2() -> RecordingModel:
    # The source's own model: open_recording would also pose the robot of its
    # model_file (compiling robosuite's meshes, seconds) where they are installed.
    address = episode_path(LIFT, 2)
    return source_for(address).open(address)


@pytest.fixture(scope="module")
def aloha_episode() -> RecordingModel:
    return open_recording(ALOHA / "episode_1.hdf5")


def test_a_robosuite_file_is_a_playlist_of_its_demos() -> None:
    assert source_for(LIFT).name == "hdf5"
    assert expand_recordings([LIFT]) == [episode_path(LIFT, n) for n in (1, 2, 3)]
    assert episode_address(LIFT, 3) == episode_path(LIFT, 3)
    with pytest.raises(FsrError, match="no episode 7; the dataset has 3"):
        episode_address(LIFT, 7)
    with pytest.raises(SchemaError, match="--episode N"):
        open_recording(LIFT)


def test_episodes_come_in_natural_order(tmp_path: Path) -> None:
    renamed = tmp_path / "lift.hdf5"
    shutil.copyfile(LIFT, renamed)
    with h5py.File(renamed, "r+") as handle:
        handle.move("data/demo_3", "data/demo_10")
    assert expand_recordings([tmp_path]) == [
        episode_path(renamed, n) for n in (1, 2, 10)
    ]
    assert episode_address(renamed, 10) == episode_path(renamed, 10)


def test_every_array_is_a_channel_with_the_values_h5py_reads(
    lift_demo_2: RecordingModel,
) -> None:
    truth = _truth("lift.truth.json")["datasets"]
    expected = {
        key.removeprefix("data/demo_2/")
        for key, entry in truth.items()
        if key.startswith("data/demo_2/") and len(entry["shape"]) <= 2
    }
    assert set(lift_demo_2.channels) == expected
    assert {"actions", "rewards", "dones", "states", "obs/robot0_joint_pos"} <= expected
    for key in ("actions", "states", "obs/cube_pos", "next_obs/robot0_eef_pos"):
        channel = lift_demo_2.channels[key]
        entry = truth[f"data/demo_2/{key}"]
        assert channel.count == entry["shape"][0]
        np.testing.assert_array_equal(channel.values[0], np.ravel(entry["first"]))
        np.testing.assert_array_equal(channel.values[-1], np.ravel(entry["last"]))
    rewards = lift_demo_2.channels["rewards"]
    assert rewards.columns == ("rewards",)
    assert rewards.values[-1, 0] == truth["data/demo_2/rewards"]["last"]


def test_time_is_the_step_over_the_control_frequency(
    lift_demo_2: RecordingModel,
) -> None:
    env_args = json.loads(_truth("lift.truth.json")["attributes"]["data@env_args"])
    rate = env_args["env_kwargs"]["control_freq"]
    actions = lift_demo_2.channels["actions"]
    np.testing.assert_allclose(actions.times_s, np.arange(actions.count or 0) / rate)
    assert lift_demo_2.duration_s == pytest.approx(((actions.count or 0) - 1) / rate)
    assert lift_demo_2.metadata["env_args"]["env_name"] == "Lift"


def test_image_arrays_are_cameras_drawn_right_side_up(
    lift_demo_2: RecordingModel,
) -> None:
    truth = _truth("lift.truth.json")["datasets"]
    names = [camera.name for camera in lift_demo_2.cameras]
    assert names[:3] == [
        "obs/agentview_image",
        "obs/robot0_eye_in_hand_image",
        "obs/agentview_depth",
    ]
    assert len(names) == 6  # and the next observations' three
    camera = lift_demo_2.cameras[0]
    frame, calibration = camera.fetch(5)
    assert calibration is None
    assert (frame.width, frame.height) == (32, 32)
    # robosuite stores OpenGL's rows (bottom first): row 10 is drawn as row 21.
    stored = truth["data/demo_2/obs/agentview_image"]["frame5_row10_col20"]
    assert frame.pixels[21, 20].tolist() == stored
    depth = lift_demo_2.cameras[2]
    assert depth.values is not None
    stored_depth = truth["data/demo_2/obs/agentview_depth"]["frame5_row10_col20"]
    assert depth.values(5)[21, 20] == pytest.approx(stored_depth[0])
    assert depth.fetch(5)[0].pixels.std() > 10  # the colour scale, not grey


def test_joints_are_named_by_the_demo_model_and_its_robot_is_carried(
    lift_demo_2: RecordingModel,
) -> None:
    joints = lift_demo_2.joints
    assert joints is not None
    assert joints.positions == "obs/robot0_joint_pos"
    assert joints.velocities == "obs/robot0_joint_vel"
    assert [joint.name for joint in joints.joints] == [
        f"robot0_joint{n}" for n in range(1, 8)
    ]
    robot = lift_demo_2.robot_description
    assert robot is not None
    assert robot.kind == "mjcf"
    assert robot.where == "lift.hdf5 data/demo_2 model_file"
    assert robot.text.lstrip().startswith(b"<mujoco")
    length = _truth("lift.truth.json")["attributes"]["data/demo_2@model_file"]
    assert len(robot.text) == length["length"]


def test_an_aloha_folder_is_a_playlist_of_its_files(
    aloha_episode: RecordingModel,
) -> None:
    assert expand_recordings([ALOHA]) == [
        ALOHA / "episode_0.hdf5",
        ALOHA / "episode_1.hdf5",
    ]
    truth = _truth("aloha/episode_1.truth.json")["datasets"]
    assert set(aloha_episode.channels) == {
        "action",
        "observations/qpos",
        "observations/qvel",
    }
    qpos = aloha_episode.channels["observations/qpos"]
    np.testing.assert_allclose(
        qpos.values[-1], truth["observations/qpos"]["last"], rtol=0, atol=0
    )
    np.testing.assert_allclose(qpos.times_s[:3], [0.0, 0.02, 0.04])  # ACT's DT
    frame, _ = aloha_episode.cameras[0].fetch(5)
    assert aloha_episode.cameras[0].name == "observations/images/top"
    stored = truth["observations/images/top"]["frame5_row10_col20"]
    assert frame.pixels[10, 20].tolist() == stored  # ACT's images are upright
    joints = aloha_episode.joints
    assert joints is not None
    assert joints.joints[0].name == "left_waist"
    assert joints.joints[13].name == "right_gripper"
    assert joints.velocities == "observations/qvel"


def test_the_inspector_lists_episodes_and_verify_passes() -> None:
    report = inspect_recording(LIFT, verify=True)
    assert report["valid"] is True
    assert [e["name"] for e in report["hdf5"]["episodes"]] == [
        "demo_1",
        "demo_2",
        "demo_3",
    ]
    assert report["verification"]["problem_count"] == 0
    assert report["metadata"]["env_args"]["env_name"] == "Lift"
    address = episode_path(LIFT, 2)
    episode = source_for(address).inspect(address)  # type: ignore[attr-defined]
    assert episode["hdf5"]["layout"] == "robomimic"
    assert episode["hdf5"]["arrays"]["obs/agentview_depth"]["role"] == "depth"


@pytest.fixture(scope="module")
def damaged_lift(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a copy of the robosuite file: demo_2 with a NaN, 2 rewards less."""
    path = tmp_path_factory.mktemp("bad") / "lift.hdf5"
    shutil.copyfile(LIFT, path)
    with h5py.File(path, "r+") as handle:
        demo = handle["data/demo_2"]
        actions = demo["actions"][()]
        actions[3, 1] = np.nan
        del demo["actions"]
        demo.create_dataset("actions", data=actions)
        rewards = demo["rewards"][()]
        del demo["rewards"]
        demo.create_dataset("rewards", data=rewards[:-2].astype(np.float32))
    return path


def test_verify_names_the_episode_that_does_not_check_out(damaged_lift: Path) -> None:
    report = inspect_recording(damaged_lift, verify=True)
    assert report["valid"] is False
    problems = report["verification"]["problems"]
    assert all(problem.startswith("episode 2 (demo_2): ") for problem in problems)
    assert any("actions holds 1 values that are not finite" in p for p in problems)
    assert any("rewards has 30 rows where actions has 32" in p for p in problems)
    assert any("rewards is float32 where demo_1's is float64" in p for p in problems)
    first = episode_path(damaged_lift, 1)
    one = source_for(first).inspect(first, verify=True)  # type: ignore[attr-defined]
    assert one["valid"] is True


def test_an_unexpected_layout_says_what_was_expected_and_found(tmp_path: Path) -> None:
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as handle:
        handle.create_group("trajectories")
        handle.create_dataset("poses", data=np.zeros((3, 2)))
    with pytest.raises(SchemaError) as caught:
        open_recording(path)
    message = str(caught.value)
    assert "expected robomimic (data/demo_N" in message
    assert "ManiSkill (traj_N" in message
    assert "ALOHA/ACT (observations/qpos" in message
    assert "found top-level poses, trajectories" in message


def test_a_cut_file_fails_with_one_line(tmp_path: Path) -> None:
    cut = tmp_path / "cut.hdf5"
    cut.write_bytes(LIFT.read_bytes()[: LIFT.stat().st_size // 3])
    with pytest.raises(FsrError) as caught:
        expand_recordings([cut]) and open_recording(episode_path(cut, 1))
    assert "\n" not in str(caught.value)
    assert str(cut) in str(caught.value)


def test_arrays_over_the_memory_budget_are_refused_before_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "2KiB")
    model = open_recording(ALOHA / "episode_0.hdf5")
    qpos = model.channels["observations/qpos"]
    with pytest.raises(LimitExceededError, match="array observations/qpos needs"):
        qpos.values  # noqa: B018
    with pytest.raises(LimitExceededError, match="one frame of observations/images"):
        model.cameras[0].fetch(0)


def test_without_h5py_the_message_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "h5py", None)
    assert "fsr-viewer[hdf5]" in (source_for(LIFT).unavailable_reason() or "")
