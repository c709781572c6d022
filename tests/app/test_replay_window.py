"""Replay → Re-simulate… / Re-render… / Compare with…, driven through the real widgets.

The engine runs for real on half-second demo takes (copied into each test's
folder, since a replay is written beside its source).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QMenu,
    QToolTip,
)
from pytestqt.qtbot import QtBot
from shown_widgets import open_and_wait
from window_replays import comparison_rows, tooltip_text

from app.window.main_window import MainWindow
from app.window.replay import ComparisonReport, ReplayRequest
from app.window.replay.dialog import ReplayDialog
from app.window.replay.window_replay import WindowReplay
from app.window.widgets.plain_text import tooltip_html
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulators.skelarm.availability import (
    unavailable_reason as skelarm_unavailable_reason,
)

pytestmark = pytest.mark.gui

#: A replay of a half-second take, compared, well within this (2 CPUs shared).
_REPLAY_TIMEOUT_MS = 60_000
#: When the short pushed take is pushed (conftest: 0.2 s to 0.35 s).
_PUSH_START_S = 0.2


@pytest.fixture
def takes(tmp_path: Path, short_takes: dict[str, Path]) -> dict[str, Path]:
    """Return the short takes copied into this test's own folder."""
    folder = tmp_path / "takes"
    folder.mkdir()
    return {name: Path(shutil.copy(path, folder)) for name, path in short_takes.items()}


def _replay(window: MainWindow) -> WindowReplay:
    return window.menus.replay


def _replay_menu(window: MainWindow) -> QMenu:
    found = [
        action.menu()
        for action in window.menuBar().actions()
        if action.text().replace("&", "") == "Replay"
    ]
    assert len(found) == 1
    menu = found[0]
    assert isinstance(menu, QMenu)
    return menu


def _action(window: MainWindow, text: str) -> QAction:
    menu = _replay_menu(window)
    found = [a for a in menu.actions() if a.text().replace("&", "") == text]
    assert len(found) == 1, [a.text() for a in menu.actions()]
    return found[0]


