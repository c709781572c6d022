"""What a MuJoCo recording holds: model, state, control, cameras, scene."""

from __future__ import annotations

import base64
import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

from fsr_core.control import AuthoredChunk, CommandSpace
from fsr_core.format.reader import FsrReader

pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "mujoco"


def test_model_files_are_embedded_with_their_digests(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        records = [r.decoded for r in reader.iter_records("model.files")]
        model = reader.metadata["model"]
        contract = reader.metadata["simulation_contract"]
    files = {r["path"]: base64.b64decode(r["base64"]) for r in records}
    assert sorted(files) == ["assets/gripper.obj", "reach_arm.xml"]
    for name, data in files.items():
        assert data == (EXAMPLES / name).read_bytes()
        listed = next(item for item in model["files"] if item["path"] == name)
        assert listed["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert model["entry"] == "reach_arm.xml"
    assert contract["model_digest"] == model["digest"]


def test_contract_names_step_integrator_gravity_and_actuators(
    reach_recording: Path,
) -> None:
    with FsrReader.open(reach_recording) as reader:
        contract = reader.metadata["simulation_contract"]
    assert contract["simulator"] == "mujoco"
    assert contract["timestep_s"] == 0.002
    assert contract["integrator"] == "mjINT_IMPLICITFAST"
    assert contract["gravity_mps2"] == [0.0, 0.0, -9.81]
    assert contract["axes"] == ["yaw", "shoulder", "elbow"]
    assert set(contract["command_spaces"].values()) == {"joint_position"}
    assert set(contract["units"].values()) == {"rad"}


def test_first_observation_is_the_keyframe_state(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        spec = reader.streams["observations.mujoco"].spec
        first = reader.record("observations.mujoco", 0)
        rows = reader.rows("observations.mujoco")
    columns = list(spec.channels or ())
    row = np.asarray(first.decoded, dtype=np.float64).ravel()
    qpos = [
        row[columns.index(f"qpos.{joint}")] for joint in ("yaw", "shoulder", "elbow")
    ]
    assert qpos == [0.0, 0.3, 0.9]
    assert first.tick == 0
    assert len(rows) == 200  # 0.4 s at 2 ms
    units = dict(zip(columns, spec.units, strict=True))
    assert units["qpos.yaw"] == "rad"
    assert units["qvel.elbow"] == "rad/s"
    assert units["force.elbow"] == "N*m"
    assert units["sensor.tip.0"] == "m"
    assert "sensor.elbow_torque" in columns


def test_authored_chunks_address_the_actuators(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        chunks = [
            AuthoredChunk.from_json(r.decoded)
            for r in reader.iter_records("control.authored")
        ]
        applied = [r.decoded for r in reader.iter_records("control.applied")]
    assert len(chunks) == 1  # the second starts at 1.6 s, after this short run
    chunk = chunks[0]
    assert chunk.axes == ("yaw", "shoulder", "elbow")
    assert chunk.command_space is CommandSpace.JOINT_POSITION
    assert chunk.units == ("rad", "rad", "rad")
    np.testing.assert_array_equal(chunk.values[-1], [0.6023, 0.2324, 1.4070])
    assert len(applied) == 20  # every 10th step, evidence only
    assert applied[0]["chunk_id"] == chunk.chunk_id


def test_intrinsics_follow_fovy_and_image_size(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        overview = reader.calibration("overview", generation=0, tick=0)
        top = reader.calibration("top", generation=0, tick=0)
    for calibration, fovy_deg, (width, height) in (
        (overview, 50.0, (160, 120)),
        (top, 55.0, (120, 90)),
    ):
        profile = calibration.profile
        focal = 0.5 * height / math.tan(math.radians(fovy_deg) / 2)
        assert (profile.width, profile.height) == (width, height)
        assert profile.fx == pytest.approx(focal)
        assert profile.fy == pytest.approx(focal)
        assert (profile.cx, profile.cy) == ((width - 1) / 2, (height - 1) / 2)


def test_extrinsics_are_the_camera_pose_in_opencv_axes(
    reach_recording: Path,
) -> None:
    with FsrReader.open(reach_recording) as reader:
        pose = reader.calibration("top", generation=0, tick=0).pose
    assert pose is not None
    np.testing.assert_allclose(pose.translation_m, [0.15, 0.0, 1.6], atol=1e-12)
    # The top camera looks straight down: its OpenCV +z (optical axis) is world -z,
    # its image x (MJCF xyaxes "0 -1 0") is world -y.
    rotation = pose.rotation_matrix()
    np.testing.assert_allclose(rotation[:, 2], [0.0, 0.0, -1.0], atol=1e-9)
    np.testing.assert_allclose(rotation[:, 0], [0.0, -1.0, 0.0], atol=1e-9)


def test_cameras_record_at_their_own_rates(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        overview = reader.rows("sensors.overview.camera.rgb")
        top = reader.rows("sensors.top.camera.rgb")
        frame = reader.media_frame(reader.record("sensors.top.camera.rgb", 0))
    assert len(overview) == 12  # 30 Hz over 0.4 s
    assert len(top) == 6  # 15 Hz
    assert frame.decoded.pixels.shape == (90, 120, 3)
    assert frame.decoded.pixels.std() > 5  # a rendered scene, not a blank frame


def test_render_state_and_geometry_are_recorded(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        state = reader.record("render.state", 3).decoded
        meshes = list(reader.iter_records("scene.geometry.meshes"))
        transforms = reader.streams["scene.geometry.transforms"]
        _, _, poses = reader.read_series("scene.geometry.transforms")
        rows = reader.rows("render.state")
    assert len(rows) == 12
    assert set(state) >= {"joint_positions", "joint_velocities", "body_poses"}
    assert state["joint_positions"].shape == (3,)
    bodies = transforms.spec.attributes["bodies"]
    assert bodies == ["world", "base", "upper", "fore", "hand"]
    assert poses.shape == (12, 5, 7)
    kinds = {m.metadata["mesh_id"]: m.metadata["geom_type"] for m in meshes}
    assert kinds == {
        "floor": "plane",
        "base": "cylinder",
        "upper": "capsule",
        "fore": "capsule",
        "gripper": "mesh",
    }
    assert all(m.tick == 0 for m in meshes)  # written once
    gripper = next(m for m in meshes if m.metadata["mesh_id"] == "gripper")
    assert gripper.metadata["body"] == "hand"
    assert gripper.decoded["faces"].max() < len(gripper.decoded["vertices"])


def test_lifecycle_starts_cuts_and_completes(reach_recording: Path) -> None:
    with FsrReader.open(reach_recording) as reader:
        events = [
            (r.tick, r.decoded["event"]) for r in reader.iter_records("run.lifecycle")
        ]
        task = reader.record("task.context", 0).decoded
    assert events == [
        (0, "start"),
        (199, "terminal_semantic_cut"),
        (199, "completion"),
    ]
    names = [target["name"] for target in task["targets_3d"]]
    assert names == ["target_a", "target_b"]
    assert task["targets_3d"][0]["pos_m"] == pytest.approx([0.32, 0.22, 0.38])


def test_contacts_are_recorded_as_events_and_a_channel(
    contacts_recording: Path,
) -> None:
    with FsrReader.open(contacts_recording) as reader:
        names = [r.decoded["name"] for r in reader.iter_records("events")]
        spec = reader.streams["observations.mujoco"].spec
        _, _, values = reader.read_series("observations.mujoco")
        chunk = reader.record("control.authored", 0)
    contacts = values[:, list(spec.channels or ()).index("contacts")]
    assert "contact_started" in names
    assert contacts[0] == 0
    assert contacts.max() >= 4  # every body lands
    assert chunk.sim_time_s == pytest.approx(0.8)  # submitted when it starts
