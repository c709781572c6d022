"""The robot test data agree with the descriptions they were made for.

``tests/data/robots`` holds URDF/MJCF copies and the link poses pybullet and
MuJoCo computed for them; the panda MCAP and LeRobot dataset name the panda's
joints. The robot-model tests compare against these values, so a reference that
missed a link, left a joint limit or a mimic rule, or named other joints than
the description would let wrong drawing pass.
"""

from __future__ import annotations

import importlib
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.data_paths import MCAP_DATA, TEST_DATA

ROBOTS = TEST_DATA / "robots"
PANDA_URDF = ROBOTS / "franka_panda" / "panda.urdf"
URDF_REFERENCES = {
    "franka_panda.fk.json": PANDA_URDF,
    "xarm.fk.json": ROBOTS / "xarm" / "xarm6_robot.urdf",
}
MOVABLE = ("revolute", "continuous", "prismatic")


def _reference(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROBOTS / name).read_text(encoding="utf-8"))
    return loaded


def _movable_joints(urdf: Path) -> list[ET.Element]:
    root = ET.parse(urdf).getroot()
    return [joint for joint in root.findall("joint") if joint.get("type") in MOVABLE]


def _limits(joint: ET.Element) -> tuple[float, float]:
    limit = joint.find("limit")
    assert limit is not None
    return float(limit.attrib["lower"]), float(limit.attrib["upper"])


@pytest.mark.parametrize("name", sorted(URDF_REFERENCES))
def test_urdf_reference_poses_every_link_in_configs_within_the_limits(
    name: str,
) -> None:
    urdf = URDF_REFERENCES[name]
    reference = _reference(name)
    joints = _movable_joints(urdf)
    links = {link.attrib["name"] for link in ET.parse(urdf).getroot().findall("link")}
    configs = np.array(reference["configs"])
    lower, upper = np.array([_limits(joint) for joint in joints]).T

    assert reference["joint_names"] == [joint.attrib["name"] for joint in joints]
    assert set(reference["links"]) == links
    assert configs.shape == (20, len(joints))
    assert np.all((configs >= lower) & (configs <= upper))
    for poses in reference["links"].values():
        assert np.array(poses["position"]).shape == (20, 3)
        norms = np.linalg.norm(np.array(poses["quaternion"]), axis=1)
        np.testing.assert_allclose(norms, 1.0, atol=1e-9)


def test_panda_reference_drives_the_mimic_finger_from_its_leader() -> None:
    reference = _reference("franka_panda.fk.json")
    names = reference["joint_names"]
    configs = np.array(reference["configs"])
    mimic = ET.parse(PANDA_URDF).getroot().find("joint[@name='panda_finger_joint2']")
    assert mimic is not None
    rule = mimic.find("mimic")
    assert rule is not None
    leader = names.index(rule.attrib["joint"])

    np.testing.assert_array_equal(
        configs[:, names.index("panda_finger_joint2")], configs[:, leader]
    )
    assert np.ptp(configs[:, leader]) > 0.01


@pytest.mark.parametrize("name", sorted(URDF_REFERENCES))
def test_every_mesh_a_urdf_names_was_copied(name: str) -> None:
    urdf = URDF_REFERENCES[name]
    meshes = [
        mesh.attrib["filename"].removeprefix("package://")
        for mesh in ET.parse(urdf).getroot().iter("mesh")
    ]

    assert meshes
    assert [m for m in meshes if not (urdf.parent / m).is_file()] == []


def test_mjcf_reference_lists_every_body_of_the_compiled_model() -> None:
    mujoco = importlib.import_module("mujoco")  # the test extra has it
    reference = _reference("franka_sim.fk.json")
    model = mujoco.MjModel.from_xml_path(str(ROBOTS / reference["model"]))
    bodies = [model.body(index).name for index in range(model.nbody)]
    joints = [model.joint(index).name for index in range(model.njnt)]
    configs = np.array(reference["configs"])
    within = [kind != "zeros" for kind in reference["config_kinds"]]

    assert list(reference["bodies"]) == bodies
    assert reference["joint_names"] == joints
    assert np.all(configs[within] >= model.jnt_range[:, 0])
    assert np.all(configs[within] <= model.jnt_range[:, 1])


def test_panda_recordings_name_the_urdf_joints_within_their_limits() -> None:
    joints = _movable_joints(PANDA_URDF)
    names = [joint.attrib["name"] for joint in joints]
    lower, upper = np.array([_limits(joint) for joint in joints]).T
    mcap = json.loads((MCAP_DATA / "panda_description.expected.json").read_text())
    states = mcap["files"]["panda_description.mcap"]["decoded"]["joint_states"]
    lerobot = TEST_DATA / "lerobot" / "panda_v30"
    info = json.loads((lerobot / "meta" / "info.json").read_text())
    frames = json.loads((TEST_DATA / "lerobot" / "panda_v30.expected.json").read_text())

    assert states["name"] == names
    assert np.all(np.array(states["position"]) >= lower)
    assert np.all(np.array(states["position"]) <= upper)
    assert info["features"]["observation.state"]["names"] == names
    assert info["features"]["action"]["names"] == names
    for key in ("observation.state", "action"):
        values = np.array(frames["frames"][key])
        assert np.all((values >= lower) & (values <= upper))
