"""A player window that replays a file from the Replay menu, and its comparison.

Imported by the window tests of the replays (``tests/app``, ``tests/skelarm``,
``tests/genesis``; ``tests/`` is on ``sys.path``): ``from window_replays import ...``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextDocument
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, new_main_window, open_and_wait, show_widget

from app.window.main_window import MainWindow
from app.window.replay import ComparisonReport
from fsr_core.simulation.protocol import ReplayMode

__all__ = ["comparison_rows", "replay_from_menu", "replay_window", "tooltip_text"]


def tooltip_text(action: QAction) -> str:
    """Return ``action``'s tooltip as it reads on screen: its HTML rendered.

    The tooltip wraps long text into lines of a fixed width, wherever that
    falls; the lines are joined back as they were written.
    """
    document = QTextDocument()
    document.setHtml(action.toolTip())
    return document.toPlainText().replace("\u2028", "").replace("\n", "")


def replay_window(qtbot: QtBot, folder: Path, done_ms: int) -> Iterator[MainWindow]:
    """Yield a shown window with settings in ``folder``, its jobs run inline.

    When the test ends the window closes and its replay must be done within
    ``done_ms``.
    """
    made = show_widget(qtbot, new_main_window(ini_settings(folder)), exposed=False)
    yield made
    made.close()
    assert made.menus.replay.wait_done(done_ms)


def replay_from_menu(
    qtbot: QtBot,
    window: MainWindow,
    source: Path,
    mode: ReplayMode,
    output: Path,
    timeout_ms: int,
) -> ComparisonReport:
    """Open ``source``, replay it in ``mode`` from the menu's dialog, and compare.

    The dialog must propose ``output`` and see no problem; the replay must
    finish without failing within ``timeout_ms``, write ``output`` and
    compare it. Returns the comparison report.
    """
    open_and_wait(qtbot, window, source)
    replay = window.menus.replay

    dialog = replay.open_dialog(mode)
    assert dialog is not None
    assert dialog.output_edit.text() == str(output)
    assert dialog.problem() == ""
    failures: list[object] = []
    replay.failed.connect(failures.append)
    with qtbot.waitSignal(replay.finished, timeout=timeout_ms) as finished:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(
            lambda: bool(failures) or not replay.running, timeout=timeout_ms
        )
        assert failures == []

    report = finished.args[0]
    assert isinstance(report, ComparisonReport)
    assert output.is_file()
    assert report.comparison is not None
    return report


def comparison_rows(window: MainWindow) -> dict[str, str]:
    """Return the rows (name: value) of the inspector's "Comparison" section."""
    section = window.inspector_dock.panel.section("Comparison")
    assert section is not None
    rows = [section.child(i) for i in range(section.childCount())]
    return {row.text(0): row.text(1) for row in rows if row is not None}
