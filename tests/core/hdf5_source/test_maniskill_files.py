"""ManiSkill trajectories written by ManiSkill itself, opened.

``tests/data/maniskill`` holds what ManiSkill 3.0.1's ``RecordEpisode`` wrote
for ``PickCube-v1`` (``tools/make_maniskill_fixture.py``): ``pickcube_state``
(the observation one flat array, three episodes) and ``pickcube_rgbd`` (the
observation a dict with the base camera's colour and depth, two episodes),
each beside ManiSkill's JSON of episode metadata and the ``.truth.json`` that
h5py read back. mani_skill itself is not needed here; the camera matrices
(``obs/sensor_param``) are compared with what h5py reads from the file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from app.cli import main
from fsr_core.calibration import project_points
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import expand_recordings, inspect_recording, open_recording

DATA = Path(__file__).resolve().parents[2] / "data" / "maniskill"
STATE = DATA / "pickcube_state.h5"
RGBD = DATA / "pickcube_rgbd.h5"
RATE = 20.0
"""PickCube-v1's control frequency (ManiSkill's default; the JSON names none)."""
CAMERA = "obs/sensor_data/base_camera"
PARAMS = "obs/sensor_param/base_camera"
GL_TO_CV = np.diag([1.0, -1.0, -1.0])
"""OpenGL's camera axes (y up, z backward) turned into OpenCV's."""


def _truth(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.with_suffix(".truth.json").read_text())
    return found["episodes"]


def _recorded(path: Path, key: str) -> np.ndarray[Any, Any]:
    """Return a dataset as h5py reads it (the viewer may hold the file open)."""
    with h5py.File(path, "r", locking=False) as handle:
        found: np.ndarray[Any, Any] = handle[key][()]
    return found


def _metadata(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.with_suffix(".json").read_text())
    return found


@pytest.fixture(scope="module")
def state_episode_2() -> RecordingModel:
    return open_recording(episode_path(STATE, 2))


@pytest.fixture(scope="module")
def rgbd_episode_1() -> RecordingModel:
    return open_recording(episode_path(RGBD, 1))


def test_a_maniskill_file_is_a_playlist_of_its_trajectories() -> None:
    truth = _truth(STATE)
    assert list(truth) == ["traj_0", "traj_1", "traj_2"]
    assert expand_recordings([STATE]) == [episode_path(STATE, n) for n in (0, 1, 2)]
    assert expand_recordings([DATA]) == [
        *(episode_path(RGBD, n) for n in (0, 1)),
        *(episode_path(STATE, n) for n in (0, 1, 2)),
    ]
    report = inspect_recording(STATE)
    episodes = report["hdf5"]["episodes"]
    assert [e["name"] for e in episodes] == list(truth)
    assert [e["steps"] for e in episodes] == [t["steps"] for t in truth.values()]
    # An episode of N actions spans N + 1 observations: N steps of time.
    assert [e["duration_s"] for e in episodes] == [
        pytest.approx(t["steps"] / RATE) for t in truth.values()
    ]


def test_every_array_of_a_state_episode_is_a_channel_of_its_values(
    state_episode_2: RecordingModel,
) -> None:
    truth = _truth(STATE)["traj_2"]["datasets"]
    assert set(state_episode_2.channels) == set(truth)
    assert {"obs", "actions", "env_states/articulations/panda", "success"} <= set(truth)
    for key, entry in truth.items():
        channel = state_episode_2.channels[key]
        assert channel.count == entry["shape"][0], key
        np.testing.assert_array_equal(channel.values[0], np.ravel(entry["first"]))
        np.testing.assert_array_equal(channel.values[-1], np.ravel(entry["last"]))
    assert state_episode_2.channels["obs"].columns[41] == "obs[41]"
    assert state_episode_2.metadata["episode_metadata"]["episode_seed"] == 2


def test_observations_start_at_the_reset_and_outcomes_one_step_later(
    state_episode_2: RecordingModel,
) -> None:
    steps = _truth(STATE)["traj_2"]["steps"]
    obs = state_episode_2.channels["obs"]
    np.testing.assert_allclose(obs.times_s, np.arange(steps + 1) / RATE)
    actions = state_episode_2.channels["actions"]
    np.testing.assert_allclose(actions.times_s, np.arange(steps) / RATE)
    # What step i led to is judged on observation i + 1.
    for key in ("rewards", "success", "terminated", "truncated"):
        times = state_episode_2.channels[key].times_s
        np.testing.assert_allclose(times, np.arange(1, steps + 1) / RATE)
    assert state_episode_2.duration_s == pytest.approx(steps / RATE)
    notes = state_episode_2.report["notes"]
    assert any("names no control frequency" in note for note in notes)


def test_the_camera_and_its_depth_show_what_was_rendered(
    rgbd_episode_1: RecordingModel,
) -> None:
    truth = _truth(RGBD)["traj_1"]["datasets"]
    prefix = "obs/sensor_data/base_camera"
    assert [camera.name for camera in rgbd_episode_1.cameras] == [
        f"{prefix}/rgb",
        f"{prefix}/depth",
    ]
    colour, depth = rgbd_episode_1.cameras
    assert len(colour.times_s) == truth[f"{prefix}/rgb"]["shape"][0]
    frame, _ = colour.fetch(5)
    assert (frame.width, frame.height) == (64, 64)
    assert frame.pixels[32, 32].tolist() == truth[f"{prefix}/rgb"]["frame5_middle"]
    assert frame.pixels.mean() == pytest.approx(truth[f"{prefix}/rgb"]["frame5_mean"])
    assert depth.values is not None
    # ManiSkill's depth is int16 millimetres: the viewer's values are metres.
    millimetres = truth[f"{prefix}/depth"]["frame5_middle"][0]
    assert depth.value_unit == "m"
    assert depth.values(5)[32, 32] == pytest.approx(millimetres / 1000)
    assert depth.fetch(5)[0].pixels.std() > 10  # the colour scale, not grey
    assert {"obs/agent/qpos", "obs/extra/tcp_pose", "obs/extra/is_grasped"} <= set(
        rgbd_episode_1.channels
    )
    notes = rgbd_episode_1.report["notes"]
    assert not any("sensor_param" in note for note in notes)


def test_the_depth_colour_scale_spans_the_first_frame_in_metres(
    rgbd_episode_1: RecordingModel,
) -> None:
    stored = _recorded(RGBD, f"traj_1/{CAMERA}/depth")
    assert stored.dtype == np.int16  # the file keeps its millimetres
    first = stored[0][stored[0] > 0]
    depth = rgbd_episode_1.cameras[1]
    assert depth.value_range == pytest.approx((first.min() / 1000, first.max() / 1000))
    # Every frame is drawn over the same scale: a pixel at the far end of the
    # first frame's range is the scale's last colour in every frame.
    far = np.argwhere(stored[:, :, :, 0] == first.max())
    step, row, column = far[0]
    assert depth.fetch(int(step))[0].pixels[row, column].tolist() == [122, 4, 3]


def test_every_frame_carries_the_recorded_camera_matrices(
    rgbd_episode_1: RecordingModel,
) -> None:
    truth = _truth(RGBD)["traj_1"]["datasets"]
    intrinsics = _recorded(RGBD, f"traj_1/{PARAMS}/intrinsic_cv")
    extrinsics = _recorded(RGBD, f"traj_1/{PARAMS}/extrinsic_cv")
    gl_poses = _recorded(RGBD, f"traj_1/{PARAMS}/cam2world_gl")
    assert intrinsics[5, 1, 1] == truth[f"{PARAMS}/intrinsic_cv"]["frame5_middle"]
    points = np.array([[0.0, 0.0, 0.0], [0.1, -0.2, 0.05], [-0.3, 0.2, 0.4]])
    for camera in rgbd_episode_1.cameras:
        assert len(camera.times_s) == len(intrinsics)
        for index in range(len(intrinsics)):
            _, calibration = camera.fetch(index)
            assert calibration is not None, (camera.name, index)
            profile = calibration.profile
            assert (profile.width, profile.height) == (64, 64)
            np.testing.assert_array_equal(profile.K, intrinsics[index])
            assert calibration.epoch == 0  # K never changes in this episode
            pose = calibration.pose
            assert pose is not None
            # extrinsic_cv maps the world into OpenCV's camera axes ...
            world_to_camera = extrinsics[index].astype(np.float64)
            expected = points @ world_to_camera[:, :3].T + world_to_camera[:, 3]
            np.testing.assert_allclose(
                pose.world_to_camera(points), expected, atol=1e-6
            )
            # ... and cam2world_gl is the same pose in OpenGL's axes.
            gl = gl_poses[index].astype(np.float64)
            np.testing.assert_allclose(pose.translation_m, gl[:3, 3], atol=1e-6)
            np.testing.assert_allclose(
                pose.rotation_matrix(), gl[:3, :3] @ GL_TO_CV, atol=1e-6
            )
    report = inspect_recording(episode_path(RGBD, 1))
    assert report["hdf5"]["calibration"][f"{CAMERA}/rgb"] == {
        "from": PARAMS,
        "epochs": 1,
        "pose_from": "extrinsic_cv",
    }


def test_the_calibration_puts_the_recorded_objects_where_the_camera_saw_them(
    rgbd_episode_1: RecordingModel,
) -> None:
    """The pose's convention, checked against the pictures themselves."""
    colour, depth = rgbd_episode_1.cameras
    assert depth.values is not None
    cubes = _recorded(RGBD, "traj_1/env_states/actors/cube")
    for index in (0, 8, 16):
        frame, calibration = colour.fetch(index)
        assert calibration is not None
        assert calibration.pose is not None
        metres = depth.values(index)
        # The cube's recorded centre projects onto the red cube, whose near
        # face is less than its 2 cm half size in front of the centre.
        centre = cubes[index, :3].astype(np.float64)[None]
        pixels, in_front = project_points(centre, calibration.profile, calibration.pose)
        assert in_front[0]
        u, v = (round(value) for value in pixels[0])
        red, green, blue = (int(c) for c in frame.pixels[v, u])
        assert red > 100, (index, red, green, blue)
        assert max(green, blue) < 40, (index, red, green, blue)
        along = float(calibration.pose.world_to_camera(centre)[0, 2])
        assert 0.0 < along - metres[v, u] < 0.035
        # The table top (z = 0 in PickCube) seen along the bottom rows of the
        # image: its depths, cast back through the calibration, land on it.
        rows, columns = np.mgrid[56:64, 0:64]
        k = calibration.profile
        z = metres[56:64]
        camera_points = np.stack(
            [(columns - k.cx) / k.fx * z, (rows - k.cy) / k.fy * z, z], axis=-1
        ).reshape(-1, 3)
        world = calibration.pose.camera_to_world(camera_points)
        np.testing.assert_allclose(world[:, 2], 0.0, atol=0.01)


