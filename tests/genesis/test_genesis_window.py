"""Replay → Re-simulate… / Re-render… on a Genesis trajectory in the window."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.window.main_window import MainWindow
from app.window.replay import ComparisonReport
from app.window.replay.report import verdict_text
from app.window.state.session import PlayerSession
from app.window.workers import run_inline
from fsr_core.simulation.protocol import ReplayMode

pytestmark = [pytest.mark.genesis, pytest.mark.gui]

DATA = Path(__file__).resolve().parents[1] / "data" / "genesis"


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
    assert made.menus.replay.wait_done(300_000)


@pytest.mark.parametrize(
    ("mode", "suffix"),
    [(ReplayMode.RESIMULATE, "resim"), (ReplayMode.RENDER, "render")],
)
def test_replaying_a_trajectory_from_the_menu_compares_it(
    mode: ReplayMode, suffix: str, qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    source = tmp_path / "box.gstraj"
    shutil.copy(DATA / "v4_box_exact.gstraj", source)
    window.open_files([source])
    qtbot.waitUntil(lambda: window.session.model is not None)
    replay = window.menus.replay

    dialog = replay.open_dialog(mode)
    assert dialog is not None
    output = tmp_path / f"box.{suffix}.fsr"
    assert dialog.output_edit.text() == str(output)
    assert dialog.problem() == ""
    failures: list[object] = []
    replay.failed.connect(failures.append)
    with qtbot.waitSignal(replay.finished, timeout=300_000) as finished:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(failures) or not replay.running, timeout=300_000)
        assert failures == []

    report = finished.args[0]
    assert isinstance(report, ComparisonReport)
    assert output.is_file()
    assert report.comparison is not None
    assert report.comparison.within_tolerance
    assert all(channel.exact for channel in report.comparison.channels)
    assert "within tolerance 0" in verdict_text(report)
    assert report.replay is not None
    assert report.replay.notes[0].startswith("bit for bit")
