"""A MuJoCo recording opens in the viewer's model without MuJoCo: its 3D scene."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest

from fsr_core.format.catalog import geometry_streams, geometry_transform_stream
from fsr_core.format.reader import FsrReader
from fsr_core.format.writer import FsrWriter
from fsr_core.joint_set import JointKind
from fsr_core.sources.fsr import load_fsr


def test_scene_geometry_loads_without_mujoco(
    reach_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mujoco", None)  # importing it would fail
    model = load_fsr(reach_recording)
    geometry = model.geometry
    assert geometry is not None
    assert model.kinematics is None
    assert geometry.bodies == ("world", "base", "upper", "fore", "hand")
    kinds = {
        mesh.name: (mesh.kind, geometry.bodies[mesh.body]) for mesh in geometry.meshes
    }
    assert kinds["gripper"] == ("mesh", "hand")
    assert kinds["floor"] == ("plane", "world")
    upper = next(mesh for mesh in geometry.meshes if mesh.name == "upper")
    assert upper.rgba == pytest.approx((0.12, 0.47, 0.71, 1.0))
    assert [target.name for target in geometry.targets] == ["target_a", "target_b"]
    assert geometry.targets[1].radius_m == 0.03
    assert model.can_rerender is None
    assert model.can_resimulate is None


def test_poses_at_a_time_are_the_recorded_transforms(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        rows = reader.rows("scene.geometry.transforms")
        recorded = reader.record("scene.geometry.transforms", 5).decoded
    geometry = load_fsr(reach_recording).geometry
    assert geometry is not None
    at = float(rows["sim_time_s"][5])
    np.testing.assert_array_equal(geometry.poses_at(at + 1e-4), recorded)
    np.testing.assert_array_equal(geometry.poses_at(-1.0), geometry.poses[0])
    moved = np.abs(geometry.poses[-1] - geometry.poses[0]).max(axis=1)
    assert moved[0] == 0.0  # the world stays
    assert moved[4] > 0.01  # the hand moves


def test_a_mesh_that_does_not_fit_is_left_out_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "scene.fsr"
    streams = [*geometry_streams(), geometry_transform_stream(["world", "box"])]
    box = {
        "vertices": np.eye(3, dtype=np.float32),
        "faces": np.array([[0, 1, 2]], dtype=np.uint32),
    }
    broken = {**box, "faces": np.array([[0, 1, 9]], dtype=np.uint32)}
    with FsrWriter(path, streams, metadata={"run": {"name": "scene"}}) as writer:
        for seq, value in enumerate((box, broken)):
            writer.write(
                "scene.geometry.meshes",
                value,
                tick=0,
                sim_time_s=0.0,
                metadata={"mesh_id": f"m{seq}", "body": "box"},
            )
        pose = np.array([[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0, 1]], dtype=float)
        writer.write("scene.geometry.transforms", pose, tick=0, sim_time_s=0.0)
    with caplog.at_level(logging.WARNING):
        geometry = load_fsr(path).geometry
    assert geometry is not None
    assert [mesh.name for mesh in geometry.meshes] == ["m0"]
    assert "scene.geometry.meshes record 1 left out" in caplog.text
    assert "a face points past the 3 vertices" in caplog.text
    assert str(path) in caplog.text


def test_the_models_hinges_and_slides_are_its_joints_by_their_names(
    reach_recording: Path, contacts_recording: Path
) -> None:
    model = load_fsr(reach_recording)
    assert model.joints is not None
    assert model.joints.names == ("yaw", "shoulder", "elbow")
    assert {joint.kind for joint in model.joints.joints} == {JointKind.REVOLUTE}
    assert model.joint_channel == "q"
    joints = model.channels["q"]
    assert joints.unit == "rad"
    with FsrReader.open(reach_recording) as reader:
        _, _, values = reader.read_series("observations.mujoco")
        columns = list(reader.streams["observations.mujoco"].spec.channels or ())
    at = [columns.index(f"qpos.{name}") for name in joints.columns]
    np.testing.assert_array_equal(joints.values, values[:, at])
    # Rates and actuator forces of the same joints, from the observation record.
    velocities = model.channels[model.joints.velocities or ""]
    assert [velocities.columns[i] for i in model.joints.velocity_columns] == [
        "qvel.yaw",
        "qvel.shoulder",
        "qvel.elbow",
    ]
    assert [velocities.columns[i] for i in model.joints.effort_columns] == [
        "force.yaw",
        "force.shoulder",
        "force.elbow",
    ]
    # The contacts scene: its pusher slides (metres); its free bodies are no
    # joints and no robot's base.
    contacts = load_fsr(contacts_recording).joints
    assert contacts is not None
    assert [(j.name, j.kind, j.unit) for j in contacts.joints] == [
        ("push", JointKind.PRISMATIC, "m")
    ]
    assert contacts.base_pose is None
