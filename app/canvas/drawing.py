"""Small painting helpers every canvas uses: colours, fonts, the painter state.

Every colour a canvas draws with is a named entry of the project's palette
(:func:`resources.palette`, ``resources/palette.toml``), looked up here, so
the window, the exports and the core's camera renderer share one palette.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPainter

from resources import Rgb, palette

__all__ = [
    "Rgb",
    "painting_in",
    "palette_cycle",
    "palette_rgb",
    "palette_table",
    "qcolor",
    "rgb_color",
    "ui_font",
]


def qcolor(name: str, alpha: int | None = None) -> QColor:
    """Return the palette colour ``name`` as a QColor (``alpha`` replaces its own)."""
    red, green, blue, own = palette().rgba(name)
    return QColor(red, green, blue, own if alpha is None else alpha)


def palette_rgb(name: str) -> Rgb:
    """Return the opaque palette colour ``name`` as ``(r, g, b)``."""
    return palette().rgb(name)


def palette_cycle(name: str) -> tuple[Rgb, ...]:
    """Return the palette's list of colours ``name`` (links, series) as RGB."""
    return palette().cycle(name)


def palette_table(name: str) -> dict[str, Rgb]:
    """Return the opaque colours of the palette's table ``name``, by key."""
    colors = palette()
    return {key: colors.rgb(f"{name}.{key}") for key in colors.table(name)}


def rgb_color(rgb: Rgb, alpha: int = 255) -> QColor:
    """Return ``rgb`` (0..255 each) as a QColor with ``alpha``."""
    return QColor(rgb[0], rgb[1], rgb[2], alpha)


def ui_font(pixel_size: float, *, bold: bool = False) -> QFont:
    """Return the application font at ``pixel_size`` pixels (at least 1)."""
    font = QFont(QGuiApplication.font())
    font.setPixelSize(max(round(pixel_size), 1))
    font.setBold(bold)
    return font


@contextmanager
def painting_in(
    painter: QPainter, rect: QRectF, *, smooth_images: bool = False
) -> Iterator[None]:
    """Paint clipped to ``rect`` and antialiased; restore ``painter`` after.

    Every canvas's ``paint`` starts from this state, so it leaves the painter
    as it found it however the drawing ends.

    Parameters
    ----------
    painter
        The painter drawn with (a view's, an export image's).
    rect
        Where the canvas draws; nothing is drawn outside it.
    smooth_images
        Whether scaled images are filtered too (a camera frame letterboxed
        into ``rect``).
    """
    painter.save()
    try:
        painter.setClipRect(rect)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        if smooth_images:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        yield
    finally:
        painter.restore()
