"""A bug that escapes a slot or a thread: logged, shown in plain text, never silent.

pytest-qt's own exception capture is off here (``qt_no_exception_capture``):
these tests install the window's hook in its place.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, new_main_window, show_widget

from app.cli import main
from app.window import main_window
from app.window.last_resort import LastResort
from app.window.main_window import MainWindow, open_player

pytestmark = [pytest.mark.gui, pytest.mark.qt_no_exception_capture]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    return show_widget(qtbot, new_main_window(ini_settings(tmp_path)))


@pytest.fixture
def last_resort(window: MainWindow) -> Iterator[LastResort]:
    hook = LastResort()
    hook.watch(window)
    hook.install()
    yield hook
    hook.uninstall()
    if hook.dialog is not None:
        hook.dialog.close()


def _raise_in_a_slot(exc: Exception) -> None:
    def slot() -> None:
        raise exc

    QTimer.singleShot(0, slot)


def _visible_boxes() -> list[QMessageBox]:
    return [
        widget
        for widget in QApplication.topLevelWidgets()
        if isinstance(widget, QMessageBox) and widget.isVisible()
    ]


def test_a_slot_exception_shows_a_non_modal_plain_text_box_and_logs_it(
    qtbot: QtBot,
    window: MainWindow,
    last_resort: LastResort,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with qtbot.waitSignal(last_resort.error_shown, timeout=10_000) as shown:
        _raise_in_a_slot(ZeroDivisionError("the scene broke"))

    line = "internal error (ZeroDivisionError: the scene broke)"
    assert shown.args == [line]
    box = last_resort.dialog
    assert box is not None
    assert box.isVisible()
    assert not box.isModal()
    assert box.parent() is window
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text().splitlines()[0] == line
    assert "log" in box.text()
    assert window.isVisible()  # the window goes on
    assert "Traceback" in caplog.text
    assert "the scene broke" in caplog.text


def test_markup_and_long_text_are_shown_literally_on_one_elided_line(
    qtbot: QtBot, last_resort: LastResort, caplog: pytest.LogCaptureFixture
) -> None:
    text = "<b>bold</b> " + "x" * 5000 + "\nsecond line"

    with qtbot.waitSignal(last_resort.error_shown, timeout=10_000):
        _raise_in_a_slot(RuntimeError(text))

    box = last_resort.dialog
    assert box is not None
    first = box.text().splitlines()[0]
    assert first.startswith("internal error (RuntimeError: <b>bold</b> xxx")
    assert "…" in first
    assert len(first) < 400
    assert "second line" not in box.text()
    assert "second line" in caplog.text  # the log keeps it all


def test_later_errors_are_counted_in_the_same_box(
    qtbot: QtBot, last_resort: LastResort
) -> None:
    with qtbot.waitSignal(last_resort.error_shown, timeout=10_000):
        _raise_in_a_slot(KeyError("first"))
    first_box = last_resort.dialog

    with qtbot.waitSignal(last_resort.error_shown, timeout=10_000):
        _raise_in_a_slot(OSError("second"))

    assert last_resort.dialog is first_box
    assert len(_visible_boxes()) == 1
    assert first_box is not None
    assert "(1 more since; see the log)" in first_box.text()


def test_an_exception_on_a_worker_thread_is_shown_from_the_gui_thread(
    qtbot: QtBot, last_resort: LastResort
) -> None:
    shown_on: list[threading.Thread] = []
    last_resort.error_shown.connect(
        lambda _: shown_on.append(threading.current_thread())
    )

    def work() -> None:
        raise RuntimeError("the worker broke")

    thread = threading.Thread(target=work, name="fsr-test-worker")
    with qtbot.waitSignal(last_resort.error_shown, timeout=10_000) as shown:
        thread.start()
    thread.join(10)

    assert shown.args == ["internal error (RuntimeError: the worker broke)"]
    assert shown_on == [threading.main_thread()]


def test_the_player_runs_under_the_hook_and_puts_the_old_one_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = ini_settings(tmp_path)
    monkeypatch.setattr(main_window, "default_settings", lambda: settings)
    before = sys.excepthook
    seen: dict[str, object] = {}

    def buggy_slot() -> None:
        seen["hook installed"] = sys.excepthook is not before
        raise ZeroDivisionError("a bug in a slot")

    def look_and_close() -> None:
        seen["boxes"] = [box.text().splitlines()[0] for box in _visible_boxes()]
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow):
                widget.close()
                widget.deleteLater()
        QApplication.quit()

    QTimer.singleShot(0, buggy_slot)
    QTimer.singleShot(0, look_and_close)

    assert open_player([]) == 0
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    assert seen == {
        "hook installed": True,
        "boxes": ["internal error (ZeroDivisionError: a bug in a slot)"],
    }
    assert sys.excepthook is before


def test_a_slot_exception_during_a_screenshot_exits_1_with_one_line(
    monkeypatch: pytest.MonkeyPatch,
    short_takes: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(self: MainWindow, model: object) -> None:
        raise RuntimeError("the scene broke")

    monkeypatch.setattr(MainWindow, "_on_session_model_changed", broken)
    before = sys.excepthook
    out = tmp_path / "shot.png"

    code = main([str(short_takes["multi"]), "--screenshot", str(out)])

    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert "internal error (RuntimeError: the scene broke)" in err
    assert not out.exists()
    assert _visible_boxes() == []
    assert sys.excepthook is before


def test_keyboard_interrupt_goes_to_the_hook_that_was_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passed_on: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, exc, tb: passed_on.append(kind))
    hook = LastResort()
    hook.install()
    try:
        sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    finally:
        hook.uninstall()

    assert passed_on == [KeyboardInterrupt]
    assert hook.dialog is None
