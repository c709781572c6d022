"""How a robot description is refused, resolved and matched: the rules users rely on.

These descriptions are written here on purpose: each breaks one rule (a cut
file, a DTD, a loop, a mesh reference leaving its package). The real robots
(pybullet_data's Franka, genesis-world's MJCF Franka) are tested beside them.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import RobotModelError
from fsr_core.robots import load_robot, match_joints
from fsr_core.robots.kinematics import link_poses, link_transforms
from fsr_core.robots.link_frames import frame_meshes
from fsr_core.robots.matching import read_joint_map
from fsr_core.robots.resource_paths import ResourceRoots

_ARM = """<?xml version="1.0"?>
<robot name="arm">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base"><visual><geometry><box size="0.2 0.2 0.1"/></geometry>
    <material name="blue"/></visual></link>
  <link name="l1"><visual><origin xyz="0 0 0.25"/>
    <geometry><cylinder radius="0.03" length="0.5"/></geometry></visual></link>
  <link name="l2"><visual><geometry><mesh filename="{mesh}"/></geometry></visual></link>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.05"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.2" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="tip"/>
    <origin xyz="0 0 0.4"/><axis xyz="0 1 0"/>
    <mimic joint="j1" multiplier="2" offset="0.1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def _write(folder: Path, text: str, name: str = "arm.urdf") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_missing_mesh_is_one_warning_and_the_rest_loads(tmp_path: Path) -> None:
    robot = load_robot(
        _write(tmp_path, _ARM.format(mesh="package://arm/meshes/l2.stl"))
    )

    assert robot.links == ("base", "l1", "l2", "tip")
    assert [visual.link for visual in robot.visuals] == [0, 1]
    assert robot.visuals[0].rgba == (0.0, 0.0, 1.0, 1.0)  # the named material
    assert len(robot.warnings) == 1
    assert "'l2'" in robot.warnings[0]
    assert "l2.stl" in robot.warnings[0]
    assert "drawn as a frame" in robot.warnings[0]
    assert robot.framed_links == frozenset({2})


def test_a_link_whose_mesh_is_missing_is_drawn_as_its_frame(tmp_path: Path) -> None:
    robot = load_robot(_write(tmp_path, _ARM.format(mesh="package://arm/l2.stl")))
    values = np.array([[0.0, 0.0], [0.5, 0.1]])
    poses = link_poses(link_transforms(robot, values))

    bars = frame_meshes(robot, poses[0, :, :3])

    assert [mesh.name for mesh in bars] == ["l2:x", "l2:y", "l2:z"]
    assert {mesh.body for mesh in bars} == {2}
    assert {mesh.kind for mesh in bars} == {"frame"}
    for axis, bar in enumerate(bars):  # each bar runs from the origin along its axis
        assert bar.vertices_m[:, axis].min() == pytest.approx(0.0)
        assert bar.vertices_m[:, axis].max() > 5 * np.ptp(
            bar.vertices_m[:, (axis + 1) % 3]
        )


def test_a_description_without_visuals_draws_every_link_as_its_frame(
    tmp_path: Path,
) -> None:
    bare = re.sub(r"<visual>.*?</visual>", "", _ARM.format(mesh="x.stl"), flags=re.S)
    robot = load_robot(_write(tmp_path, bare))
    poses = link_poses(link_transforms(robot, np.zeros((1, 2))))

    bars = frame_meshes(robot, poses[0, :, :3])

    assert robot.visuals == ()
    assert robot.warnings == ()
    assert [mesh.name for mesh in bars] == [
        f"{link}:{axis}" for link in robot.links for axis in "xyz"
    ]


