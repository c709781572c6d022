"""Small painting helpers every canvas uses: colours and pixel-sized fonts."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QGuiApplication

__all__ = ["Rgb", "rgb_color", "ui_font"]

Rgb = tuple[int, int, int]


def rgb_color(rgb: Rgb, alpha: int = 255) -> QColor:
    """Return ``rgb`` (0..255 each) as a QColor with ``alpha``."""
    return QColor(rgb[0], rgb[1], rgb[2], alpha)


def ui_font(pixel_size: float, *, bold: bool = False) -> QFont:
    """Return the application font at ``pixel_size`` pixels (at least 1)."""
    font = QFont(QGuiApplication.font())
    font.setPixelSize(max(round(pixel_size), 1))
    font.setBold(bold)
    return font
