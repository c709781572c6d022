"""A MuJoCo recording carries its model: the robot's channels and trail, no --robot.

The recorder embeds the MJCF and its assets; opened, the recording poses
that model by its recorded joints. Its ``robot/<body>`` channels must equal
the body poses MuJoCo itself recorded (the scene geometry, ``data.xpos`` and
``data.xquat`` at each geometry frame) within 1e-4, and that recorded scene
(floor, targets, loose bodies) stays what the player draws.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from data_paths import MUJOCO_EXAMPLES
from mujoco_poses import assert_same_rotation

from fsr_core.recording import RecordingModel, SceneGeometry
from fsr_core.simulation import embedded_model
from fsr_core.simulators.mujoco import profile
from fsr_core.sources import inspect_recording, open_recording
from fsr_core.sources.registry import source_for

_REACH_BODIES = ("world", "base", "upper", "fore", "hand")
_REACH_FILES = (
    MUJOCO_EXAMPLES / "reach_arm.xml",
    MUJOCO_EXAMPLES / "assets" / "gripper.obj",
)
#: What the recorder embeds of the reach arm: its MJCF and the mesh it names.
_REACH_MODEL_BYTES = sum(path.stat().st_size for path in _REACH_FILES)


def _unposed(path: Path) -> RecordingModel:
    return source_for(path).open(path)


def _recorded_and_posed(path: Path) -> tuple[SceneGeometry, RecordingModel]:
    """Return the scene MuJoCo recorded, and the recording opened with its robot."""
    pytest.importorskip("mujoco")
    recorded = _unposed(path).geometry
    assert recorded is not None
    return recorded, open_recording(path)


def _robot_channels(model: RecordingModel) -> list[str]:
    return sorted(name for name in model.channels if name.startswith("robot/"))


def _notes(model: RecordingModel) -> list[str]:
    return [str(note) for note in model.report.get("notes", [])]


def _xyzw_to_wxyz(quaternions: np.ndarray) -> np.ndarray:
    return np.concatenate([quaternions[..., 3:], quaternions[..., :3]], axis=-1)


def _assert_same_poses(model: RecordingModel, geometry: SceneGeometry) -> int:
    """Compare each body's channel with the recorded geometry; return the checks."""
    checked = 0
    for index, body in enumerate(geometry.bodies):
        channel = model.channels[f"robot/{body}"]
        rows = np.searchsorted(channel.times_s, geometry.times_s)
        assert np.allclose(channel.times_s[rows], geometry.times_s, atol=1e-9)
        ours = channel.values[rows]
        theirs = geometry.poses[:, index]
        np.testing.assert_allclose(ours[:, :3], theirs[:, :3], atol=1e-4)
        assert_same_rotation(ours[:, 3:], _xyzw_to_wxyz(theirs[:, 3:]), atol=1e-4)
        checked += len(rows)
    return checked


def test_a_reach_run_carries_its_mjcf_and_the_mesh_it_names(
    reach_recording: Path,
) -> None:
    model = _unposed(reach_recording)

    description = model.robot_description
    assert description is not None
    assert description.kind == "mjcf"
    assert description.where == f"{reach_recording} reach_arm.xml"
    assert description.text == (MUJOCO_EXAMPLES / "reach_arm.xml").read_bytes()
    assert description.assets == {
        "assets/gripper.obj": (MUJOCO_EXAMPLES / "assets" / "gripper.obj").read_bytes()
    }
    assert description.scene_recorded


def test_the_link_channels_equal_the_body_poses_mujoco_recorded(
    reach_recording: Path,
) -> None:
    recorded, model = _recorded_and_posed(reach_recording)

    assert recorded.bodies == _REACH_BODIES
    assert _robot_channels(model) == sorted(f"robot/{body}" for body in _REACH_BODIES)
    assert model.metadata["robot"]["trail_link"] == "hand"
    assert model.metadata["robot"]["scene"] == "recorded"
    assert _assert_same_poses(model, recorded) == len(_REACH_BODIES) * len(
        recorded.times_s
    )
    # The arm moved: the check compared poses that change.
    assert np.ptp(model.channels["robot/hand"].values[:, :3], axis=0).max() > 0.01


