"""Replay → Re-simulate… on a skelarm log runs skelarm and compares the re-run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.window.main_window import MainWindow
from app.window.replay import ComparisonReport
from app.window.state.session import PlayerSession
from app.window.workers import run_inline
from fsr_core.simulation.protocol import ReplayMode

pytestmark = [pytest.mark.skelarm, pytest.mark.gui]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    made = MainWindow(
        session=PlayerSession(runner=run_inline, check_runner=run_inline),
        settings=settings,
    )
    qtbot.addWidget(made)
    made.show()
    yield made
    made.close()
    assert made.menus.replay.wait_done(30_000)


def test_resimulating_a_log_from_the_menu_writes_a_log_that_matches(
    qtbot: QtBot, window: MainWindow, skelarm_logs: Path, tmp_path: Path
) -> None:
    source = tmp_path / "reach.sklog.npz"
    shutil.copy(skelarm_logs / "reach.sklog.npz", source)
    window.open_files([source])
    qtbot.waitUntil(lambda: window.session.model is not None)
    replay = window.menus.replay

    dialog = replay.open_dialog(ReplayMode.RESIMULATE)
    assert dialog is not None
    output = tmp_path / "reach.resim.sklog.npz"
    assert dialog.output_edit.text() == str(output)
    assert dialog.problem() == ""
    failures: list[object] = []
    replay.failed.connect(failures.append)
    with qtbot.waitSignal(replay.finished, timeout=60_000) as finished:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(failures) or not replay.running, timeout=60_000)
        assert failures == []

    report = finished.args[0]
    assert isinstance(report, ComparisonReport)
    assert output.is_file()
    assert report.comparison is not None
    assert report.comparison.exact
    entries = [entry.path for entry in window.session.playlist.entries]
    assert entries == [source, output]
