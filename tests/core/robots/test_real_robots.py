"""Real robot descriptions, posed here and by an independent forward kinematics.

``tests/data/robots`` holds descriptions as packages ship them (pybullet_data's
Franka and xArm6 URDFs, genesis-world's franka_sim MJCF) and, beside each, the
link poses pybullet or MuJoCo computed for a set of joint configurations
(``*.fk.json``, made once by ``tools/make_robot_data.py``). Every link's pose
here must equal theirs within 1e-4 m and 1e-4 in the quaternion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.robots import RobotModel, link_poses, link_transforms, load_robot

_DATA = Path(__file__).resolve().parents[2] / "data" / "robots"
_CASES = {
    "franka_panda": ("franka_panda/panda.urdf", "links"),
    "xarm": ("xarm/xarm6_robot.urdf", "links"),
    "franka_sim": ("franka_sim/franka_panda.xml", "bodies"),
}


def _reference(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((_DATA / f"{name}.fk.json").read_text())
    return document


def _moving_values(robot: RobotModel, reference: dict[str, Any]) -> np.ndarray:
    names = reference["joint_names"]
    configs = np.asarray(reference["configs"], dtype=np.float64)
    columns = [names.index(joint.name) for joint in robot.moving_joints]
    return configs[:, columns]


@pytest.mark.parametrize("name", sorted(_CASES))
def test_every_link_pose_equals_the_independent_forward_kinematics(name: str) -> None:
    path, key = _CASES[name]
    reference = _reference(name)
    robot = load_robot(_DATA / path)

    poses = link_poses(link_transforms(robot, _moving_values(robot, reference)))

    compared = 0
    for link, expected in reference[key].items():
        if link not in robot.links:
            continue
        index = robot.links.index(link)
        position = np.asarray(expected["position"])
        quaternion = np.asarray(expected["quaternion"])  # w x y z, w >= 0
        np.testing.assert_allclose(poses[:, index, :3], position, atol=1e-4)
        sign = np.sign(poses[:, index, 3:4] * quaternion[:, :1] + 1e-300)
        np.testing.assert_allclose(sign * poses[:, index, 3:], quaternion, atol=1e-4)
        compared += 1
    assert compared == len(reference[key])


def test_the_franka_urdf_loads_every_visual_mesh_with_its_colours() -> None:
    robot = load_robot(_DATA / "franka_panda" / "panda.urdf")

    assert robot.warnings == ()
    assert {robot.links[visual.link] for visual in robot.visuals} >= {
        f"panda_link{i}" for i in range(8)
    }
    assert robot.triangles > 100_000
    assert len({visual.rgba for visual in robot.visuals}) > 1  # OBJ materials kept


def test_the_mjcf_franka_draws_its_visual_geoms_only() -> None:
    robot = load_robot(_DATA / "franka_sim" / "franka_panda.xml")

    assert [joint.name for joint in robot.moving_joints] == [
        *(f"panda0_joint{i}" for i in range(1, 8)),
        "panda0_finger_joint1",
        "panda0_finger_joint2",
    ]
    # The 16 visual mesh geoms (group 1); the collision geoms (group 3) are left.
    assert len(robot.visuals) == 16
    assert robot.triangles == 155_755
    assert robot.warnings == ()
