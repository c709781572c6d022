"""A depth camera reads out metres under the cursor and says its colour scale."""

from __future__ import annotations

import pytest
from data_paths import TEST_DATA
from PySide6.QtCore import QPointF, QRectF

from app.canvas.geometry_canvas import camera_canvas_for
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

ROOT = TEST_DATA / "embodichain" / "complete"


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


MANISKILL = TEST_DATA / "maniskill"


def test_maniskill_depth_reads_out_metres_beside_its_calibration(qapp: object) -> None:
    """ManiSkill stores int16 millimetres; the readout and the scale say metres."""
    del qapp
    model = open_recording(episode_path(MANISKILL / "pickcube_rgbd.h5", 1))
    canvas = camera_canvas_for(model, "obs/sensor_data/base_camera/depth")
    at = 5 / 20.0  # frame 5 at PickCube's 20 Hz
    canvas.readout_lines(at)  # decodes frame 5 (fetch on paint)
    rect = QRectF(0, 0, 640, 640)  # the 64x64 frame fills it: 10 px a pixel
    pixel = canvas.probe_pixel(rect, QPointF(325.0, 325.0))
    assert pixel == (32, 32)
    canvas.set_probe(pixel)
    lines = canvas.readout_lines(at)
    assert lines[0] == "obs/sensor_data/base_camera/depth  frame 5"
    # The recorded intrinsic_cv and the camera at (0.3, 0, 0.6), as
    # extrinsic_cv and cam2world_gl place it.
    assert lines[2] == "fx 32.0  fy 32.0  cx 32.0  cy 32.0"
    assert lines[3] == "t (0.300, 0.000, 0.600) m"
    # The first frame's nearest and farthest valid depth (286 and 9158 mm).
    assert lines[-2] == "scale 0.286 to 9.158 m"
    # h5py reads 403 (millimetres) at this pixel of frame 5 (the truth file).
    assert lines[-1] == "(32, 32): 0.403 m"
