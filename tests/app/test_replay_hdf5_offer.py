"""The Replay menu on HDF5 episodes: offered only for those robosuite can replay.

robosuite is made to look installed (``FSR_VIEWER_ROBOSUITE_PYTHON`` names a
stand-in that answers the availability probe as a Python with robosuite
does), so that what greys an entry is the episode itself: an ALOHA/ACT file,
a ManiSkill file, a robomimic-layout file that names no robosuite
environment. A robosuite demonstration stays offered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from data_paths import TEST_DATA
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot
from shown_widgets import open_and_wait
from window_replays import tooltip_text

from app.window.main_window import MainWindow
from fsr_core.playlists.episodes import episode_path

pytestmark = pytest.mark.gui

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
ALOHA = TEST_DATA / "hdf5" / "aloha" / "episode_0.hdf5"
_PROBE_ANSWER = '{"robosuite": "1.5.2", "mujoco": "3.3.7", "h5py": "3.12.1"}'


@pytest.fixture(autouse=True)
def robosuite_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Name a stand-in Python whose probe says robosuite is installed there."""
    stand_in = tmp_path / "robosuite-python"
    stand_in.write_text(f"#!/bin/sh\necho '{_PROBE_ANSWER}'\n")
    stand_in.chmod(0o755)
    monkeypatch.setenv("FSR_VIEWER_ROBOSUITE_PYTHON", str(stand_in))


def _actions(window: MainWindow) -> tuple[QAction, QAction]:
    replay = window.menus.replay
    return replay.render_action, replay.resimulate_action


def _playing(window: MainWindow) -> Path | None:
    model = window.session.model
    return None if model is None else model.path


def _maniskill(folder: Path) -> Path:
    """Write a small file in ManiSkill's RecordEpisode layout (traj_N groups)."""
    path = folder / "trajectory.h5"
    rng = np.random.default_rng(7)
    with h5py.File(path, "w") as handle:
        for number in (0, 1):
            group = handle.create_group(f"traj_{number}")
            group["actions"] = rng.normal(size=(6, 8)).astype(np.float32)
            group["obs/agent/qpos"] = rng.normal(size=(7, 9)).astype(np.float32)
            group["env_states/actors/cube"] = rng.normal(size=(7, 13))
    return path


def _without_environment(folder: Path) -> Path:
    """Copy lift.hdf5 without the attributes that name its environment."""
    path = folder / "lift_bare.hdf5"
    shutil.copyfile(LIFT, path)
    with h5py.File(path, "r+") as handle:
        for name in ("env_args", "env", "env_info"):
            del handle["data"].attrs[name]
    return path


def _other_environment(folder: Path) -> Path:
    """Copy lift.hdf5 with env_args of robomimic's gym type (2), not robosuite."""
    path = folder / "lift_gym.hdf5"
    shutil.copyfile(LIFT, path)
    with h5py.File(path, "r+") as handle:
        handle["data"].attrs["env_args"] = (
            '{"env_name": "<b>Hopper</b>", "type": 2, "env_kwargs": {}}'
        )
    return path


def _without_model(folder: Path) -> Path:
    """Copy lift.hdf5 whose demo_1 lacks its model_file."""
    path = folder / "lift_no_model.hdf5"
    shutil.copyfile(LIFT, path)
    with h5py.File(path, "r+") as handle:
        del handle["data/demo_1"].attrs["model_file"]
    return path


def test_a_robosuite_demonstration_is_offered_both_replays(
    qtbot: QtBot, window: MainWindow
) -> None:
    open_and_wait(qtbot, window, episode_path(LIFT, 2))

    for action in _actions(window):
        assert action.isEnabled(), action.toolTip()
        assert "the playing recording" in tooltip_text(action)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda folder: ALOHA, "this is an ALOHA/ACT file"),
        (
            lambda folder: episode_path(_maniskill(folder), 0),
            "this is a ManiSkill file (traj_N)",
        ),
        (
            lambda folder: episode_path(_without_environment(folder), 1),
            "the file names no robosuite environment (neither data@env_args "
            "nor data@env)",
        ),
        (
            lambda folder: episode_path(_other_environment(folder), 1),
            "the file's env_args describe no robosuite environment",
        ),
        (
            lambda folder: episode_path(_without_model(folder), 1),
            "demo_1 has no model_file",
        ),
    ],
    ids=["aloha", "maniskill", "no-environment", "gym-environment", "no-model"],
)
def test_an_episode_robosuite_cannot_replay_greys_both_and_says_why(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, make: object, said: str
) -> None:
    assert callable(make)
    source = make(tmp_path)
    open_and_wait(qtbot, window, source)

    for action in _actions(window):
        assert not action.isEnabled()
        shown = tooltip_text(action)
        assert shown.startswith("Cannot re-"), shown
        assert said in shown
        assert said in action.statusTip()
    assert window.menus.replay.compare_action.isEnabled()


def test_the_offer_follows_the_playlist_from_a_demo_to_an_aloha_file(
    qtbot: QtBot, window: MainWindow
) -> None:
    demo = episode_path(LIFT, 1)
    open_and_wait(qtbot, window, demo, ALOHA)
    render, _ = _actions(window)
    assert render.isEnabled()

    assert window.session.step_file(1)
    qtbot.waitUntil(lambda: _playing(window) == ALOHA)

    assert not render.isEnabled()
    assert "ALOHA/ACT" in tooltip_text(render)
