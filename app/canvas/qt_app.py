"""The one QApplication of the player (and of headless screenshots)."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import (
    QCoreApplication,
    QMessageLogContext,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtWidgets import QApplication

__all__ = ["ensure_app"]

_app: QApplication | None = None
#: Offscreen platform notes that say nothing about the program.
_QUIET: tuple[str, ...] = ("This plugin does not support propagateSizeHints",)


def _quiet_handler(kind: QtMsgType, context: QMessageLogContext, text: str) -> None:
    del context
    if kind == QtMsgType.QtDebugMsg or text.startswith(_QUIET):
        return
    sys.stderr.write(f"qt: {text}\n")


def ensure_app(*, headless: bool = False) -> QApplication:
    """Return the running QApplication, creating it if needed.

    ``headless`` (screenshots) draws offscreen unless the user chose a
    platform with ``QT_QPA_PLATFORM``. A plain QGuiApplication created
    earlier (by a headless export) cannot host widgets: that is an error.
    """
    global _app
    existing = QCoreApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    if existing is not None:
        raise RuntimeError("a non-widget Qt application is already running")
    if headless:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        qInstallMessageHandler(_quiet_handler)
    QApplication.setApplicationName("fsr-viewer")
    QApplication.setOrganizationName("FSR Viewer")
    _app = QApplication(["fsr-viewer"])
    return _app
