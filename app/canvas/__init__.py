"""Painting a recording's planar scene and its readout panel with QPainter.

:class:`SceneCanvas` draws the arm, its task overlays and the tip force at a
play time; :class:`CameraCanvas` draws one camera's recorded frame with the
task projected through that frame's calibration; :class:`ReadoutPanel` draws
the side panel that exports place next to it. What they draw over the
recording is the :class:`ViewModel`'s overlays (:mod:`app.canvas.overlays`).
All paint into any ``QPainter`` (the window's view, an export frame) and
need a ``QGuiApplication`` for their text.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtGui import QImage

from app.canvas.camera_canvas import CameraCanvas
from app.canvas.panel import ReadoutPanel
from app.canvas.scene_canvas import SceneCanvas
from app.canvas.view_model import ViewModel

__all__ = [
    "CameraCanvas",
    "ReadoutPanel",
    "SceneCanvas",
    "ViewModel",
    "qimage_to_rgb",
]


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