def test_the_recorded_scene_stays_what_is_drawn(reach_recording: Path) -> None:
    recorded, model = _recorded_and_posed(reach_recording)

    assert model.geometry is not None
    assert model.geometry.bodies == recorded.bodies
    assert [mesh.name for mesh in model.geometry.meshes] == [
        mesh.name for mesh in recorded.meshes
    ]
    assert "floor" in [mesh.name for mesh in model.geometry.meshes]
    np.testing.assert_array_equal(model.geometry.poses, recorded.poses)
    assert [target.name for target in model.geometry.targets] == [
        "target_a",
        "target_b",
    ]


def test_loose_bodies_get_no_channel_and_the_pusher_carries_the_trail(
    contacts_recording: Path,
) -> None:
    recorded, model = _recorded_and_posed(contacts_recording)

    assert _robot_channels(model) == ["robot/pusher", "robot/world"]
    assert model.geometry is not None
    assert "box_a" in model.geometry.bodies  # drawn from the recorded scene
    assert model.metadata["robot"]["trail_link"] == "pusher"
    pusher = recorded.bodies.index("pusher")
    channel = model.channels["robot/pusher"]
    rows = np.searchsorted(channel.times_s, recorded.times_s)
    np.testing.assert_allclose(
        channel.values[rows, :3], recorded.poses[:, pusher, :3], atol=1e-4
    )


def test_a_run_without_recorded_geometry_is_drawn_with_the_models_meshes(
    commands_only_recording: Path,
) -> None:
    pytest.importorskip("mujoco")
    assert _unposed(commands_only_recording).geometry is None

    model = open_recording(commands_only_recording)

    assert model.geometry is not None
    assert "box_a" in model.geometry.bodies
    assert len(model.geometry.meshes) > 0
    assert "robot/pusher" in model.channels


def test_a_big_model_is_read_when_first_used(
    reach_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mujoco")
    eager = open_recording(reach_recording)
    monkeypatch.setattr(embedded_model, "READ_AT_OPEN_BYTES", 100)

    unposed = _unposed(reach_recording)
    description = unposed.robot_description
    assert description is not None
    assert not description.files.loaded
    assert description.size_bytes == _REACH_MODEL_BYTES
    lazy = open_recording(reach_recording)

    for body in _REACH_BODIES:
        np.testing.assert_array_equal(
            lazy.channels[f"robot/{body}"].values,
            eager.channels[f"robot/{body}"].values,
        )


def test_a_model_over_the_budget_is_a_note_and_is_not_read(
    reach_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(profile, "MAX_DESCRIPTION_BYTES", 1000)

    def refuse(*_: object) -> None:
        raise AssertionError("the model files were read")

    monkeypatch.setattr(embedded_model.ModelFiles, "from_records", refuse)

    model = open_recording(reach_recording)

    assert model.robot_description is None
    assert (
        f"robot not drawn: the embedded model 'reach_arm.xml' is "
        f"{_REACH_MODEL_BYTES:,} bytes, over the 1,000 budget; not read"
    ) in _notes(model)
    assert model.geometry is not None
    assert _robot_channels(model) == []


def test_a_model_whose_files_do_not_check_out_is_a_note(
    reach_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fsr_core.errors import SchemaError

    def mismatch(*_: object, where: Path, **__: object) -> None:
        raise SchemaError(
            "embedded model file 'reach_arm.xml' has digest x", path=where
        )

    monkeypatch.setattr(embedded_model.ModelFiles, "from_records", mismatch)

    model = open_recording(reach_recording)

    assert model.robot_description is None
    assert (
        "robot not drawn: the embedded model cannot be read: embedded model file "
        "'reach_arm.xml' has digest x"
    ) in _notes(model)


def test_without_mujoco_the_recording_opens_and_says_why_no_robot(
    reach_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mujoco", None)  # importing it would fail

    model = open_recording(reach_recording)

    assert model.geometry is not None
    (note,) = [note for note in _notes(model) if note.startswith("robot not drawn")]
    assert "pip install 'fsr-viewer[mujoco]'" in note
    assert f"{reach_recording} reach_arm.xml" in note


def test_inspect_shows_the_embedded_robot(reach_recording: Path) -> None:
    pytest.importorskip("mujoco")
    report = inspect_recording(reach_recording)

    assert report["robot_description"] == {
        "where": f"{reach_recording} reach_arm.xml",
        "kind": "mjcf",
    }
    assert report["robot"]["scene"] == "recorded"
    assert report["robot"]["links"] == len(_REACH_BODIES)
    assert [item["model"] for item in report["robot"]["joints"]["matched"]] == [
        "yaw",
        "shoulder",
        "elbow",
    ]
