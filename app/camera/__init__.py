"""Camera views: a recorded frame with its calibration overlays, decoded off the GUI."""

from __future__ import annotations

from app.camera.camera_area import CameraArea
from app.camera.frame_view import FrameView

__all__ = ["CameraArea", "FrameView"]
