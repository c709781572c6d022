"""The player window driven through its real widgets: keys, clicks, docks, drops."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QAbstractButton, QApplication
from pytestqt.qtbot import QtBot
from shown_widgets import activate_window, new_main_window

from app.window.main_window import MainWindow

pytestmark = pytest.mark.gui


#: The size of the conftest's ``window``.
WINDOW_SIZE = (1100, 700)


@pytest.fixture
def window(qtbot: QtBot, window: MainWindow) -> MainWindow:
    """Make the conftest's window the active one: the keys go to it."""
    return activate_window(qtbot, window)


def _playlist(
    window: MainWindow, short_takes: dict[str, Path], broken: Path
) -> list[Path]:
    files = [short_takes["reach"], broken, short_takes["multi"], short_takes["pushed"]]
    window.open_files(files)
    return files


def test_the_window_names_the_playing_file_and_greys_a_bad_one(
    window: MainWindow, short_takes: dict[str, Path], broken_file: Path
) -> None:
    _playlist(window, short_takes, broken_file)
    assert window.windowTitle().startswith("01_reach.fsr (1/4)")
    assert window.playlist_dock.isVisible()
    playlist = window.session.playlist
    assert not playlist.entry(1).state.playable
    assert "bad magic" in playlist.entry(1).reason


def test_space_plays_and_pauses_and_arrows_step_frames(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["multi"]])
    clock = window.session.clock
    qtbot.keyClick(window, Qt.Key.Key_Right)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert clock.frame_index == 2
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert clock.frame_index == 1
    qtbot.keyClick(window, Qt.Key.Key_End)
    assert clock.frame_index == clock.frame_count - 1
    qtbot.keyClick(window, Qt.Key.Key_Home)
    assert clock.position_s == 0.0
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert clock.playing
    qtbot.waitUntil(lambda: clock.position_s > 0.0, timeout=3000)
    qtbot.mouseClick(window.transport.play_button, Qt.MouseButton.LeftButton)
    assert not clock.playing


def test_clicking_the_timeline_seeks_every_view(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"]])
    timeline = window.timeline
    target_x = round(timeline.x_of(0.25))
    qtbot.mouseClick(
        timeline,
        Qt.MouseButton.LeftButton,
        pos=QPoint(target_x, timeline.height() // 2),
    )
    clock = window.session.clock
    assert clock.position_s == pytest.approx(0.25, abs=0.01)
    assert timeline.position_s == clock.position_s
    frame_view = window.camera_area.views[0]
    qtbot.waitUntil(lambda: frame_view.shown_index == frame_view.wanted_index)
    times = window.session.model.cameras[0].times_s  # type: ignore[union-attr]
    shown = frame_view.shown_index
    assert shown is not None
    assert times[shown] <= clock.position_s < times[shown + 1]
    assert "t = 0.25" in window.transport.readout.text()


def test_n_and_p_change_file_keep_playing_and_skip_the_bad_one(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], broken_file: Path
) -> None:
    _playlist(window, short_takes, broken_file)
    window.playlist_dock.view.setFocus()
    qtbot.keyClick(window.playlist_dock.view, Qt.Key.Key_Space)
    qtbot.keyClick(window.playlist_dock.view, Qt.Key.Key_N)
    assert window.session.playlist.current == 2
    assert window.session.clock.playing
    qtbot.keyClick(window.playlist_dock.view, Qt.Key.Key_P)
    assert window.session.playlist.current == 0
    assert window.session.clock.playing
    window.session.clock.pause()


def test_enter_in_the_playlist_loads_and_plays_that_file(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], broken_file: Path
) -> None:
    _playlist(window, short_takes, broken_file)
    view = window.playlist_dock.view
    view.setCurrentIndex(window.session.playlist.index(3))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert window.session.playlist.current == 3
    assert window.session.clock.playing
    assert window.windowTitle().startswith("05_pushed.fsr")
    window.session.clock.pause()


