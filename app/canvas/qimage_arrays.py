"""A ``QImage`` as a numpy RGB array (the tests' and the exports' view of pixels)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtGui import QImage

__all__ = ["qimage_to_rgb"]


def qimage_to_rgb(image: QImage) -> npt.NDArray[np.uint8]:
    """Return an ``(h, w, 3)`` uint8 copy of ``image`` (any format).

    Rows of a ``QImage`` are padded to 4 bytes (``bytesPerLine``), so an odd
    width leaves bytes after each row; they are dropped here.
    """
    rgb = image
    if image.format() != QImage.Format.Format_RGB888:
        rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height = rgb.width(), rgb.height()
    if width == 0 or height == 0:
        return np.zeros((height, width, 3), dtype=np.uint8)
    stride = rgb.bytesPerLine()
    buffer = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=stride * height)
    rows = buffer.reshape(height, stride)[:, : width * 3]
    result: npt.NDArray[np.uint8] = rows.reshape(height, width, 3).copy()
    return result
