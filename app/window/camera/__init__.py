"""Camera views: a recorded frame with its calibration overlays, decoded off the GUI."""

from __future__ import annotations

from app.window.camera.camera_area import CameraArea
from app.window.camera.frame_view import FrameView

__all__ = ["CameraArea", "FrameView"]
