"""Replay → Re-simulate… / Re-render… on a Genesis trajectory in the window."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from window_replays import replay_from_menu, replay_window

from app.window.main_window import MainWindow
from app.window.replay.report import verdict_text
from fsr_core.simulation.protocol import ReplayMode

pytestmark = [pytest.mark.genesis, pytest.mark.gui]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    yield from replay_window(qtbot, tmp_path, 300_000)


@pytest.mark.parametrize(
    ("mode", "suffix"),
    [(ReplayMode.RESIMULATE, "resim"), (ReplayMode.RENDER, "render")],
)
def test_replaying_a_trajectory_from_the_menu_compares_it(
    mode: ReplayMode,
    suffix: str,
    qtbot: QtBot,
    window: MainWindow,
    tmp_path: Path,
    box: Path,
) -> None:
    source = tmp_path / "box.gstraj"
    shutil.copy(box, source)

    output = tmp_path / f"box.{suffix}.fsr"
    report = replay_from_menu(qtbot, window, source, mode, output, 300_000)

    assert report.comparison is not None
    assert report.comparison.within_tolerance
    assert all(channel.exact for channel in report.comparison.channels)
    assert "within tolerance 0" in verdict_text(report)
    assert report.replay is not None
    assert report.replay.notes[0].startswith("bit for bit")