def test_toggles_carry_over_to_the_next_file(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"], short_takes["pushed"]])
    window.menus.toggles["com"].trigger()
    window.session.clock.set_speed(2.5)
    qtbot.keyClick(window, Qt.Key.Key_N)
    assert window.session.options.options.shows("com")
    canvas = window.scene_view.canvas
    assert canvas is not None
    assert canvas.options.shows("com")
    assert window.session.clock.speed == 2.5


def test_the_window_widens_for_the_docked_playlist_and_narrows_without_it(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"]])
    central = window.centralWidget()
    qtbot.waitUntil(lambda: central.width() > 0)
    before_window, before_central = window.width(), central.width()
    window.show_playlist(True)
    qtbot.waitUntil(lambda: window.width() > before_window, timeout=3000)
    qtbot.waitUntil(
        lambda: abs(central.width() - before_central) <= 4,
        timeout=3000,
    )
    window.playlist_dock.setFloating(True)
    qtbot.waitUntil(lambda: window.width() == before_window, timeout=3000)
    window.playlist_dock.setFloating(False)
    qtbot.waitUntil(lambda: window.width() > before_window, timeout=3000)
    window.playlist_dock.close()
    qtbot.waitUntil(lambda: window.width() == before_window, timeout=3000)
    assert not window.side_panel.findChild(object, "playlist_button").isChecked()


def test_the_playlist_docks_on_the_left_too(
    window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"], short_takes["multi"]])
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.playlist_dock)
    area = window.dockWidgetArea(window.playlist_dock)
    assert area == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.playlist_dock.isVisible()


def _drag(window: MainWindow, mime: QMimeData) -> tuple[bool, bool]:
    """Drag ``mime`` over the window and drop it, through Qt's event dispatch.

    Returns whether the drag was accepted on entry and the drop accepted.
    """
    centre = QPoint(window.width() // 2, window.height() // 2)
    enter = QDragEnterEvent(
        centre,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False, False
    drop = QDropEvent(
        QPointF(centre),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, drop)
    return True, drop.isAccepted()


def test_dropping_files_opens_and_plays_them(
    window: MainWindow, short_takes: dict[str, Path]
) -> None:
    mime = QMimeData()
    mime.setUrls(
        [
            QUrl.fromLocalFile(str(short_takes["multi"])),
            QUrl.fromLocalFile(str(short_takes["reach"])),
        ]
    )
    assert _drag(window, mime) == (True, True)
    assert window.session.model is not None
    assert window.session.model.path == short_takes["multi"]
    assert len(window.session.playlist.entries) == 2
    assert window.session.clock.playing
    window.session.clock.pause()


def test_dragged_text_or_web_links_are_refused(window: MainWindow) -> None:
    text = QMimeData()
    text.setText("/not/a/file/url.fsr")
    web = QMimeData()
    web.setUrls([QUrl("https://example.com/run.fsr")])

    assert _drag(window, text) == (False, False)
    assert _drag(window, web) == (False, False)
    assert window.session.model is None


def test_the_playlist_floats_and_docks_again_from_its_title_bar_button(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    alone_width = window.width()
    window.open_files([short_takes["reach"], short_takes["multi"]])
    dock = window.playlist_dock
    qtbot.waitUntil(lambda: window.width() > alone_width, timeout=3000)
    docked_width = window.width()
    button = dock.findChild(QAbstractButton, "qt_dockwidget_floatbutton")
    assert button is not None

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dock.isFloating)
    qtbot.waitUntil(lambda: window.width() == alone_width, timeout=3000)
    assert dock.isVisible()

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dock.isFloating())
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    qtbot.waitUntil(lambda: window.width() == docked_width, timeout=3000)


def test_settings_remember_toggles_speed_and_recent_files(
    qtbot: QtBot, settings: QSettings, short_takes: dict[str, Path]
) -> None:
    first = new_main_window(settings)
    qtbot.addWidget(first)
    first.open_files([short_takes["reach"]])
    first.session.options.set_overlay("com", True)
    first.session.clock.set_speed(3.0)
    first.close()
    second = new_main_window(settings)
    qtbot.addWidget(second)
    assert second.session.options.options.shows("com")
    assert second.session.clock.speed == 3.0
    recent = [action.text() for action in second.menus.recent_menu.actions()]
    assert recent == [str(short_takes["reach"].resolve())]
    second.close()


def test_the_inspector_shows_the_playing_file(
    window: MainWindow, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"]])
    window.menus.inspector_action.trigger()
    assert window.inspector_dock.isVisible()
    tree = window.inspector_dock.panel.tree
    sections = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert "Streams" in sections


def test_picked_channels_are_plotted_with_a_cursor_at_the_clock(
    window: MainWindow, short_takes: dict[str, Path], qtbot: QtBot
) -> None:
    window.open_files([short_takes["reach"]])
    window.session.options.update(plots=(("q",),))
    assert window.plots_dock.isVisible()
    # Opened, the plots get a third of the window, not a strip at the bottom.
    qtbot.waitUntil(lambda: window.plots_dock.height() >= window.height() // 4)
    window.session.clock.seek(0.3)
    # The joints are read when first plotted, on a job thread.
    qtbot.waitUntil(lambda: window.plots.plot_count == 1)
    assert window.plots.cursor_positions() == [pytest.approx(0.3)]
