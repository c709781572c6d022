"""Show a widget for a window test the same way every time, and drive it.

``tests/`` is on ``sys.path``, so every window test (``tests/app``, and the
window tests of ``tests/skelarm`` and ``tests/genesis``) imports this as
``from shown_widgets import ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.window.main_window import MainWindow
from app.window.state.session import PlayerSession
from app.window.workers import run_inline

__all__ = [
    "activate_window",
    "checked_time_bases",
    "ini_settings",
    "inline_session",
    "new_main_window",
    "open_and_wait",
    "show_widget",
    "time_base_entries",
    "turn_wheel",
]

Shown = TypeVar("Shown", bound=QWidget)


def show_widget(
    qtbot: QtBot,
    widget: Shown,
    size: tuple[int, int] | None = None,
    *,
    exposed: bool = True,
) -> Shown:
    """Hand ``widget`` to ``qtbot``, resize it to ``size`` and show it.

    With ``exposed`` (the default) it returns once the widget is on screen.
    """
    qtbot.addWidget(widget)
    if size is not None:
        widget.resize(*size)
    widget.show()
    if exposed:
        qtbot.waitExposed(widget)
    return widget


def ini_settings(folder: Path) -> QSettings:
    """Return the window settings kept in ``folder/settings.ini``."""
    return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)


def inline_session() -> PlayerSession:
    """Return a player session whose jobs (loading, checks) run inline."""
    return PlayerSession(runner=run_inline, check_runner=run_inline)


def new_main_window(settings: QSettings) -> MainWindow:
    """Return a player window whose jobs run inline, with ``settings``."""
    return MainWindow(session=inline_session(), settings=settings)


def open_and_wait(qtbot: QtBot, window: MainWindow, *paths: Path) -> None:
    """Open ``paths`` in ``window`` and wait until the first one is loaded."""
    window.open_files(list(paths))
    qtbot.waitUntil(lambda: window.session.model is not None)


def activate_window(qtbot: QtBot, window: MainWindow) -> MainWindow:
    """Make ``window`` the active one (the keys go to it) and return it."""
    # waitActive is a context manager: called bare it waits for nothing, and
    # the offscreen platform activates a window through a queued event.
    with qtbot.waitActive(window):
        window.activateWindow()
    return window


def turn_wheel(widget: QWidget, where: QPointF, notches: int) -> None:
    """Turn the mouse wheel ``notches`` over ``where`` of ``widget`` (+: away)."""
    event = QWheelEvent(
        where,
        widget.mapToGlobal(where),
        QPoint(),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def time_base_entries(window: MainWindow) -> list[str]:
    """Return the entries of View → Time base; assert that the menu is enabled."""
    menu = window.menus.time_base_menu
    assert menu.isEnabled()
    return [action.text() for action in menu.actions()]


def checked_time_bases(window: MainWindow) -> list[str]:
    """Return the time bases whose entry in View → Time base is checked."""
    actions = window.menus.time_base_actions
    return [base for base, action in actions.items() if action.isChecked()]
