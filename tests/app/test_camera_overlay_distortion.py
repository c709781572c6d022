"""Overlays on a distorted camera image bend as the lens bends straight lines.

A recording built in memory: one black 320x240 frame seen through a strongly
barrel-distorted ``plumb_bob`` calibration. A long straight 3D segment, drawn
as a task path (dashed) or as a body's x axis (solid), must be painted along
the curve ``project_points`` gives for its points, not along the chord
between its projected ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from calibrated_files import calibration_epoch
from view_models import shown

from app.canvas.camera_canvas import CameraCanvas
from app.canvas.geometry_canvas import GeometryCameraCanvas, camera_canvas_for
from app.canvas.qimage_arrays import qimage_to_rgb
from fsr_core.arrays import BoolArray, FloatArray
from fsr_core.calibration import CalibrationProfile, look_at, project_points
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    RecordingModel,
    SceneGeometry,
    SceneTarget,
    TaskOverlay,
    Timeline,
)

pytestmark = pytest.mark.gui

IMAGE_W, IMAGE_H = 320, 240
SHOWN_W, SHOWN_H = 640, 480  # the canvas size: 2 display pixels per image pixel
SCALE = SHOWN_W / IMAGE_W
PROFILE = CalibrationProfile(
    width=IMAGE_W,
    height=IMAGE_H,
    fx=230.0,
    fy=230.0,
    cx=159.5,
    cy=119.5,
    distortion_model="plumb_bob",
    distortion=(-0.38, 0.16, 0.0, 0.0, -0.03),  # folds back at r = 1.54
)
#: Looks along world +y at the y = 0 plane; world z is up in the image.
POSE = look_at([0.0, -1.5, 0.0], [0.0, 0.0, 0.0])
CALIBRATION = calibration_epoch("cam", PROFILE, POSE)


def _model(**fields: Any) -> RecordingModel:
    frame = RGBFrame(np.zeros((IMAGE_H, IMAGE_W, 3), dtype=np.uint8))
    track = CameraTrack("cam", np.array([0.0]), lambda _: (frame, CALIBRATION))
    return RecordingModel(
        path=Path("x.fsr"),
        source="test",
        title="x",
        timeline=Timeline(()),
        channels={},
        cameras=(track,),
        **fields,
    )


def _shown(points_world: FloatArray) -> FloatArray:
    """Display pixels of world points (OpenCV pixel centres, then 2x)."""
    pixels, in_front = project_points(points_world, PROFILE, POSE)
    assert in_front.all()
    shown: FloatArray = (pixels + 0.5) * SCALE
    return shown


def _along(start: FloatArray, end: FloatArray, count: int = 4001) -> FloatArray:
    t = np.linspace(0.0, 1.0, count)[:, np.newaxis]
    points: FloatArray = start + t * (end - start)
    return points


def _nearest_px(mask: BoolArray, points: FloatArray) -> FloatArray:
    """Distance from each point to the nearest set pixel of ``mask`` (its centre)."""
    rows, columns = np.nonzero(mask)
    centres = np.column_stack([columns + 0.5, rows + 0.5])
    distances: FloatArray = np.sqrt(
        ((points[:, np.newaxis, :] - centres[np.newaxis]) ** 2).sum(axis=2)
    ).min(axis=1)
    return distances


def _off_curve_px(mask: BoolArray, curve: FloatArray) -> float:
    """Largest distance from a set pixel of ``mask`` to the sampled ``curve``."""
    rows, columns = np.nonzero(mask)
    assert len(rows) > 300
    centres = np.column_stack([columns + 0.5, rows + 0.5])
    return float(
        np.sqrt(((centres[:, np.newaxis] - curve[np.newaxis]) ** 2).sum(axis=2))
        .min(axis=1)
        .max()
    )


def _bend(start: FloatArray, end: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Return the 3D midpoint's display pixel and the chord's midpoint."""
    middle = _shown(0.5 * (start + end)[np.newaxis])[0]
    ends = _shown(np.stack([start, end]))
    chord = ends.mean(axis=0)
    assert np.hypot(*(middle - chord)) > 20.0  # the lens bends this segment a lot
    return middle, chord


