"""Painting a recording's planar scene and its readout panel with QPainter.

:class:`SceneCanvas` draws the arm, its task overlays and the tip force at a
play time; :class:`CameraCanvas` draws one camera's recorded frame with the
task projected through that frame's calibration; :class:`ReadoutPanel` draws
the side panel that exports place next to it. All paint into any
``QPainter`` (the window's view, an export frame) and need a
``QGuiApplication`` for their text.

The readouts both side panels show are the Qt-free row providers of
:mod:`app.canvas.panel_rows`. This package imports its Qt modules only when
one of the names below is first asked for, so importing
``app.canvas.panel_rows`` (or ``shown_text``) loads no Qt.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from PySide6.QtGui import QImage

    from app.canvas.camera_canvas import CameraCanvas, CameraOptions
    from app.canvas.panel import ReadoutPanel
    from app.canvas.scene_canvas import SceneCanvas, SceneOptions

__all__ = [
    "CameraCanvas",
    "CameraOptions",
    "ReadoutPanel",
    "SceneCanvas",
    "SceneOptions",
    "qimage_to_rgb",
]

# The module each canvas name comes from.
_HOMES: Final = {
    "CameraCanvas": "app.canvas.camera_canvas",
    "CameraOptions": "app.canvas.camera_canvas",
    "ReadoutPanel": "app.canvas.panel",
    "SceneCanvas": "app.canvas.scene_canvas",
    "SceneOptions": "app.canvas.scene_canvas",
}


def __getattr__(name: str) -> object:
    """Import a canvas class from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'app.canvas' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted({*globals(), *__all__})


def qimage_to_rgb(image: QImage) -> npt.NDArray[np.uint8]:
    """Return an ``(h, w, 3)`` uint8 copy of ``image`` (any format).

    Rows of a ``QImage`` are padded to 4 bytes (``bytesPerLine``), so an odd
    width leaves bytes after each row; they are dropped here.
    """
    from PySide6.QtGui import QImage

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
