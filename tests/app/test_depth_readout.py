"""A depth camera reads out metres under the cursor and says its colour scale."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRectF

from app.canvas.geometry_canvas import camera_canvas_for
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[1] / "data" / "embodichain" / "complete"


def test_the_readout_gives_the_depth_under_the_probe(qapp: object) -> None:
    del qapp
    model = open_recording(episode_path(ROOT, 0))
    canvas = camera_canvas_for(model, "depth.cam_high")
    lines = canvas.readout_lines(0.0)  # decodes frame 0 (fetch on paint)
    assert lines[1] == "scale 0.010 to 10.000 m"
    rect = QRectF(0, 0, 640, 480)  # the 64x48 frame fills it: 10 px a pixel
    pixel = canvas.probe_pixel(rect, QPointF(325.0, 245.0))
    assert pixel == (32, 24)
    canvas.set_probe(pixel)
    # EmbodiChain's own reader decodes this pixel of frame 0 to 1.3627844 m.
    assert canvas.readout_lines(0.0)[-1] == "(32, 24): 1.363 m"
    assert canvas.probe_pixel(rect, QPointF(-5.0, 10.0)) is None
