"""What an exported frame shows: the window's canvases (and panel) drawn as RGB.

``view`` ``"scene"`` draws the scene (the planar arm, or a recorded 3D scene
such as a MuJoCo run's geometry), ``"camera"`` one camera's frames
with their overlays, ``"both"`` the two side by side, ``"auto"`` the scene or,
when the recording has none to draw, its camera (:func:`resolve_view`); the
readout panel goes on the right. Each part is painted by the same code that
draws the window.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.canvas.view_model import VIEWS, ViewModel
from app.headless.export.encoder import RGBArray
from fsr_core.recording import RecordingModel

__all__ = [
    "VIEWS",
    "FrameSource",
    "check_view",
    "resolve_view",
]


def resolve_view(model: RecordingModel, view: str) -> str:
    """Return what ``view`` draws of ``model``, ``"auto"`` made concrete.

    ``"auto"`` (the default) is the scene when the recording has one to draw
    (planar kinematics or a 3D scene), else its camera when it has one (a
    LeRobot episode, a camera log), else the scene, which then says what it
    lacks. Any other view is returned as it is.
    """
    if view != "auto":
        return view
    return "camera" if model.cameras and not model.has_scene else "scene"


def check_view(model: RecordingModel, view: str, camera: str | None) -> str | None:
    """Return the camera a ``view`` draws (``None`` for the scene alone).

    ``camera`` defaults to the recording's first camera.

    Raises
    ------
    ValueError
        An unknown view, a camera view of a recording without cameras, or an
        unknown camera name (the message lists the known ones).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; use {', '.join(VIEWS)}")
    view = resolve_view(model, view)
    if view == "scene":
        return None
    names = [track.name for track in model.cameras]
    if not names:
        raise ValueError(f"{model.path}: has no cameras (use --view scene)")
    if camera is None:
        return names[0]
    if camera not in names:
        known = ", ".join(names)
        raise ValueError(f"{model.path}: no camera {camera!r}; known cameras: {known}")
    return camera


class FrameSource:
    """The view(s) (and optional side panel) drawn as RGB arrays.

    ``shown`` says what is drawn (its overlays, environment, view, camera,
    size and panel). ``view`` ``"scene"`` or ``"camera"`` draws one canvas at ``size``;
    ``"both"`` puts the scene and the camera side by side, each ``size`` (so
    ``2 * W`` wide); the panel adds its width on the right.

    Every part paints with one QPainter into the same reused
    ``ARGB32_Premultiplied`` image (the format the canvases' own ``render``
    draws into, so the pixels are theirs exactly): :meth:`render` copies it
    out as RGB; the video export paints into its encoder's own frame instead
    (:meth:`paint`).
    """

    def __init__(self, model: RecordingModel, shown: ViewModel) -> None:
        from PySide6.QtCore import QRectF
        from PySide6.QtGui import QImage

        from app.canvas.geometry_canvas import camera_canvas_for, scene_canvas_for
        from app.canvas.panel import ReadoutPanel

        view = resolve_view(model, shown.view)
        name = check_view(model, view, shown.camera)
        width, height = shown.size
        views: list[Any] = []
        if view in ("scene", "both"):
            views.append(scene_canvas_for(model, shown))
        if name is not None:
            views.append(camera_canvas_for(model, name, shown))
        parts: list[tuple[Any, Any]] = [
            (canvas, QRectF(index * width, 0, width, height))
            for index, canvas in enumerate(views)
        ]
        x = len(views) * width
        if shown.panel:
            parts.append(
                (
                    ReadoutPanel(model, environment=shown.environment),
                    QRectF(x, 0, ReadoutPanel.WIDTH_PX, height),
                )
            )
            x += ReadoutPanel.WIDTH_PX
        self._parts = parts
        self.width = x
        self.height = height
        self._image = QImage(
            self.width, self.height, QImage.Format.Format_ARGB32_Premultiplied
        )

    def render(self, play_time_s: float) -> RGBArray:
        """Return the frame at ``play_time_s`` as a new ``(h, w, 3)`` RGB array."""
        bgra = self._paint(play_time_s)
        # Premultiplied ARGB32 is B, G, R, A in memory (little-endian); every
        # pixel is opaque, so the colour bytes are the RGB values.
        rgb: RGBArray = np.empty((self.height, self.width, 3), dtype=np.uint8)
        rgb[..., 0] = bgra[..., 2]
        rgb[..., 1] = bgra[..., 1]
        rgb[..., 2] = bgra[..., 0]
        return rgb

    def paint(self, image: Any, play_time_s: float) -> None:
        """Paint the frame at ``play_time_s`` into the top left of ``image``.

        ``image`` is a QImage at least :attr:`width` x :attr:`height` (the
        export's :class:`~app.headless.export.canvas_frame.CanvasFrame`); every part
        fills its own rectangle, so nothing of the previous frame is left.
        """
        from PySide6.QtGui import QPainter

        if image.width() < self.width or image.height() < self.height:
            raise ValueError(
                f"a {image.width()}x{image.height()} image is smaller than the "
                f"{self.width}x{self.height} frame"
            )
        painter = QPainter(image)
        try:
            for part, rect in self._parts:
                part.paint(painter, rect, play_time_s)
        finally:
            painter.end()

    def _paint(self, play_time_s: float) -> RGBArray:
        """Paint every part into the reused image; return a view of its pixels."""
        image = self._image
        self.paint(image, play_time_s)
        stride = image.bytesPerLine()
        pixels: RGBArray = np.frombuffer(
            image.constBits(), dtype=np.uint8, count=stride * self.height
        ).reshape(self.height, stride // 4, 4)[:, : self.width]
        return pixels
