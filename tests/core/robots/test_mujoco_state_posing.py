"""A recorded MuJoCo state poses every joint of the scene, as MuJoCo itself does.

robosuite records ``states``, its flattened ``MjSimState`` per step:
``[time, qpos (nq), qvel (nv)]``. Opened, ``lift.hdf5``'s episode draws its
``model_file`` with every joint posed from them: the cube (a free joint) where
the simulation had it, the gripper's fingers as they closed. The truth here is
MuJoCo's own ``mj_kinematics`` on the same ``qpos``, every body's world pose,
with the MJCF compiled by the test; ``states`` read with h5py. A state that
does not fit the model leaves the arm posed by its joints, with a note.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from data_paths import TEST_DATA
from mujoco_poses import assert_bodies_as_mujoco, assert_same_rotation

from app.headless.report_text import format_report
from fsr_core.joint_set import JointSet
from fsr_core.recording import Channel, RecordingModel, Segment, Timeline
from fsr_core.robots import pose_robot
from fsr_core.robots.mjcf import read_mjcf
from fsr_core.robots.robosuite_assets import resolve_robosuite_paths
from fsr_core.sources import episode_address, inspect_recording, open_recording

mujoco = pytest.importorskip("mujoco")

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
RENDER = TEST_DATA / "robosuite" / "lift_demo1_render.fsr"
CUBE_JOINT = "cube_joint0"
CUBE_BODY = "cube_main"


def _demo(path: Path, index: int) -> tuple[np.ndarray, str]:
    """Return demo ``index``'s ``states`` and ``model_file``, read with h5py."""
    with h5py.File(path, "r", locking=False) as handle:
        group = handle[f"data/demo_{index}"]
        text = group.attrs["model_file"]
        states = np.asarray(group["states"], dtype=np.float64)
    return states, text.decode() if isinstance(text, bytes) else str(text)


def _compiled(model_file: str) -> Any:
    """Compile a demo's MJCF with MuJoCo, its robosuite files found on this machine."""
    text = resolve_robosuite_paths(model_file.encode(), "lift.hdf5").text
    return mujoco.MjModel.from_xml_string(text.decode())


def _every_body_as_mujoco(
    model: RecordingModel, reference: Any, states: np.ndarray
) -> None:
    """Every body's ``robot/<body>`` pose equals ``mj_kinematics`` at each step."""
    data = mujoco.MjData(reference)
    for step in range(len(states)):
        data.qpos[:] = states[step, 1 : 1 + reference.nq]
        assert_bodies_as_mujoco(model, reference, data, step, atol=1e-7)


@pytest.fixture(scope="module")
def lift_demo_1() -> RecordingModel:
    model = open_recording(episode_address(LIFT, 1))
    if "robot" not in model.metadata:
        pytest.skip(f"robot not drawn here: {model.report.get('notes')}")
    return model


def test_every_body_of_the_episode_is_where_mujoco_puts_it(
    lift_demo_1: RecordingModel,
) -> None:
    states, model_file = _demo(LIFT, 1)
    reference = _compiled(model_file)

    assert states.shape[1] == 1 + reference.nq + reference.nv
    assert lift_demo_1.metadata["robot"]["posed_by"] == "states"
    _every_body_as_mujoco(lift_demo_1, reference, states)


