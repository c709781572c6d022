"""The player shows a Genesis run at once, then the checked run takes its place.

The window opens the trajectory from its record headers (integrity "not
verified"), checks every record in the background with its progress in the
status bar, and swaps in the checked model at the same play time; a record
that fails its check cuts the timeline there, and the playlist says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import GENESIS_DATA
from pytestqt.qtbot import QtBot

from app.window.main_window import MainWindow
from app.window.state.playlist import EntryState
from fsr_core.recording import Integrity, RecordingModel

pytestmark = pytest.mark.gui

DATA = GENESIS_DATA


def _shown(qtbot: QtBot, window: MainWindow, path: Path) -> list[RecordingModel]:
    """Open ``path``; return every model shown, once the checks are done."""
    shown: list[RecordingModel] = []
    window.session.model_changed.connect(shown.append)
    window.open_files([path])
    qtbot.waitUntil(lambda: len(shown) >= 2 and not window.session.loading)
    return shown


def test_the_run_shows_first_and_is_checked_after(
    qtbot: QtBot, window: MainWindow
) -> None:
    messages: list[str] = []
    window.session.message.connect(messages.append)
    path = DATA / "v4_arm_exact.gstraj"
    shown = _shown(qtbot, window, path)
    assert [model.integrity for model in shown] == [
        Integrity.UNVERIFIED,
        Integrity.VALID,
    ]
    assert shown[0].refine is not None
    assert window.session.model is shown[-1]
    playlist = window.session.playlist
    assert playlist.entry(playlist.current).state is EntryState.VALID
    assert f"checking {path.name}…" in messages
    assert any(text.startswith(f"checking {path.name}: ") for text in messages)
    assert messages[-1] == f"checked {path.name}"


def test_a_record_that_fails_its_check_cuts_the_shown_timeline(
    qtbot: QtBot, window: MainWindow
) -> None:
    path = DATA / "v4_box_exact_flip_chunk.gstraj"
    shown = _shown(qtbot, window, path)
    first, checked = shown[0], shown[-1]
    assert first.duration_s == pytest.approx(0.4)
    assert checked.integrity is Integrity.RECOVERED
    assert checked.duration_s == pytest.approx(0.15)
    playlist = window.session.playlist
    entry = playlist.entry(playlist.current)
    assert entry.state is EntryState.RECOVERED
    assert "CRC" in entry.reason
    assert window.session.clock.position_s <= checked.duration_s + 1e-9


def test_a_check_of_a_run_no_longer_shown_changes_nothing(
    qtbot: QtBot, window: MainWindow
) -> None:
    first, second = DATA / "v4_arm_exact.gstraj", DATA / "v4_box_exact.gstraj"
    session = window.session
    shown: list[RecordingModel] = []
    session.model_changed.connect(shown.append)

    def on_message(text: str) -> None:
        if text == f"checking {first.name}…":  # its check has started: move on
            session.load_row(session.playlist.row_of(second))

    session.message.connect(on_message)
    window.open_files([first, second])
    qtbot.waitUntil(
        lambda: (
            session.model is not None
            and session.model.path == second
            and session.model.integrity is Integrity.VALID
            and not session.loading
        )
    )
    assert [model.path for model in shown] == [first, second, second]
    assert shown[0].integrity is Integrity.UNVERIFIED
