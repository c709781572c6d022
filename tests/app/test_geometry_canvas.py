"""A recorded 3D scene (MuJoCo) in the scene view, the camera view and the export.

The recordings are made with MuJoCo (the test extra has it); viewing them
needs nothing but the recording.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from data_paths import MUJOCO_EXAMPLES as EXAMPLES
from PySide6.QtCore import QRectF
from pytestqt.qtbot import QtBot
from view_models import shown

from app.canvas.drawing import palette_rgb
from app.canvas.geometry_canvas import (
    GeometryCameraCanvas,
    GeometryCanvas,
    camera_canvas_for,
    scene_canvas_for,
)
from app.canvas.gl_solids import GL_VARIABLE
from app.canvas.qimage_arrays import qimage_to_rgb
from app.canvas.scene_canvas import SceneCanvas
from app.headless.export.frames import FrameSource
from app.window.state import PlaybackClock
from app.window.widgets.scene_view import SceneView
from fsr_core.calibration import project_points
from fsr_core.format.reader import FsrReader
from fsr_core.recording import PlanarKinematics, RecordingModel
from fsr_core.sources.fsr import load_fsr

pytestmark = pytest.mark.gui

WIDTH, HEIGHT = 480, 360


def _record(folder: Path, name: str, duration_s: float) -> Path:
    from fsr_core.simulators.mujoco.runtime import select_gl_backend

    select_gl_backend()  # before MuJoCo is first imported: offscreen EGL/OSMesa
    pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    scenario = load_mujoco_scenario(EXAMPLES / f"{name}.toml")
    cameras = tuple(
        dataclasses.replace(camera, width=160, height=120, codec="png")
        for camera in scenario.cameras
    )
    scenario = dataclasses.replace(scenario, duration_s=duration_s, cameras=cameras)
    path = folder / f"{name}.fsr"
    record_mujoco_run(scenario, path)
    return path


@pytest.fixture(scope="module")
def contacts(tmp_path_factory: pytest.TempPathFactory) -> RecordingModel:
    """Record the contact scene for 0.9 s: the ball falls onto the ramp."""
    return load_fsr(_record(tmp_path_factory.mktemp("mj_contacts"), "contacts", 0.9))


def _is_green(pixel: np.ndarray) -> bool:
    r, g, b = (int(v) for v in pixel)
    return g > r + 40 and g > b + 40


def test_a_recording_with_geometry_gets_the_geometry_canvases(
    contacts: RecordingModel,
) -> None:
    assert isinstance(scene_canvas_for(contacts), GeometryCanvas)
    assert isinstance(camera_canvas_for(contacts, "side"), GeometryCameraCanvas)
    planar = dataclasses.replace(
        contacts, kinematics=PlanarKinematics(lengths_m=np.array([0.3, 0.2]))
    )
    assert isinstance(scene_canvas_for(planar), SceneCanvas)


def test_scene_view_draws_the_geometry_at_the_clock_position(
    qtbot: QtBot, contacts: RecordingModel
) -> None:
    clock = PlaybackClock()
    view = SceneView(clock)
    qtbot.addWidget(view)
    view.resize(WIDTH, HEIGHT)
    view.set_model(contacts)
    view.show()
    geometry = contacts.geometry
    assert geometry is not None
    clock.set_frames(geometry.times_s)
    clock.seek(0.5)
    qtbot.waitUntil(lambda: view.painted_s == pytest.approx(0.5))
    assert isinstance(view.canvas, GeometryCanvas)


def test_bodies_are_drawn_where_their_recorded_pose_puts_them(
    contacts: RecordingModel,
) -> None:
    canvas = GeometryCanvas(contacts)
    geometry = contacts.geometry
    assert geometry is not None
    ball = geometry.bodies.index("ball")
    rect = QRectF(0, 0, WIDTH, HEIGHT)
    drawn = []
    for play_time_s in (0.0, 0.85):  # in the air, then landed on the ramp
        pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))
        x, y = canvas.body_positions(rect, play_time_s)[ball]
        assert _is_green(pixels[int(y), int(x)])
        drawn.append((x, y))
    assert np.hypot(*np.subtract(drawn[1], drawn[0])) > 10  # it fell on screen too


def test_camera_overlays_project_bodies_and_targets_through_the_frame_calibration(
    contacts: RecordingModel,
) -> None:
    canvas = camera_canvas_for(contacts, "side")
    overlays = canvas.overlay_pixels(0.5)
    geometry = contacts.geometry
    assert geometry is not None
    with FsrReader.open(contacts.path) as reader:
        frame = reader.seek_row("sensors.side.camera.rgb", generation=0, tick=250)
        assert frame is not None
        tick = reader.record("sensors.side.camera.rgb", frame).tick
        calibration = reader.calibration("side", generation=0, tick=tick)
        seq = reader.seek_row("scene.geometry.transforms", generation=0, tick=tick)
        assert seq is not None
        poses = reader.record("scene.geometry.transforms", seq).decoded
    bodies, _ = project_points(poses[1:, :3], calibration.profile, calibration.pose)
    goal, _ = project_points(
        np.array([geometry.targets[0].position_m]),
        calibration.profile,
        calibration.pose,
    )
    np.testing.assert_allclose(overlays["bodies"], bodies)
    np.testing.assert_allclose(overlays["targets"], goal)
    assert 0 < goal[0, 0] < 160
    assert 0 < goal[0, 1] < 120


def test_export_frame_draws_the_same_geometry_canvas(contacts: RecordingModel) -> None:
    source = FrameSource(contacts, shown(size=(WIDTH, HEIGHT), view="both"))
    frame = source.render(0.5)
    alone = qimage_to_rgb(GeometryCanvas(contacts).render(0.5, WIDTH, HEIGHT))
    assert frame.shape == (HEIGHT, 2 * WIDTH, 3)
    differs = np.abs(frame[:, :WIDTH].astype(int) - alone).max(axis=2) > 2
    assert differs.mean() < 0.005  # the same drawing, up to anti-aliasing
    assert frame[:, WIDTH:].std() > 10  # the camera frame beside it


def _silhouette(pixels: np.ndarray) -> np.ndarray:
    """Pixels away from the background and the floor's colours."""
    background = np.array(palette_rgb("geometry.background"), dtype=int)
    floor = np.array(palette_rgb("geometry.floor"), dtype=int)
    grid = np.array(palette_rgb("geometry.grid"), dtype=int)
    distance = np.min(
        [
            np.abs(pixels.astype(int) - colour).sum(axis=2)
            for colour in (background, floor, grid)
        ],
        axis=0,
    )
    return distance > 60


def test_opengl_and_qpainter_draw_the_same_bodies_in_the_same_places(
    contacts: RecordingModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gl = GeometryCanvas(contacts)
    monkeypatch.setenv(GL_VARIABLE, "0")
    without_gl = GeometryCanvas(contacts)

    gl_pixels = qimage_to_rgb(with_gl.render(0.85, WIDTH, HEIGHT))
    painted = qimage_to_rgb(without_gl.render(0.85, WIDTH, HEIGHT))

    assert with_gl.draws_with_opengl  # this machine has EGL (CI installs Mesa's)
    assert not without_gl.draws_with_opengl
    first, second = _silhouette(gl_pixels), _silhouette(painted)
    overlap = (first & second).sum() / max((first | second).sum(), 1)
    assert first.sum() > 500
    assert overlap > 0.9
