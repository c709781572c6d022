"""robosuite's replays of ``tests/data/hdf5/lift.hdf5``, and the checks before one.

Reads what the viewer's robosuite replay wrote with robosuite 1.5.2 itself
(``tools/make_robosuite_replay_data.py``, in ``tests/data/robosuite``) and
checks it against the recording, read with h5py: the re-rendered cameras are
the recorded observations pixel for pixel, right side up, with a calibration
that projects the cube onto it; the re-simulated states are the recorded ones
(``compare`` says EXACT). The command-line checks that need no robosuite run
here too: a missing extra, bad settings, an output that exists. The tests
that run robosuite are in ``tests/robosuite``.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import h5py
import numpy as np
import pytest
from cli_output import assert_mentions, command_output
from data_paths import TEST_DATA

from app.cli import main
from fsr_core.calibration.projection import project_points
from fsr_core.compare import compare_recordings
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import CameraTrack, RecordingModel
from fsr_core.sources import open_recording

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
RENDER = TEST_DATA / "robosuite" / "lift_demo1_render.fsr"
RESIMULATE = TEST_DATA / "robosuite" / "lift_demo2_resimulate.fsr"


def _recorded(name: str) -> np.ndarray:
    with h5py.File(LIFT, "r", locking=False) as handle:
        return np.asarray(handle[name][()])


@pytest.fixture(scope="module")
def rendered() -> RecordingModel:
    return open_recording(RENDER)


def _camera(model: RecordingModel, name: str) -> CameraTrack:
    return next(track for track in model.cameras if track.name == name)


def test_render_keeps_the_recorded_camera_names(rendered: RecordingModel) -> None:
    assert [track.name for track in rendered.cameras] == [
        "agentview",
        "robot0_eye_in_hand",
    ]
    assert all(track.count == 32 for track in rendered.cameras)


@pytest.mark.parametrize("camera", ["agentview", "robot0_eye_in_hand"])
def test_rendered_frames_are_the_recorded_observations_right_side_up(
    rendered: RecordingModel, camera: str
) -> None:
    # robosuite stores its observations upside down (OpenGL rows); the
    # replay writes them right side up, so the recording flipped is equal.
    recorded = _recorded(f"data/demo_1/obs/{camera}_image")
    track = _camera(rendered, camera)
    for index in (0, 17, 31):
        frame, _ = track.fetch(index)
        np.testing.assert_array_equal(frame.pixels, recorded[index][::-1])
        assert not np.array_equal(frame.pixels, recorded[index])


def test_calibration_comes_from_the_camera_fovy_and_pose(
    rendered: RecordingModel,
) -> None:
    track = _camera(rendered, "agentview")
    cube = _recorded("data/demo_1/obs/cube_pos")
    for index in (0, 31):
        frame, calibration = track.fetch(index)
        assert calibration is not None
        profile = calibration.profile
        # agentview's fovy is 45 degrees in robosuite's Lift arena.
        assert profile.fy == pytest.approx(16 / math.tan(math.radians(22.5)))
        assert (profile.cx, profile.cy) == (15.5, 15.5)
        pixels, in_front = project_points(
            cube[index : index + 1], profile, calibration.pose
        )
        assert in_front[0]
        u, v = (round(float(x)) for x in pixels[0])
        red, green, blue = (int(c) for c in frame.pixels[v, u])
        assert red > green + 60, (u, v, red, green, blue)
        assert red > blue + 60, (u, v, red, green, blue)


def test_rendered_states_are_the_restored_recorded_ones(
    rendered: RecordingModel,
) -> None:
    states = rendered.channels["states"]
    np.testing.assert_array_equal(states.values, _recorded("data/demo_1/states"))
    assert states.columns[:2] == ("states[0]", "states[1]")
    np.testing.assert_array_equal(rendered.channels["state_error"].values, 0.0)


def test_compare_says_the_resimulation_is_exact(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["compare", str(LIFT), "--episode", "2", str(RESIMULATE), "--channels"]
    out = command_output(capsys, main, [*argv, "states"])
    assert_mentions(out, "EXACT: every channel is bit-for-bit identical")
    model = open_recording(RESIMULATE)
    np.testing.assert_array_equal(
        model.channels["states"].values, _recorded("data/demo_2/states")
    )
    comparison = model.metadata["replay"]
    assert comparison["simulator"] == "robosuite"


def _replay(capsys: pytest.CaptureFixture[str], out: Path, *extra: str) -> str:
    capsys.readouterr()
    argv = ["replay", str(LIFT), "--episode", "1", "--mode", "render", "-o", str(out)]
    assert main([*argv, *extra]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert not out.exists()
    return lines[0]


@pytest.fixture
def no_robosuite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FSR_VIEWER_ROBOSUITE_PYTHON", raising=False)
    # tests/robosuite on sys.path is a namespace package without an origin.
    spec = importlib.util.find_spec("robosuite")
    if spec is not None and spec.origin is not None:
        pytest.skip("robosuite is installed in this Python")


def test_a_missing_extra_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_robosuite: None
) -> None:
    line = _replay(capsys, tmp_path / "out.fsr")
    assert_mentions(
        line, "pip install 'fsr-viewer[robosuite]'", "FSR_VIEWER_ROBOSUITE_PYTHON"
    )


def test_a_python_that_does_not_exist_is_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_robosuite: None,
) -> None:
    missing = tmp_path / "no-python"
    monkeypatch.setenv("FSR_VIEWER_ROBOSUITE_PYTHON", str(missing))
    line = _replay(capsys, tmp_path / "out.fsr")
    assert_mentions(line, f"FSR_VIEWER_ROBOSUITE_PYTHON={missing} does not exist")


def test_a_setting_robosuite_does_not_take_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_robosuite: None
) -> None:
    line = _replay(capsys, tmp_path / "out.fsr", "--set", "fov=45")
    assert_mentions(
        line, "lift.hdf5", "has no replay setting 'fov' (it takes cameras, size)"
    )


def test_an_episode_the_file_lacks_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    out = tmp_path / "out.fsr"
    argv = ["replay", str(LIFT), "--episode", "9", "--mode", "render", "-o", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert_mentions(err, "episode 9")
    assert "Traceback" not in err
    assert not out.exists()


def test_an_existing_output_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.fsr"
    out.write_bytes(b"kept")
    capsys.readouterr()
    argv = ["replay", str(LIFT), "--episode", "1", "--mode", "render", "-o", str(out)]
    assert main(argv) == 1
    assert_mentions(capsys.readouterr().err, "exists")
    assert out.read_bytes() == b"kept"


def test_compare_pairs_each_rendered_camera_with_its_recorded_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The render names its cameras as robosuite does (agentview); the episode
    # holds them as obs/agentview_image: compare pairs them, frame by frame.
    episode = open_recording(episode_path(LIFT, 1))
    comparison = compare_recordings(episode, open_recording(RENDER))
    pairs = {c.name: c for c in comparison.cameras}
    assert sorted(pairs) == ["obs/agentview_image", "obs/robot0_eye_in_hand_image"]
    for name, camera in pairs.items():
        assert camera.candidate_name == name.removeprefix("obs/").removesuffix("_image")
        assert camera.frames_compared == 32
        assert camera.max_abs_error == 0
        assert camera.exact
    assert comparison.cameras_only_in_candidate == ()
    argv = ["compare", str(LIFT), "--episode", "1", str(RENDER), "--cameras"]
    out = command_output(capsys, main, [*argv, "agentview"])
    assert_mentions(out, "obs/agentview_image ~ agentview", "exact")


def test_a_camera_pair_of_another_episode_has_its_own_error() -> None:
    # Episode 2's frames are not episode 1's: each pair measures its own.
    other = open_recording(episode_path(LIFT, 2))
    comparison = compare_recordings(open_recording(RENDER), other)
    errors = {c.name: c.max_abs_error for c in comparison.cameras}
    assert sorted(errors) == ["agentview", "robot0_eye_in_hand"]
    for name, error in errors.items():
        recorded = _recorded(f"data/demo_2/obs/{name}_image")[0][::-1]
        frame, _ = _camera(open_recording(RENDER), name).fetch(0)
        first = np.abs(frame.pixels.astype(int) - recorded.astype(int)).max()
        assert error >= first > 0


def test_the_render_carries_the_episode_model_as_its_robot(
    rendered: RecordingModel,
) -> None:
    description = rendered.robot_description
    assert description is not None
    with h5py.File(LIFT, "r", locking=False) as handle:
        model_file = handle["data/demo_1"].attrs["model_file"]
    # The same bodies and joints, its meshes carried beside it (MuJoCo's .msh)
    # instead of named where the recording machine's robosuite was.
    for name in ("robot0_link7", "robot0_joint7", "cube_joint0"):
        assert f'name="{name}"' in description.text.decode()
    assert "robosuite/models/assets" in model_file
    assert "robosuite/models/assets" not in description.text.decode()
    meshes = [name for name in description.assets if name.endswith(".msh")]
    assert len(meshes) == 64
    assert rendered.joints is not None
    assert rendered.joints.names == tuple(f"robot0_joint{k}" for k in range(1, 8))
    np.testing.assert_array_equal(
        rendered.channels["q"].values, _recorded("data/demo_1/obs/robot0_joint_pos")
    )


def test_the_render_shows_its_robot_posed_as_the_episode_shows_it(
    rendered: RecordingModel,
) -> None:
    pytest.importorskip("mujoco")
    episode = open_recording(episode_path(LIFT, 1))
    if rendered.geometry is None:
        pytest.fail(f"no robot drawn: {rendered.report.get('notes')}")
    assert episode.geometry is not None
    assert "robot0_link7" in rendered.geometry.bodies
    hand = "robot/robot0_right_hand"
    np.testing.assert_array_equal(
        rendered.channels[hand].values, episode.channels[hand].values
    )
    assert len(rendered.geometry.meshes) == len(episode.geometry.meshes)