def _dialog(qtbot: QtBot, window: MainWindow, text: str) -> ReplayDialog:
    _action(window, text).trigger()
    dialog = _replay(window).dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def _click(qtbot: QtBot, button: QAbstractButton) -> None:
    """Click ``button`` near its left edge (a check box's box)."""
    where = QPoint(min(8, button.width() // 2), button.height() // 2)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=where)


def _run(qtbot: QtBot, window: MainWindow, dialog: ReplayDialog) -> ComparisonReport:
    with qtbot.waitSignal(
        _replay(window).finished, timeout=_REPLAY_TIMEOUT_MS
    ) as finished:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    report = finished.args[0]
    assert isinstance(report, ComparisonReport)
    return report


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def _resimulating(
    qtbot: QtBot, window: MainWindow, source: Path
) -> tuple[list[str], ReplayDialog, WindowReplay]:
    """Open ``source`` and its Re-simulate dialog, not run yet.

    Return the names beside ``source`` before the replay, the dialog and the
    window's replay.
    """
    before = _names(source.parent)
    open_and_wait(qtbot, window, source)
    return before, _dialog(qtbot, window, "Re-simulate…"), _replay(window)


def test_resimulating_a_pushed_take_lists_the_replay_and_shows_where_it_diverges(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    source = takes["pushed"]
    open_and_wait(qtbot, window, source)
    window.session.open_paths([takes["multi"]])  # listed after the source
    dialog = _dialog(qtbot, window, "Re-simulate…")
    assert dialog.output_edit.text() == str(source.with_name("05_pushed.resim.fsr"))
    assert dialog.simulator_combo.currentText() == "planar_arm"
    assert not dialog.force_check.isChecked()

    report = _run(qtbot, window, dialog)

    output = source.with_name("05_pushed.resim.fsr")
    assert output.is_file()
    playlist = window.session.playlist
    rows = [entry.path for entry in playlist.entries]
    assert rows.index(output) == rows.index(source) + 1
    assert window.session.model is not None
    assert window.session.model.path == source  # the recording keeps playing
    divergence = window.timeline.divergence
    assert divergence is not None
    assert divergence[0] == pytest.approx(_PUSH_START_S, abs=0.01)
    assert divergence[1].startswith("first divergence: ")
    verdict = comparison_rows(window)["verdict"]
    assert verdict.startswith(f"diverges at {divergence[0]:.3f} s in ")
    assert "diverges at" in window.status_label.text()
    assert report.replay is not None
    plots = _replay(window).presenter.dock.plots
    assert _replay(window).presenter.dock.isVisible()
    assert _action(window, "Show comparison").isChecked()
    assert plots.channel_combo.currentText() == "q"
    legend = plots.legend_names(plots.overlay_plot)
    assert legend[:2] == ["q0 recorded", "q0 replayed"]
    pens = [curve.opts["pen"].style() for curve in plots.curves(plots.overlay_plot)]
    assert pens[:2] == [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine]
    assert "q" in plots.legend_names(plots.error_plot)
    assert plots.divergence_positions() == [divergence[0], divergence[0]]


def test_with_the_recorded_force_the_pushed_take_reproduces_exactly(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    dialog = _dialog(qtbot, window, "Re-simulate…")
    _click(qtbot, dialog.force_check)
    assert dialog.request().options.with_recorded_force

    report = _run(qtbot, window, dialog)

    assert report.comparison is not None
    assert report.comparison.exact
    assert window.timeline.divergence is None
    assert comparison_rows(window)["verdict"].startswith("reproduces exactly")
    plots = _replay(window).presenter.dock.plots
    assert plots.divergence_positions() == []
    assert plots.error_title.startswith("no error")


def test_the_comparison_follows_the_playing_file_to_the_replay_and_away(
    qtbot: QtBot,
    window: MainWindow,
    takes: dict[str, Path],
) -> None:
    open_and_wait(qtbot, window, takes["pushed"], takes["multi"])
    report = _run(qtbot, window, _dialog(qtbot, window, "Re-simulate…"))
    playlist = window.session.playlist

    window.session.load_row(playlist.row_of(report.candidate.path))
    qtbot.waitUntil(
        lambda: (
            window.inspector_dock.panel.model is not None
            and window.inspector_dock.panel.model.path == report.candidate.path
        )
    )
    assert window.timeline.divergence is not None
    assert "verdict" in comparison_rows(window)

    window.session.load_row(playlist.row_of(takes["multi"]))
    qtbot.waitUntil(lambda: window.timeline.divergence is None)
    assert window.inspector_dock.panel.section("Comparison") is None


def test_cancel_stops_the_replay_and_leaves_nothing_beside_the_source(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    before, dialog, replay = _resimulating(qtbot, window, takes["pushed"])

    with qtbot.waitSignal(replay.cancelled, timeout=_REPLAY_TIMEOUT_MS) as cancelled:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        progress = replay.progress
        assert progress is not None
        cancel_button = progress.findChild(QAbstractButton)
        assert cancel_button is not None
        qtbot.mouseClick(cancel_button, Qt.MouseButton.LeftButton)

    assert "nothing was written" in str(cancelled.args[0])
    assert replay.wait_done(10_000)
    assert _names(takes["pushed"].parent) == before
    assert "nothing was written" in window.status_label.text()
    assert len(window.session.playlist.entries) == 1
    assert _action(window, "Re-simulate…").isEnabled()


def test_closing_the_window_cancels_a_running_replay_and_leaves_nothing(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    before, dialog, replay = _resimulating(qtbot, window, takes["pushed"])
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert replay.running

    window.close()

    assert replay.wait_done(0)
    assert _names(takes["pushed"].parent) == before


def test_a_skelarm_log_greys_both_replays_and_says_why(
    qtbot: QtBot, window: MainWindow, skelarm_logs: list[Path]
) -> None:
    reach = next(path for path in skelarm_logs if path.name.startswith("reach"))
    open_and_wait(qtbot, window, reach)
    menu = _replay_menu(window)

    render, resimulate = _action(window, "Re-render…"), _action(window, "Re-simulate…")

    assert menu.toolTipsVisible()
    assert not render.isEnabled()
    assert "no render state" in tooltip_text(render)
    assert not resimulate.isEnabled()
    reason = skelarm_unavailable_reason()  # this Python (3.11) cannot run skelarm
    expected = reason if reason is not None else "cannot be replayed here"
    assert expected in tooltip_text(resimulate)
    assert expected in resimulate.statusTip()
    assert _action(window, "Compare with…").isEnabled()


def test_a_recording_without_a_config_cannot_be_resimulated(
    qtbot: QtBot, window: MainWindow, small_recording: Path
) -> None:
    open_and_wait(qtbot, window, small_recording)

    resimulate = _action(window, "Re-simulate…")

    assert not resimulate.isEnabled()
    assert "no resolved config" in tooltip_text(resimulate)
    render = _action(window, "Re-render…")
    assert not render.isEnabled()
    assert "names no simulator" in tooltip_text(render)
    assert _replay(window).open_dialog(ReplayMode.RESIMULATE) is None


def test_the_dialog_refuses_an_existing_output_and_a_name_that_is_not_fsr(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    source = takes["pushed"]
    taken = source.with_name("05_pushed.resim.fsr")
    taken.write_bytes(b"somebody's file")
    open_and_wait(qtbot, window, source)
    dialog = _dialog(qtbot, window, "Re-simulate…")
    assert dialog.output_edit.text() == str(source.with_name("05_pushed.resim-2.fsr"))

    dialog.output_edit.setText(str(taken))
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    refused = dialog.problem_label.text()
    dialog.output_edit.setText(str(source.with_name("out.mp4")))

    assert "exists" in refused
    assert dialog.isVisible()
    assert not dialog.run_button.isEnabled()
    assert "must end in .fsr" in dialog.problem_label.text()
    assert taken.read_bytes() == b"somebody's file"
    dialog.reject()


def test_rerender_lists_the_new_file_and_compares_its_frames(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["reach"])
    dialog = _dialog(qtbot, window, "Re-render…")
    assert dialog.output_edit.text().endswith("01_reach.render.fsr")

    report = _run(qtbot, window, dialog)

    assert report.candidate.cameras
    assert report.candidate.path.name == "01_reach.render.fsr"
    assert report.comparison is not None
    assert report.comparison.channels == ()  # a re-render writes no channel
    front = report.comparison.camera("front")
    assert front.frames_compared == len(report.reference.cameras[0].times_s)
    assert "not compared" not in window.status_label.text()
    assert comparison_rows(window)["camera front"].startswith(front.verdict)
    # Its 20 Hz camera is off the 30 Hz render-state rate: still every pixel.
    assert front.exact
    assert "re-rendered frames are identical" in window.status_label.text()


def test_compare_with_another_take_shows_their_differences(
    qtbot: QtBot,
    window: MainWindow,
    takes: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    other = takes["multi"]
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *_, **__: (str(other), "")
    )

    with qtbot.waitSignal(_replay(window).finished, timeout=_REPLAY_TIMEOUT_MS) as done:
        _action(window, "Compare with…").trigger()

    report = done.args[0]
    assert report.replay is None
    assert report.candidate.path == other
    assert other in [entry.path for entry in window.session.playlist.entries]
    rows = comparison_rows(window)
    assert rows["02_multi_target.fsr"] == str(other)
    plots = _replay(window).presenter.dock.plots
    assert plots.legend_names(plots.overlay_plot)[1] == "q0 02_multi_target.fsr"


def test_comparing_the_playing_file_with_itself_is_refused_in_words(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])

    with qtbot.waitSignal(_replay(window).failed) as failed:
        _replay(window).compare_with(takes["pushed"])

    assert "is the playing recording" in str(failed.args[0])
    box = _replay(window).message_box
    assert box is not None
    assert not box.isModal()


def test_the_channel_plots_draw_the_replay_dashed_over_the_recording(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    window.session.options.update(plots=(("q[q1]",),))
    qtbot.waitUntil(lambda: window.plots.settled)  # q is read when shown
    assert window.plots.series_names(0) == ["q1"]

    _run(qtbot, window, _dialog(qtbot, window, "Re-simulate…"))

    assert window.plots.series_names(0) == ["q1", "q1 replayed"]
    widget = window.plots.plot_widget(0)
    styles = [item.opts["pen"].style() for item in widget.getPlotItem().listDataItems()]
    assert styles == [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine]


def test_hovering_the_divergence_on_the_timeline_names_channel_and_time(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    _run(qtbot, window, _dialog(qtbot, window, "Re-simulate…"))
    divergence = window.timeline.divergence
    assert divergence is not None
    where = QPointF(window.timeline.x_of(divergence[0]), 20.0)
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        where,
        QPointF(window.timeline.mapToGlobal(where)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )

    QApplication.sendEvent(window.timeline, move)
    qtbot.waitUntil(lambda: QToolTip.text() == tooltip_html(divergence[1]))

    assert f"at {divergence[0]:.3f} s" in QToolTip.text()


def test_clicking_the_error_plot_seeks_the_recording(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    _run(qtbot, window, _dialog(qtbot, window, "Re-simulate…"))
    plots = _replay(window).presenter.dock.plots
    view = plots.error_plot.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: view.width() > 50)
    scene_point = view.mapViewToScene(QPointF(0.3, 0.0))
    where = plots.error_plot.mapFromScene(scene_point)

    with qtbot.waitSignal(window.session.clock.position_changed):
        qtbot.mouseClick(
            plots.error_plot.viewport(), Qt.MouseButton.LeftButton, pos=where
        )

    assert window.session.clock.position_s == pytest.approx(0.3, abs=0.01)
    assert plots.cursor_positions()[0] == pytest.approx(0.3, abs=0.01)


def test_a_preflight_refusal_is_a_non_modal_message_naming_the_file(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    source = takes["pushed"]
    before = _names(source.parent)
    open_and_wait(qtbot, window, source)
    dialog = _dialog(qtbot, window, "Re-simulate…")
    dialog.simulator_combo.setCurrentText("mujoco")

    with qtbot.waitSignal(_replay(window).failed, timeout=_REPLAY_TIMEOUT_MS) as failed:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

    message = str(failed.args[0])
    assert str(source) in message
    assert "not a MuJoCo recording" in message
    box = _replay(window).message_box
    assert box is not None
    assert box.isVisible()
    assert not box.isModal()
    assert box.text() == message
    assert _names(source.parent) == before
    assert _replay(window).progress is None


def test_a_replay_that_fails_while_running_says_why_and_lists_nothing(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path], tmp_path: Path
) -> None:
    source = takes["pushed"]
    open_and_wait(qtbot, window, source)
    request = ReplayRequest(
        source=source,
        output=tmp_path / "gone" / "out.fsr",
        options=ReplayOptions(mode=ReplayMode.RESIMULATE),
    )

    with qtbot.waitSignal(_replay(window).failed, timeout=_REPLAY_TIMEOUT_MS) as failed:
        _replay(window).start(request)

    message = str(failed.args[0])
    assert "cannot open output folder" in message
    assert "nothing was written" in message
    assert window.status_label.text() == message
    assert not (tmp_path / "gone").exists()
    assert len(window.session.playlist.entries) == 1


def test_a_tolerance_typed_in_the_dialog_judges_the_replay(
    qtbot: QtBot, window: MainWindow, takes: dict[str, Path]
) -> None:
    open_and_wait(qtbot, window, takes["pushed"])
    dialog = _dialog(qtbot, window, "Re-simulate…")
    dialog.tolerance_edit.clear()
    qtbot.keyClicks(dialog.tolerance_edit, "-1")
    refused = dialog.problem_label.text()
    dialog.tolerance_edit.clear()
    qtbot.keyClicks(dialog.tolerance_edit, "1000")

    report = _run(qtbot, window, dialog)

    assert "tolerance must be a number >= 0" in refused
    assert report.comparison is not None
    assert report.comparison.tolerance == 1000.0
    assert report.comparison.within_tolerance
    assert not report.comparison.exact
    assert comparison_rows(window)["verdict"].startswith("within tolerance 1000")
    assert window.timeline.divergence is None
