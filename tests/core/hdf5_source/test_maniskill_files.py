"""ManiSkill trajectories written by ManiSkill itself, opened.

``tests/data/maniskill`` holds what ManiSkill 3.0.1's ``RecordEpisode`` wrote
for ``PickCube-v1`` (``tools/make_maniskill_fixture.py``): ``pickcube_state``
(the observation one flat array, three episodes) and ``pickcube_rgbd`` (the
observation a dict with the base camera's colour and depth, two episodes),
each beside ManiSkill's JSON of episode metadata and the ``.truth.json`` that
h5py read back. mani_skill itself is not needed here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import expand_recordings, inspect_recording, open_recording

DATA = Path(__file__).resolve().parents[2] / "data" / "maniskill"
STATE = DATA / "pickcube_state.h5"
RGBD = DATA / "pickcube_rgbd.h5"
RATE = 20.0
"""PickCube-v1's control frequency (ManiSkill's default; the JSON names none)."""


def _truth(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.with_suffix(".truth.json").read_text())
    return found["episodes"]


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
    assert depth.values(5)[32, 32] == truth[f"{prefix}/depth"]["frame5_middle"][0]
    assert depth.fetch(5)[0].pixels.std() > 10  # the colour scale, not grey
    assert {"obs/agent/qpos", "obs/extra/tcp_pose", "obs/extra/is_grasped"} <= set(
        rgbd_episode_1.channels
    )
    notes = rgbd_episode_1.report["notes"]
    assert any(
        note.startswith("obs/sensor_param/base_camera/intrinsic_cv left out")
        for note in notes
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