def test_the_cube_is_drawn_where_its_free_joint_was_not_under_the_table(
    lift_demo_1: RecordingModel,
) -> None:
    states, model_file = _demo(LIFT, 1)
    reference = _compiled(model_file)
    joint = mujoco.mj_name2id(reference, mujoco.mjtObj.mjOBJ_JOINT, CUBE_JOINT)
    start = 1 + int(reference.jnt_qposadr[joint])
    cube = lift_demo_1.channels[f"robot/{CUBE_BODY}"].values
    recorded = states[:, start : start + 7]

    np.testing.assert_allclose(cube[:, :3], recorded[:, :3], atol=1e-12)
    assert_same_rotation(
        cube[:, 3:],
        recorded[:, 3:] / np.linalg.norm(recorded[:, 3:], axis=1, keepdims=True),
        atol=1e-7,
    )
    # Its rest (qpos0) is the model's: not where the episode had it.
    rest = reference.qpos0[start - 1 : start + 2]
    assert np.linalg.norm(cube[:, :3] - rest, axis=1).min() > 0.01
    # The cube is lifted by the end, as the demonstration did.
    assert cube[-1, 2] - cube[0, 2] == pytest.approx(recorded[-1, 2] - recorded[0, 2])
    assert cube[-1, 2] > cube[0, 2] + 0.01


def test_the_fingers_close_as_recorded(lift_demo_1: RecordingModel) -> None:
    states, model_file = _demo(LIFT, 1)
    reference = _compiled(model_file)
    fingers = [
        j
        for j in range(reference.njnt)
        if "finger"
        in (mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_JOINT, j) or "")
    ]
    assert len(fingers) == 2
    left = lift_demo_1.channels["robot/gripper0_right_leftfinger"].values[:, :3]
    right = lift_demo_1.channels["robot/gripper0_right_rightfinger"].values[:, :3]
    gap = np.linalg.norm(left - right, axis=1)
    finger_qpos = states[:, [1 + int(reference.jnt_qposadr[j]) for j in fingers]]

    # The fingers' gap changes as their joints did (both slide along one line).
    assert np.ptp(finger_qpos[:, 0]) > 0.005
    assert np.ptp(gap) == pytest.approx(
        np.ptp(finger_qpos[:, 0] - finger_qpos[:, 1]), rel=1e-6
    )


def test_inspect_says_every_joint_is_posed_from_the_states() -> None:
    report = inspect_recording(episode_address(LIFT, 2))
    if "robot" not in report:
        pytest.skip(f"robot not drawn here: {report.get('notes')}")

    assert "posed: every joint from states" in format_report(report)


def _edited_states(tmp_path: Path, change: str) -> Path:
    copy = tmp_path / "lift.hdf5"
    shutil.copyfile(LIFT, copy)
    with h5py.File(copy, "r+", locking=False) as handle:
        group = handle["data/demo_1"]
        states = np.asarray(group["states"])
        del group["states"]
        if change == "narrower":
            group["states"] = states[:, :-1]
    return copy


def test_states_of_another_width_leave_the_arm_posed_and_say_why(
    tmp_path: Path, lift_demo_1: RecordingModel
) -> None:
    states, model_file = _demo(LIFT, 1)
    reference = _compiled(model_file)
    model = open_recording(episode_address(_edited_states(tmp_path, "narrower"), 1))

    notes = model.report["notes"]
    said = [note for note in notes if "'states'" in note]
    assert len(said) == 1
    assert f"{states.shape[1] - 1} columns" in said[0]
    assert f"1 + {reference.nq} + {reference.nv}" in said[0]
    assert "posed_by" not in model.metadata["robot"]
    # The arm still follows robot0_joint_pos; the cube rests at its qpos0.
    hand = "robot/robot0_right_hand"
    np.testing.assert_allclose(
        model.channels[hand].values, lift_demo_1.channels[hand].values, atol=1e-9
    )
    joint = mujoco.mj_name2id(reference, mujoco.mjtObj.mjOBJ_JOINT, CUBE_JOINT)
    start = int(reference.jnt_qposadr[joint])
    cube = model.channels[f"robot/{CUBE_BODY}"].values
    np.testing.assert_allclose(
        cube[:, :3],
        np.tile(reference.qpos0[start : start + 3], (len(cube), 1)),
        atol=1e-12,
    )