def test_forward_kinematics_follows_origins_axes_and_mimics(tmp_path: Path) -> None:
    robot = load_robot(_write(tmp_path, _ARM.format(mesh="none.stl")))
    values = np.array([[0.0, 0.0], [np.pi / 2, 0.1]])  # j1, j2 (j3 mimics j1)

    poses = link_poses(link_transforms(robot, values))

    np.testing.assert_allclose(poses[0, 3, :3], [0, 0, 0.95], atol=1e-12)
    np.testing.assert_allclose(poses[1, 3, :3], [0, 0, 1.05], atol=1e-12)
    # tip: turned by j1 (pi/2 about z) then by j3 = 2 * pi/2 + 0.1 about y.
    turn = np.pi + 0.1
    expected_w = np.cos(np.pi / 4) * np.cos(turn / 2)
    assert abs(abs(poses[1, 3, 3]) - abs(expected_w)) < 1e-12


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (_ARM.format(mesh="x.stl")[:300], "not a well-formed URDF"),
        (
            _ARM.format(mesh="x.stl").replace(
                "?>", '?>\n<!DOCTYPE robot [<!ENTITY e "x">]>', 1
            ),
            "DTD",
        ),
        ('<?xml version="1.0"?><mujocoo/>', "root element"),
        (
            _ARM.format(mesh="x.stl").replace(
                '<parent link="l2"/>', '<parent link="tip"/>'
            ),
            "root",
        ),
        (
            _ARM.format(mesh="x.stl").replace('child link="l1"', 'child link="nope"'),
            "no link",
        ),
        (
            _ARM.format(mesh="x.stl").replace(
                '<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>', 1
            ),
            "zero axis",
        ),
    ],
    ids=["cut", "dtd", "not-urdf", "loop", "unknown-link", "zero-axis"],
)
def test_a_broken_description_is_one_line_naming_the_file(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = _write(tmp_path, text)

    with pytest.raises(RobotModelError) as caught:
        load_robot(path)

    message = str(caught.value)
    assert str(path) in message
    assert reason in message
    assert "\n" not in message


def test_package_references_resolve_inside_their_roots_only(tmp_path: Path) -> None:
    package = tmp_path / "share" / "arm_description"
    (package / "meshes").mkdir(parents=True)
    (package / "meshes" / "l2.stl").write_text("solid x\nendsolid x\n")
    (tmp_path / "secret.stl").write_text("solid s\nendsolid s\n")
    description = tmp_path / "work" / "elsewhere" / "arm.urdf"
    description.parent.mkdir(parents=True)
    roots = ResourceRoots.for_description(
        description, (tmp_path / "share",), environ={}
    )

    assert (
        roots.resolve("package://arm_description/meshes/l2.stl")
        == (package / "meshes" / "l2.stl").resolve()
    )
    assert roots.resolve("package://arm_description/../../secret.stl") is None
    assert roots.resolve("package://arm_description/meshes/none.stl") is None
    assert roots.resolve(str(tmp_path / "secret.stl")) is None
    from_environment = ResourceRoots.for_description(
        description, environ={"ROS_PACKAGE_PATH": str(tmp_path / "share")}
    )
    assert (
        from_environment.resolve("package://arm_description/meshes/l2.stl") is not None
    )


def test_joints_match_exactly_then_by_normalised_name_never_by_guess(
    tmp_path: Path,
) -> None:
    robot = load_robot(_write(tmp_path, _ARM.format(mesh="x.stl")))

    exact = match_joints(["j2", "j1"], robot)
    prefixed = match_joints(["Panda-J1.pos", "Panda-J2.pos"], robot)
    ambiguous = match_joints(["j_1", "j1_", "other"], robot)

    assert exact.pairs == ((0, 1), (1, 0))
    assert exact.how == ("exact", "exact")
    assert prefixed.pairs == ((0, 0), (1, 1))
    assert set(prefixed.how) == {"normalised"}
    assert ambiguous.pairs == ()
    assert ambiguous.unmatched_recorded == ("j_1", "j1_", "other")
    assert exact.fixed == ("j3",)  # the mimic never takes a recorded value


def test_a_joint_map_settles_names_and_refuses_unknown_joints(tmp_path: Path) -> None:
    robot = load_robot(_write(tmp_path, _ARM.format(mesh="x.stl")))
    good = tmp_path / "map.json"
    good.write_text('{"shoulder": "j1", "slide": "j2"}')
    bad = tmp_path / "bad.json"
    bad.write_text('{"shoulder": "elbow"}')

    match = match_joints(["shoulder", "slide"], robot, read_joint_map(good, robot))

    assert match.pairs == ((0, 0), (1, 1))
    assert match.how == ("map", "map")
    with pytest.raises(RobotModelError, match="elbow"):
        read_joint_map(bad, robot)
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(RobotModelError, match="one JSON object"):
        read_joint_map(tmp_path / "list.json")
