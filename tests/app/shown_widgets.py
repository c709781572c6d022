"""Show a widget for a window test the same way every time.

Imported by the tests of this folder (``from shown_widgets import ...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.window.main_window import MainWindow
from app.window.state.session import PlayerSession
from app.window.workers import run_inline

__all__ = ["ini_settings", "new_main_window", "show_widget"]

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


def new_main_window(settings: QSettings) -> MainWindow:
    """Return a player window whose jobs run inline, with ``settings``."""
    session = PlayerSession(runner=run_inline, check_runner=run_inline)
    return MainWindow(session=session, settings=settings)