def _edited_copy(tmp_path: Path, edit: Any) -> Path:
    copy = tmp_path / RGBD.name
    shutil.copyfile(RGBD, copy)
    shutil.copyfile(RGBD.with_suffix(".json"), copy.with_suffix(".json"))
    with h5py.File(copy, "r+") as handle:
        edit(handle["traj_1"][PARAMS])
    return copy


def test_without_extrinsic_cv_the_pose_comes_from_cam2world_gl(
    tmp_path: Path, rgbd_episode_1: RecordingModel
) -> None:
    copy = _edited_copy(tmp_path, lambda group: group.__delitem__("extrinsic_cv"))
    edited = open_recording(episode_path(copy, 1))
    for index in (0, 9):
        _, recorded = rgbd_episode_1.cameras[0].fetch(index)
        _, derived = edited.cameras[0].fetch(index)
        assert recorded is not None
        assert recorded.pose is not None
        assert derived is not None
        assert derived.pose is not None
        np.testing.assert_allclose(
            derived.pose.translation_m, recorded.pose.translation_m, atol=1e-6
        )
        np.testing.assert_allclose(
            derived.pose.rotation_matrix(), recorded.pose.rotation_matrix(), atol=1e-6
        )
    assert edited.report["calibration"][f"{CAMERA}/rgb"]["pose_from"] == "cam2world_gl"