def test_an_episode_without_states_says_what_rests(tmp_path: Path) -> None:
    model = open_recording(episode_address(_edited_states(tmp_path, "none"), 1))

    assert any("records no states" in note for note in model.report["notes"])
    if "robot" in model.metadata:
        assert "posed_by" not in model.metadata["robot"]


def test_the_render_replay_poses_its_cube_and_fingers_from_its_states() -> None:
    model = open_recording(RENDER)
    states = model.channels["states"].values
    carried = model.robot_description
    assert carried is not None
    # The MJCF the file carries, with the meshes embedded beside it.
    reference = mujoco.MjModel.from_xml_string(carried.text.decode(), carried.assets)

    _every_body_as_mujoco(model, reference, states)
    names = model.metadata["robosuite"]["state_names"]
    cube = model.channels[f"robot/{CUBE_BODY}"].values
    columns = [names.index(f"qpos.{CUBE_JOINT}.{part}") for part in ("x", "y", "z")]
    assert model.metadata["robot"]["posed_by"] == "states"
    np.testing.assert_allclose(cube[:, :3], states[:, columns], atol=1e-12)


# A small scene of MuJoCo's own: a free body away from the world's origin and
# a ball joint away from its body's origin, posed from a state as MuJoCo does.
_BALL_SCENE = """
<mujoco model="ball_scene">
  <worldbody>
    <body name="arm" pos="0.1 0.2 0.3" quat="0.9 0.1 0.3 0.2">
      <joint name="hinge" type="hinge" axis="0 1 1" ref="0.3"/>
      <geom type="box" size="0.1 0.02 0.02"/>
      <body name="wrist" pos="0.2 0 0" euler="10 20 30">
        <joint name="ball" type="ball" pos="0.05 0.01 0"/>
        <geom type="capsule" size="0.01 0.05"/>
        <body name="finger" pos="0.1 0 0">
          <joint name="slide" type="slide" axis="1 0 0"/>
          <geom type="sphere" size="0.01"/>
        </body>
      </body>
    </body>
    <body name="loose" pos="0.5 -0.4 0.7" euler="30 0 45">
      <freejoint name="loose_joint"/>
      <geom type="box" size="0.03 0.03 0.03"/>
    </body>
  </worldbody>
</mujoco>
"""


def test_ball_and_free_joints_of_a_state_are_posed_as_mujoco_poses_them(
    tmp_path: Path,
) -> None:
    scene = tmp_path / "ball_scene.xml"
    scene.write_text(_BALL_SCENE)
    reference = mujoco.MjModel.from_xml_path(str(scene))
    robot = read_mjcf(scene)
    rng = np.random.default_rng(7)
    frames = 12
    qpos = np.tile(reference.qpos0, (frames, 1)) + rng.normal(
        0.0, 0.4, (frames, reference.nq)
    )
    state = np.concatenate(
        [np.arange(frames)[:, None] * 0.05, qpos, np.zeros((frames, reference.nv))],
        axis=1,
    )
    times = np.arange(frames) * 0.05
    hinge = int(reference.jnt_qposadr[0])
    recording = RecordingModel(
        path=tmp_path / "run",
        source="test",
        title="run",
        timeline=Timeline((Segment(0, 0.0, times[-1], 0.0, 0, frames - 1),)),
        channels={
            "q": Channel("q", times, qpos[:, [hinge]], columns=("hinge",)),
            "state": Channel("state", times, state),
        },
        joints=dataclasses.replace(
            JointSet.of_channel("q", ("hinge",)), mujoco_state="state"
        ),
    )

    posed = pose_robot(recording, robot)

    assert posed.metadata["robot"]["posed_by"] == "state"
    assert not posed.metadata["robot"]["warnings"]  # no ball joint at rest
    _every_body_as_mujoco(posed, reference, state)
    unposed = pose_robot(
        dataclasses.replace(recording, joints=JointSet.of_channel("q", ("hinge",))),
        robot,
    )
    assert any("ball" in line for line in unposed.metadata["robot"]["warnings"])
