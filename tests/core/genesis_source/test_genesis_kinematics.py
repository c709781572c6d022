"""Forward kinematics of Genesis scenes: link poses from qpos and the description.

The exact recordings hold both the joint positions and the link poses Genesis
computed from them in the same step, so forward kinematics over ``qpos`` must
give back the recorded poses (to float32 rounding: Genesis ran in float32).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from genesis_data import DATA

from fsr_core.sources.genesis.kinematics import (
    Joint,
    KinematicTree,
    forward_kinematics,
    kinematic_tree,
)
from fsr_core.sources.genesis.recording_model import load_genesis, open_trajectory
from fsr_core.sources.genesis.scene_geometry import read_description

#: Largest difference allowed between our float64 forward kinematics and the
#: poses Genesis computed in float32 (metres, and quaternion components).
#: The test recordings agree within 2e-7.
TOLERANCE = 1e-6

EXACT = [
    f"{version}_{scene}_exact.gstraj"
    for version in ("v1", "v4")
    for scene in ("box", "arm", "batch")
]
PAIRS = [
    ("v4_box_minimal.gstraj", "v4_box_exact.gstraj"),
    ("v4_arm_minimal.gstraj", "v4_arm_exact.gstraj"),
    ("v4_batch_minimal.gstraj", "v4_batch_exact.gstraj"),
    ("v1_box_compressed.gstraj", "v1_box_exact.gstraj"),
    ("v1_arm_compressed.gstraj", "v1_arm_exact.gstraj"),
    ("v1_batch_compressed.gstraj", "v1_batch_exact.gstraj"),
]


def _tree(name: str) -> KinematicTree:
    index, _ = open_trajectory(DATA / name)
    description, problem = read_description(index)
    assert description is not None, problem
    return kinematic_tree(description)


@pytest.mark.parametrize("name", [*EXACT, "v4_box_every2_exact.gstraj"])
def test_kinematics_of_recorded_qpos_gives_the_recorded_link_poses(name: str) -> None:
    index, decoder = open_trajectory(DATA / name)
    description, _ = read_description(index)
    assert description is not None
    tree = kinematic_tree(description)
    for frame in range(index.n_frames):
        arrays = decoder.frame(frame)
        qpos = arrays["RigidSolver.rigid_info.qpos"].T  # (envs, n_qs)
        pos, quat = forward_kinematics(tree, qpos)
        recorded_pos = np.moveaxis(arrays["RigidSolver.dyn_state.links.pos"], 1, 0)
        recorded_quat = np.moveaxis(arrays["RigidSolver.dyn_state.links.quat"], 1, 0)
        np.testing.assert_allclose(pos, recorded_pos, rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(quat, recorded_quat, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize(("minimal", "exact"), PAIRS)
def test_minimal_file_shows_the_poses_the_exact_file_recorded(
    minimal: str, exact: str
) -> None:
    computed = load_genesis(DATA / minimal)
    recorded = load_genesis(DATA / exact)
    assert computed.geometry is not None
    assert recorded.geometry is not None
    assert computed.geometry.bodies == recorded.geometry.bodies
    np.testing.assert_allclose(
        computed.geometry.poses, recorded.geometry.poses, rtol=0, atol=TOLERANCE
    )
    assert any("forward kinematics" in note for note in computed.report["notes"])
    assert not any("forward kinematics" in n for n in recorded.report["notes"])


@pytest.mark.parametrize("name", ["v4_arm_minimal.gstraj", "v1_arm_compressed.gstraj"])
def test_link_tree_matches_the_solver_arrays_genesis_recorded(name: str) -> None:
    tree = _tree(name)
    _, decoder = open_trajectory(DATA / name)
    info = decoder.frame(0)
    parents = info["RigidSolver.dyn_info.links.parent_idx"]
    assert tree.parents == tuple(int(p) for p in parents)
    np.testing.assert_allclose(
        tree.pos_m, info["RigidSolver.dyn_info.links.pos"], atol=1e-7
    )
    q_starts = [joint.q_start for link in tree.joints for joint in link]
    np.testing.assert_array_equal(q_starts, info["RigidSolver.dyn_info.joints.q_start"])
    assert tree.n_qs == 9
    kinds = [joint.kind for link in tree.joints for joint in link]
    assert kinds.count("REVOLUTE") == 7
    assert kinds.count("PRISMATIC") == 2


def _joint(kind: str, q_start: int, axis: tuple[float, float, float]) -> Joint:
    sizes = {"REVOLUTE": 1, "PRISMATIC": 1, "FREE": 7, "SPHERICAL": 4, "FIXED": 0}
    neutral = np.zeros(sizes[kind])
    return Joint(kind, q_start, np.zeros(3), np.array(axis, dtype=float), neutral)


def test_two_revolute_joints_turn_a_planar_arm() -> None:
    z = (0.0, 0.0, 1.0)
    tree = KinematicTree(
        names=("upper", "fore"),
        parents=(-1, 0),
        pos_m=np.array([[0.0, 0.0, 0.5], [1.0, 0.0, 0.0]]),
        quat=np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0]]),
        joints=((_joint("REVOLUTE", 0, z),), (_joint("REVOLUTE", 1, z),)),
        n_qs=2,
    )
    qpos = np.array([[0.0, 0.0], [math.pi / 2, math.pi / 2]])
    pos, quat = forward_kinematics(tree, qpos)
    np.testing.assert_allclose(pos[0], [[0, 0, 0.5], [1, 0, 0.5]], atol=1e-12)
    np.testing.assert_allclose(pos[1], [[0, 0, 0.5], [0, 1, 0.5]], atol=1e-12)
    half = math.sqrt(0.5)
    np.testing.assert_allclose(quat[1, 0], [half, 0, 0, half], atol=1e-12)
    np.testing.assert_allclose(np.abs(quat[1, 1]), [0, 0, 0, 1], atol=1e-12)


def test_revolute_angle_counts_from_the_neutral_position() -> None:
    joint = Joint("REVOLUTE", 0, np.zeros(3), np.array([0.0, 0.0, 1.0]), np.ones(1))
    tree = KinematicTree(
        names=("base", "tip"),
        parents=(-1, 0),
        pos_m=np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
        quat=np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0]]),
        joints=((joint,), ()),
        n_qs=1,
    )
    at_rest, _ = forward_kinematics(tree, np.array([1.0]))
    np.testing.assert_allclose(at_rest[1], [1, 0, 0], atol=1e-12)


def test_prismatic_free_and_fixed_joints() -> None:
    tree = KinematicTree(
        names=("floating", "slider", "bolted"),
        parents=(-1, 0, 1),
        pos_m=np.array([[9.0, 9.0, 9.0], [0.0, 0.0, 0.1], [0.0, 0.2, 0.0]]),
        quat=np.tile([1.0, 0, 0, 0], (3, 1)),
        joints=(
            (_joint("FREE", 0, (0, 0, 0)),),
            (_joint("PRISMATIC", 7, (1.0, 0.0, 0.0)),),
            (_joint("FIXED", 8, (0, 0, 0)),),
        ),
        n_qs=8,
    )
    turned = [math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)]  # 90 deg, z
    qpos = np.array([1.0, 2.0, 3.0, *(2.0 * np.array(turned)), 0.3])
    pos, quat = forward_kinematics(tree, qpos)
    np.testing.assert_allclose(pos[0], [1, 2, 3], atol=1e-12)
    np.testing.assert_allclose(quat[0], turned, atol=1e-12)  # normalised
    np.testing.assert_allclose(pos[1], [1.0, 2.3, 3.1], atol=1e-12)  # slid along y
    np.testing.assert_allclose(pos[2], [0.8, 2.3, 3.1], atol=1e-12)
    np.testing.assert_allclose(quat[2], turned, atol=1e-12)


def test_frames_and_environments_are_kept_as_leading_axes() -> None:
    tree = _tree("v4_batch_exact.gstraj")
    qpos = np.zeros((5, 3, tree.n_qs))
    qpos[..., 3] = 1.0  # identity quaternions of the free joints
    qpos[..., 10] = 1.0
    pos, quat = forward_kinematics(tree, qpos)
    assert pos.shape == (5, 3, 3, 3)
    assert quat.shape == (5, 3, 3, 4)


def test_qpos_of_the_wrong_width_is_refused() -> None:
    tree = _tree("v4_box_exact.gstraj")
    with pytest.raises(ValueError, match="coordinates"):
        forward_kinematics(tree, np.zeros((2, 5)))


def test_a_zero_quaternion_in_qpos_gives_no_pose_rather_than_an_error() -> None:
    tree = _tree("v4_box_exact.gstraj")
    pos, quat = forward_kinematics(tree, np.zeros((2, tree.n_qs)))
    assert np.isnan(quat[:, 1]).all()  # the free box: no orientation
    np.testing.assert_array_equal(pos[:, 0], 0.0)  # the plane is where it was built
