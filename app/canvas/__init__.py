"""Painting a recording's planar scene and its readout panel with QPainter.

:class:`SceneCanvas` draws the arm, its task overlays and the tip force at a
play time; :class:`CameraCanvas` draws one camera's recorded frame with the
task projected through that frame's calibration; :class:`ReadoutPanel` draws
the side panel that exports place next to it. What they draw over the
recording is the :class:`ViewModel`'s overlays (:mod:`app.canvas.overlays`).
All paint into any ``QPainter`` (the window's view, an export frame) and
need a ``QGuiApplication`` for their text. The readouts both side panels
show are the Qt-free row providers of :mod:`app.canvas.panel_rows`. The names
here are imported on first use: the view model, the overlay registry and the
panel rows load no Qt.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.canvas.camera_canvas import CameraCanvas
    from app.canvas.panel import ReadoutPanel
    from app.canvas.qimage_arrays import qimage_to_rgb
    from app.canvas.scene_canvas import SceneCanvas
    from app.canvas.view_model import ViewModel

__all__ = [
    "CameraCanvas",
    "ReadoutPanel",
    "SceneCanvas",
    "ViewModel",
    "qimage_to_rgb",
]

#: Where each name lives: imported on first use, so that importing the Qt-free
#: parts (the view model, the overlay registry) loads no Qt.
_HOMES = {
    "CameraCanvas": "app.canvas.camera_canvas",
    "ReadoutPanel": "app.canvas.panel",
    "SceneCanvas": "app.canvas.scene_canvas",
    "ViewModel": "app.canvas.view_model",
    "qimage_to_rgb": "app.canvas.qimage_arrays",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'app.canvas' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
