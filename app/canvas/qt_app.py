"""The one QApplication of the player (and of headless screenshots).

It is created with the project's look: the style sheet and the window icon
of :mod:`resources`.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QIODevice,
    QMessageLogContext,
    QSize,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QGuiApplication, QIcon, QImageReader, QPixmap
from PySide6.QtWidgets import QApplication

from resources import icon_bytes, style_sheet

__all__ = ["app_icon", "ensure_app"]

_app: QApplication | None = None
#: Offscreen platform notes that say nothing about the program.
_QUIET: tuple[str, ...] = ("This plugin does not support propagateSizeHints",)
#: The icon is drawn from its SVG at each of these sizes (pixels).
_ICON_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256)


def _quiet_handler(kind: QtMsgType, context: QMessageLogContext, text: str) -> None:
    del context
    if kind == QtMsgType.QtDebugMsg or text.startswith(_QUIET):
        return
    sys.stderr.write(f"qt: {text}\n")


def app_icon() -> QIcon:
    """Return the application icon, drawn from ``resources/icon.svg``.

    Needs a QGuiApplication. The icon is null when Qt cannot read SVG (its
    image format plugin is missing).
    """
    data = QByteArray(icon_bytes())
    icon = QIcon()
    for size in _ICON_SIZES:
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        reader = QImageReader(buffer, QByteArray(b"svg"))
        reader.setScaledSize(QSize(size, size))
        image = reader.read()
        if not image.isNull():
            icon.addPixmap(QPixmap.fromImage(image))
    return icon


def ensure_app(*, headless: bool = False) -> QApplication:
    """Return the running QApplication, creating it if needed.

    ``headless`` (screenshots) draws offscreen unless the user chose a
    platform with ``QT_QPA_PLATFORM``. A plain QGuiApplication created
    earlier (by a headless export) cannot host widgets: that is an error.
    The application this creates gets the project's style sheet and window
    icon; one created elsewhere is returned as it is.
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
    _app.setStyleSheet(style_sheet())  # empty (no rule): Qt keeps its own style
    icon = app_icon()
    if not icon.isNull():
        QGuiApplication.setWindowIcon(icon)
    return _app
