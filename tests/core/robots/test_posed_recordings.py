"""Recordings opened with their robot: link-pose channels against other kinematics.

Each recording here was written by another tool (genesis-world, an
``mcap-ros2-support`` writer, lerobot, the MuJoCo recorder); opened with a
robot description, every ``robot/<link>`` channel must equal what a second,
independent implementation computes from the same recorded joints: MuJoCo's
``mj_kinematics`` for an MJCF, yourdfpy for a URDF, within 1e-4 m.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from data_paths import TEST_DATA as DATA
from mujoco_poses import assert_bodies_as_mujoco, assert_same_rotation

from fsr_core.errors import FsrError, RobotModelError
from fsr_core.robots import RobotRequest
from fsr_core.sources import (
    OpenOptions,
    episode_address,
    inspect_recording,
    open_recording,
)

_ROBOTS = DATA / "robots"
_FRANKA_URDF = _ROBOTS / "franka_panda" / "panda.urdf"
_FRANKA_MJCF = _ROBOTS / "franka_sim" / "franka_panda.xml"
_GENESIS_ARM = DATA / "genesis" / "v4_arm_exact.gstraj"
_MCAP_PANDA = DATA / "mcap" / "panda_description.mcap"
_LEROBOT_PANDA = episode_address(DATA / "lerobot" / "panda_v30", 0)


def _opened(path: Path, robot: Path, **options: object) -> object:
    request = RobotRequest(path=robot, **options)  # type: ignore[arg-type]
    return open_recording(path, options=OpenOptions(robot=request))


def test_a_genesis_franka_posed_by_an_mjcf_matches_mujoco() -> None:
    mujoco = pytest.importorskip("mujoco")
    model = _opened(_GENESIS_ARM, _FRANKA_MJCF)
    reference = mujoco.MjModel.from_xml_path(str(_FRANKA_MJCF.resolve()))
    data = mujoco.MjData(reference)
    joints = model.joints
    recorded = model.channels[joints.positions].values
    names = [
        mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_JOINT, j)
        for j in range(reference.njnt)
    ]
    # Genesis names them joint1 ... finger_joint2; the MJCF panda0_joint1 ...
    columns = [joints.names.index(re.sub(r"^panda0_", "", name)) for name in names]

    for frame in range(0, len(recorded), 5):
        data.qpos[:] = recorded[frame, [joints.position_columns[c] for c in columns]]
        assert_bodies_as_mujoco(model, reference, data, frame, atol=1e-4)


def test_an_mcap_panda_posed_by_its_urdf_matches_yourdfpy() -> None:
    yourdfpy = pytest.importorskip("yourdfpy")
    model = _opened(_MCAP_PANDA, _FRANKA_URDF)
    reference = yourdfpy.URDF.load(str(_FRANKA_URDF), load_meshes=False)
    joints = model.joints
    recorded = model.channels[joints.positions].values

    for frame in (0, 77, 150, len(recorded) - 1):
        values = {
            name: recorded[frame, column]
            for name, column in zip(joints.names, joints.position_columns, strict=True)
        }
        reference.update_cfg(
            np.array([values[name] for name in reference.actuated_joint_names])
        )
        for link in ("panda_link3", "panda_link7", "panda_hand", "panda_leftfinger"):
            expected = reference.get_transform(link)
            pose = model.channels[f"robot/{link}"].values[frame]
            np.testing.assert_allclose(pose[:3], expected[:3, 3], atol=1e-4)


def test_the_panel_gets_the_models_kinds_and_limits_for_matched_joints() -> None:
    model = _opened(_MCAP_PANDA, _FRANKA_URDF)
    specs = {spec.name: spec for spec in model.joints.joints}

    assert specs["panda_joint4"].lower == pytest.approx(-3.1416)  # pybullet's URDF
    assert specs["panda_joint4"].upper == pytest.approx(0.0)
    assert specs["panda_finger_joint1"].kind == "prismatic"
    assert specs["panda_finger_joint1"].unit == "m"
    assert specs["panda_finger_joint2"].unit == "m"  # the mimic finger too


def test_joint_units_deg_say_the_recorded_revolute_joints_are_degrees() -> None:
    radians = _opened(_LEROBOT_PANDA, _FRANKA_URDF)
    degrees = _opened(_LEROBOT_PANDA, _FRANKA_URDF, joint_units="deg")

    assert {s.unit for s in degrees.joints.joints if s.kind == "revolute"} == {"deg"}
    hand_rad = radians.channels["robot/panda_hand"].values
    hand_deg = degrees.channels["robot/panda_hand"].values
    assert np.abs(hand_rad - hand_deg).max() > 0.05  # read as degrees, barely turned
    assert np.ptp(hand_deg[:, :3], axis=0).max() < np.ptp(hand_rad[:, :3], axis=0).max()


def test_inspect_lists_the_matched_and_unmatched_joints() -> None:
    request = RobotRequest(path=_FRANKA_URDF)
    report = inspect_recording(_MCAP_PANDA, options=OpenOptions(robot=request))

    joints = report["robot"]["joints"]
    assert [item["model"] for item in joints["matched"]][:3] == [
        "panda_joint1",
        "panda_joint2",
        "panda_joint3",
    ]
    assert len(joints["matched"]) == 8
    assert joints["follow_another"] == [
        {"recorded": "panda_finger_joint2", "model": "panda_finger_joint2"}
    ]
    assert joints["unmatched_recorded"] == []
    # The tip: past the hand, the grasp target frame (not a sliding finger).
    assert report["robot"]["trail_link"] == "panda_grasptarget"


@pytest.mark.parametrize(
    ("robot", "problem"),
    [
        (Path("no_such_robot.urdf"), "no such robot description"),
        (_ROBOTS / "README.md", "not a well-formed URDF"),
    ],
)
def test_a_bad_robot_is_one_line_naming_its_file(robot: Path, problem: str) -> None:
    with pytest.raises(RobotModelError) as caught:
        _opened(_MCAP_PANDA, robot)

    assert str(robot) in str(caught.value)
    assert problem in str(caught.value)


def test_a_recording_without_joints_says_so(tmp_path: Path) -> None:
    with pytest.raises(FsrError, match="no joint positions"):
        _opened(DATA / "mcap" / "layout_unchunked.mcap", _FRANKA_URDF)


def test_a_recorded_transform_of_the_root_frame_moves_the_base(tmp_path: Path) -> None:
    # ros2.mcap (written by mcap-ros2-support) moves base_link on /tf and
    # records joint_1 ... on /joint_states; a description rooted at base_link
    # then stands where the transform puts it.
    description = tmp_path / "rooted.urdf"
    description.write_text(
        '<?xml version="1.0"?><robot name="rooted">'
        '<link name="base_link"/><link name="arm"/>'
        '<joint name="joint_1" type="revolute"><parent link="base_link"/>'
        '<child link="arm"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>'
    )
    model = _opened(DATA / "mcap" / "ros2.mcap", description)

    tf = model.channels["/tf:base_link"]
    base = model.channels["robot/base_link"]
    rows = np.searchsorted(tf.times_s, base.times_s, side="right") - 1
    ok = rows >= 0
    expected = tf.values[rows[ok]][:, [0, 1, 2, 6, 3, 4, 5]]
    assert ok.sum() > 10
    np.testing.assert_allclose(base.values[ok][:, :3], expected[:, :3], atol=1e-9)
    assert_same_rotation(base.values[ok][:, 3:], expected[:, 3:], atol=1e-4)
    assert np.ptp(base.values[ok][:, :3], axis=0).max() > 0.01  # it moved
