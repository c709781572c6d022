"""Replay → Re-simulate… on a skelarm log runs skelarm and compares the re-run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from window_replays import replay_from_menu, replay_window

from app.window.main_window import MainWindow
from fsr_core.simulation.protocol import ReplayMode

pytestmark = [pytest.mark.skelarm, pytest.mark.gui]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    yield from replay_window(qtbot, tmp_path, 30_000)


def test_resimulating_a_log_from_the_menu_writes_a_log_that_matches(
    qtbot: QtBot, window: MainWindow, skelarm_logs: Path, tmp_path: Path
) -> None:
    source = tmp_path / "reach.sklog.npz"
    shutil.copy(skelarm_logs / "reach.sklog.npz", source)

    output = tmp_path / "reach.resim.sklog.npz"
    report = replay_from_menu(
        qtbot, window, source, ReplayMode.RESIMULATE, output, 60_000
    )

    assert report.comparison is not None
    assert report.comparison.exact
    entries = [entry.path for entry in window.session.playlist.entries]
    assert entries == [source, output]