def test_a_frame_whose_matrices_are_no_calibration_is_shown_without_and_noted(
    tmp_path: Path,
) -> None:
    def edit(group: Any) -> None:
        intrinsics = group["intrinsic_cv"][()]
        intrinsics[3, 2] = (0.0, 0.0, 0.0)  # not a camera matrix
        intrinsics[10:, 0, 0] = 40.0  # the focal length changes: a new epoch
        group["intrinsic_cv"][...] = intrinsics
        extrinsics = group["extrinsic_cv"][()]
        extrinsics[6, :, :3] *= 2.0  # not a rotation
        group["extrinsic_cv"][...] = extrinsics

    edited = open_recording(episode_path(_edited_copy(tmp_path, edit), 1))
    colour = edited.cameras[0]
    assert colour.fetch(3)[1] is None
    sixth = colour.fetch(6)[1]
    assert sixth is not None
    assert sixth.pose is None
    later = colour.fetch(12)[1]
    assert later is not None
    assert (later.epoch, later.first_tick, later.profile.fx) == (1, 10, 40.0)
    assert later.first_sim_time_s == pytest.approx(10 / RATE)
    notes = edited.report["notes"]
    assert any(
        note.startswith(f"{PARAMS}: frame(s) 3 have no calibration") for note in notes
    )
    assert any(
        note.startswith(f"{PARAMS}: frame(s) 6 have no camera pose") for note in notes
    )