def test_a_task_path_follows_the_distorted_curve() -> None:
    """The path is one straight segment in the plane: ``(x, y)`` is world (x, 0, y)."""
    overlay = TaskOverlay(kind="curve", curve_xy=((-1.2, 0.6), (1.2, 0.6)))
    canvas = CameraCanvas(
        _model(overlays={0: overlay}), "cam", shown(hidden=("calibration",))
    )
    start, end = np.array([-1.2, 0.0, 0.6]), np.array([1.2, 0.0, 0.6])
    middle, chord = _bend(start, end)

    pixels = qimage_to_rgb(canvas.render(0.0, SHOWN_W, SHOWN_H))

    painted = pixels.max(axis=2) > 60
    # Every painted pixel is on the curve (the dashed pen is 4.8 px wide) ...
    assert _off_curve_px(painted, _shown(_along(start, end, 1001))) < 4.5
    # ... the dashes reach the 3D midpoint's pixel (a gap is 14.4 px long) ...
    assert _nearest_px(painted, middle[np.newaxis])[0] < 8.0
    # ... and nothing is painted on the chord's midpoint.
    assert _nearest_px(painted, chord[np.newaxis])[0] > 10.0


def test_a_segment_past_the_lens_is_not_folded_back_into_the_image() -> None:
    """Beyond r = 1.54 the polynomial turns back; those pieces are left out."""
    far = (-1.2, 0.6), (12.0, 0.6)  # r = 8 at the far end: folded far away
    overlay = TaskOverlay(kind="curve", curve_xy=far)
    canvas = CameraCanvas(
        _model(overlays={0: overlay}), "cam", shown(hidden=("calibration",))
    )
    start, end = np.array([-1.2, 0.0, 0.6]), np.array([12.0, 0.0, 0.6])
    points = _along(start, end, 8001)
    camera = POSE.world_to_camera(points)
    valid = np.hypot(camera[:, 0], camera[:, 1]) / camera[:, 2] <= 1.54
    curve = _shown(points[valid])

    pixels = qimage_to_rgb(canvas.render(0.0, SHOWN_W, SHOWN_H))

    assert _off_curve_px(pixels.max(axis=2) > 60, curve) < 4.5


def test_a_body_axis_follows_the_distorted_curve() -> None:
    """A body's x axis (solid, red), long enough to bend: 6% of a 40 m scene."""
    body = [-1.2, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0]  # axes along the world's
    world = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    geometry = SceneGeometry(
        bodies=("world", "box"),
        meshes=(),
        times_s=np.array([0.0]),
        poses=np.array([[world, body]]),
        targets=(
            SceneTarget("west", (-20.0, 0.0, 0.0), 0.1),
            SceneTarget("east", (20.0, 0.0, 0.0), 0.1),
        ),
    )
    options = shown(hidden=("targets", "calibration"))
    canvas = camera_canvas_for(_model(geometry=geometry), "cam", options)
    assert isinstance(canvas, GeometryCameraCanvas)
    start = np.array(body[:3])
    end = start + np.array([2.4, 0.0, 0.0])
    middle, chord = _bend(start, end)

    pixels = qimage_to_rgb(canvas.render(0.0, SHOWN_W, SHOWN_H)).astype(int)

    red = (pixels[..., 0] > 150) & (pixels[..., 1] < 110) & (pixels[..., 2] < 110)
    assert _nearest_px(red, middle[np.newaxis])[0] < 2.0
    assert _nearest_px(red, chord[np.newaxis])[0] > 10.0
    curve = _shown(_along(start, end, 201))
    assert (_nearest_px(red, curve[5:-5]) < 2.0).all()  # the whole axis is drawn
