"""Replay → Re-simulate… on a robosuite episode open in the window, for real.

The window's replay dialog proposes a file beside the HDF5 file, runs
robosuite's replay off the GUI thread and compares the new file with the
episode: the re-simulated states pair with the recorded ones, bit for bit
(recorded by this robosuite build: ``robosuite_episodes.restepped_copy``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from robosuite_episodes import restepped_copy
from window_replays import replay_from_menu, replay_window

from app.window.main_window import MainWindow
from fsr_core.playlists.episodes import episode_path
from fsr_core.simulation.protocol import ReplayMode

pytestmark = [pytest.mark.robosuite, pytest.mark.gui]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    yield from replay_window(qtbot, tmp_path, 120_000)


def test_resimulating_an_episode_from_the_menu_compares_it(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    source = restepped_copy(tmp_path, 2)
    output = tmp_path / "lift_episode_000002.resim.fsr"
    report = replay_from_menu(
        qtbot, window, episode_path(source, 2), ReplayMode.RESIMULATE, output, 120_000
    )
    assert report.comparison is not None
    assert report.comparison.channel("states").exact
    assert report.replay is not None
    assert report.replay.message.startswith("EXACT: every re-simulated state")
