"""The one way every canvas turns its ``paint`` into a standalone image."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

__all__ = ["paint_to_image"]


def paint_to_image(
    paint: Callable[[QPainter, QRectF], None], width: int, height: int, fill: QColor
) -> QImage:
    """Run ``paint`` on a fresh ``width`` x ``height`` image and return it as RGB888.

    The image is ARGB32-premultiplied while painting (what anti-aliasing is
    tuned for), filled with ``fill`` first, then converted.
    """
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(fill)
    painter = QPainter(image)
    try:
        paint(painter, QRectF(0.0, 0.0, width, height))
    finally:
        painter.end()
    return image.convertToFormat(QImage.Format.Format_RGB888)