def test_the_inspector_shows_maniskill_json() -> None:
    report = inspect_recording(episode_path(RGBD, 1))
    metadata = _metadata(RGBD)
    assert report["hdf5"]["layout"] == "maniskill"
    assert report["hdf5"]["episode_metadata"] == metadata["episodes"][1]
    assert report["hdf5"]["env_args"]["env_id"] == "PickCube-v1"
    assert report["hdf5"]["env_args"]["env_kwargs"]["obs_mode"] == "rgbd"


@pytest.mark.parametrize("path", [STATE, RGBD], ids=["state", "rgbd"])
def test_verify_checks_every_trajectory(path: Path) -> None:
    report = inspect_recording(path, verify=True)
    assert report["valid"] is True
    assert report["verification"]["problem_count"] == 0
    assert main(["inspect", "--verify", str(path)]) == 0


def test_convert_an_episode_to_fsr(tmp_path: Path) -> None:
    out = tmp_path / "traj_1.fsr"
    assert main(["convert", str(RGBD), "--episode", "1", "-o", str(out)]) == 0
    converted = open_recording(out)
    truth = _truth(RGBD)["traj_1"]
    actions = converted.channels["actions"]
    assert actions.count == truth["steps"]
    np.testing.assert_array_equal(
        actions.values[0], truth["datasets"]["actions"]["first"]
    )
    np.testing.assert_array_equal(
        actions.values[-1], truth["datasets"]["actions"]["last"]
    )
    success = converted.channels["success"]
    assert success.times_s[0] == pytest.approx(1 / RATE)
    frames = truth["datasets"]["obs/sensor_data/base_camera/rgb"]["shape"][0]
    assert [len(camera.times_s) for camera in converted.cameras] == [frames, frames]
    assert converted.duration_s == pytest.approx(truth["steps"] / RATE)
    # The recorded intrinsics and pose, not a nominal pinhole.
    intrinsics = _recorded(RGBD, f"traj_1/{PARAMS}/intrinsic_cv")
    gl_poses = _recorded(RGBD, f"traj_1/{PARAMS}/cam2world_gl")
    for camera in converted.cameras:
        for index in (0, frames - 1):
            _, calibration = camera.fetch(index)
            assert calibration is not None
            assert calibration.pose is not None
            np.testing.assert_array_equal(calibration.profile.K, intrinsics[index])
            np.testing.assert_allclose(
                calibration.pose.translation_m, gl_poses[index][:3, 3], atol=1e-6
            )
