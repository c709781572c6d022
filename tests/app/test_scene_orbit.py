"""Turning a recorded 3D scene with the mouse, as in any 3D tool.

Left-drag orbits, right-, middle- or shift-left-drag pans, the wheel zooms,
a double-click goes back to the fitted view. The orbit belongs to the
window's scene view: it stays while the same recording is drawn again and
goes back to the fitted view with another recording. The scene is the MuJoCo
contact scene (floor, ramp, boxes, ball, capsule) the geometry tests record
too, and a Genesis batch trajectory shipped in ``tests/data``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from data_paths import GENESIS_BATCH
from data_paths import MUJOCO_EXAMPLES as EXAMPLES
from pixel_colors import Pixels
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from pytestqt.qtbot import QtBot
from shown_widgets import activate_window, show_widget, turn_wheel
from view_models import shown

from app.canvas.geometry_canvas import (
    BACKGROUND,
    FLOOR_COLOR,
    GRID_COLOR,
    GeometryCanvas,
    SceneView3d,
)
from app.canvas.qimage_arrays import qimage_to_rgb
from app.canvas.scene_canvas import SceneCanvas
from app.headless.export.frames import FrameSource
from app.window.main_window import MainWindow
from app.window.state import PlaybackClock
from app.window.state.session import frame_times
from app.window.widgets.scene_view import (
    ORBIT_DEG_PER_PX,
    ZOOM_LIMIT,
    SceneView,
)
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

WIDTH, HEIGHT = 480, 360
AT_S = 0.5


# -- recordings and views ----------------------------------------------------


@pytest.fixture(scope="module")
def contacts_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the MuJoCo contact scene for 0.9 s (the ball lands on the ramp)."""
    from fsr_core.simulators.mujoco.runtime import select_gl_backend

    select_gl_backend()  # before MuJoCo is first imported: offscreen EGL/OSMesa
    pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    scenario = load_mujoco_scenario(EXAMPLES / "contacts.toml")
    cameras = tuple(
        dataclasses.replace(camera, width=160, height=120, codec="png")
        for camera in scenario.cameras
    )
    scenario = dataclasses.replace(scenario, duration_s=0.9, cameras=cameras)
    path = tmp_path_factory.mktemp("orbit") / "contacts.fsr"
    record_mujoco_run(scenario, path)
    return path


@pytest.fixture(scope="module")
def contacts(contacts_path: Path) -> RecordingModel:
    """Open the contact scene as the window opens it."""
    return open_recording(contacts_path)


@pytest.fixture
def view(qtbot: QtBot, contacts: RecordingModel) -> SceneView:
    """Show a scene view drawing the contact scene at 0.5 s."""
    return _shown_view(qtbot, contacts)


def _shown_view(qtbot: QtBot, model: RecordingModel) -> SceneView:
    clock = PlaybackClock()
    shown = show_widget(qtbot, SceneView(clock), (WIDTH, HEIGHT))
    shown.set_model(model)
    clock.set_frames(frame_times(model))
    clock.seek(AT_S)
    qtbot.waitUntil(lambda: shown.painted_s == clock.position_s)
    return shown


def _picture(widget: SceneView) -> Pixels:
    return qimage_to_rgb(widget.grab().toImage())


def _changed(before: Pixels, after: Pixels) -> float:
    """Return the share of pixels that differ by more than anti-aliasing."""
    return float((np.abs(before.astype(int) - after).max(axis=2) > 24).mean())


def _canvas(widget: SceneView) -> GeometryCanvas:
    canvas = widget.canvas
    assert isinstance(canvas, GeometryCanvas)
    return canvas


def _bodies_px(widget: SceneView) -> FloatArray:
    return _canvas(widget).body_positions(QRectF(widget.rect()), AT_S)


def _view_3d(widget: SceneView) -> SceneView3d:
    shown = widget.view_3d
    assert shown is not None
    return shown


def _drag(
    qtbot: QtBot,
    widget: SceneView,
    by: tuple[int, int],
    button: Qt.MouseButton = Qt.MouseButton.LeftButton,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Press in the middle of ``widget``, move ``by`` pixels in 4 steps, release."""
    start = QPoint(widget.width() // 2, widget.height() // 2)
    qtbot.mousePress(widget, button, modifier, start)
    for step in range(1, 5):
        qtbot.mouseMove(widget, start + QPoint(by[0] * step // 4, by[1] * step // 4))
    qtbot.mouseRelease(widget, button, modifier, start + QPoint(*by))


def _wheel(widget: SceneView, notches: int) -> None:
    """Turn the wheel over the middle of ``widget`` (positive: away from you)."""
    turn_wheel(widget, QPointF(widget.width() / 2, widget.height() / 2), notches)


def _pair_px(widget: SceneView, model: RecordingModel) -> float:
    """Pixels between the ball and the first box."""
    geometry = model.geometry
    assert geometry is not None
    pixels = _bodies_px(widget)
    ball, box = geometry.bodies.index("ball"), geometry.bodies.index("box_a")
    return float(np.hypot(*(pixels[ball] - pixels[box])))


# -- the mouse in the scene view ---------------------------------------------


def test_the_view_says_how_to_turn_it(view: SceneView) -> None:
    tip = view.toolTip()
    for word in ("orbit", "pan", "zoom", "reset"):
        assert word in tip
    assert "<" not in tip  # plain text


def test_a_left_drag_orbits_the_scene(
    qtbot: QtBot, view: SceneView, contacts: RecordingModel
) -> None:
    fitted = _view_3d(view)
    before, pixels_before = _picture(view), _bodies_px(view)

    _drag(qtbot, view, (60, 0))

    orbit = _view_3d(view)
    assert orbit.azimuth_deg == pytest.approx(
        fitted.azimuth_deg - 60 * ORBIT_DEG_PER_PX
    )
    assert orbit.elevation_deg == pytest.approx(fitted.elevation_deg)
    np.testing.assert_allclose(orbit.center_m, fitted.center_m)
    assert orbit.distance_m == pytest.approx(fitted.distance_m)
    assert _changed(before, _picture(view)) > 0.05
    # The scene turns with the hand, around the up axis through the centre:
    # what is nearer than the centre (seen from above) goes right, what is
    # farther goes left.
    geometry = contacts.geometry
    assert geometry is not None
    level = fitted.rotation[2] - (fitted.rotation[2] @ fitted.up) * fitted.up
    level /= np.linalg.norm(level)
    ahead = (geometry.poses_at(AT_S)[:, :3] - fitted.center_m) @ level
    moved = _bodies_px(view)[:, 0] - pixels_before[:, 0]
    clear = np.abs(ahead) > 0.02 * fitted.distance_m
    assert (ahead[clear] < 0).any()
    assert (ahead[clear] > 0).any()
    assert (np.sign(moved[clear]) == -np.sign(ahead[clear])).all()
    assert (np.abs(moved[clear]) > 5.0).all()


def test_a_drag_down_looks_from_higher_up(qtbot: QtBot, view: SceneView) -> None:
    fitted = _view_3d(view)
    _drag(qtbot, view, (0, 40))
    assert _view_3d(view).elevation_deg == pytest.approx(
        fitted.elevation_deg + 40 * ORBIT_DEG_PER_PX
    )
    _drag(qtbot, view, (0, -1000))  # far past straight up from below
    assert _view_3d(view).elevation_deg == pytest.approx(-89.0)


@pytest.mark.parametrize(
    ("button", "modifier"),
    [
        (Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier),
        (Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier),
        (Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier),
    ],
    ids=["right", "middle", "shift-left"],
)
def test_other_drags_pan_the_centre_along_with_the_hand(
    qtbot: QtBot,
    view: SceneView,
    button: Qt.MouseButton,
    modifier: Qt.KeyboardModifier,
) -> None:
    fitted = _view_3d(view)
    rect = QRectF(view.rect())
    before = _picture(view)

    _drag(qtbot, view, (48, -20), button, modifier)

    panned = _view_3d(view)
    np.testing.assert_allclose(panned.rotation, fitted.rotation)
    centre = panned.pixels(rect, panned.camera(fitted.center_m[None]))[0]
    np.testing.assert_allclose(
        centre, [rect.center().x() + 48, rect.center().y() - 20], atol=1e-6
    )
    assert _changed(before, _picture(view)) > 0.05


def test_the_wheel_zooms_toward_the_centre(
    view: SceneView, contacts: RecordingModel
) -> None:
    fitted = _view_3d(view)
    apart = _pair_px(view, contacts)

    _wheel(view, 2)

    nearer = _view_3d(view)
    assert nearer.distance_m < fitted.distance_m
    np.testing.assert_allclose(nearer.center_m, fitted.center_m)
    assert _pair_px(view, contacts) > 1.2 * apart

    _wheel(view, -4)
    assert _pair_px(view, contacts) < apart


def test_zooming_stops_at_a_sane_distance(view: SceneView) -> None:
    fitted = _view_3d(view).distance_m
    _wheel(view, 200)
    assert _view_3d(view).distance_m == pytest.approx(fitted / ZOOM_LIMIT)
    _picture(view)  # paints from close up
    _wheel(view, -400)
    assert _view_3d(view).distance_m == pytest.approx(fitted * ZOOM_LIMIT)
    _picture(view)


def test_a_double_click_returns_to_the_fitted_picture(
    qtbot: QtBot, view: SceneView
) -> None:
    fitted = _picture(view)
    _drag(qtbot, view, (-70, 25))
    _drag(qtbot, view, (30, 10), Qt.MouseButton.RightButton)
    _wheel(view, 3)
    assert _changed(fitted, _picture(view)) > 0.05

    qtbot.mouseDClick(view, Qt.MouseButton.LeftButton)

    assert _view_3d(view) is _canvas(view).fitted_view
    np.testing.assert_array_equal(_picture(view), fitted)


def test_the_orbit_stays_when_the_same_recording_is_drawn_again(
    qtbot: QtBot, view: SceneView, contacts: RecordingModel
) -> None:
    _drag(qtbot, view, (80, 30))
    orbit = _view_3d(view)
    turned = _picture(view)
    canvas = view.canvas

    view.set_options(shown(hidden=("targets",)))
    view.set_model(contacts)  # the same recording again

    assert view.canvas is not canvas  # new options: a new canvas
    assert _view_3d(view) is orbit
    assert not _canvas(view).options.shows("targets")
    again = _picture(view)
    assert _changed(turned, again) < 0.01  # the goal ring alone is gone


def test_another_recording_starts_from_its_fitted_view(
    qtbot: QtBot, view: SceneView, contacts: RecordingModel
) -> None:
    fitted = _picture(view)
    _drag(qtbot, view, (80, 30))

    view.set_model(open_recording(GENESIS_BATCH))
    assert _view_3d(view) is _canvas(view).fitted_view
    view.set_model(dataclasses.replace(contacts))  # opened once more

    assert _view_3d(view) is _canvas(view).fitted_view
    np.testing.assert_array_equal(_picture(view), fitted)


def test_the_export_keeps_the_fitted_view(
    qtbot: QtBot, view: SceneView, contacts: RecordingModel
) -> None:
    _drag(qtbot, view, (90, -40))
    source = FrameSource(contacts, shown(size=(WIDTH, HEIGHT), view="scene"))
    fitted = qimage_to_rgb(GeometryCanvas(contacts).render(AT_S, WIDTH, HEIGHT))
    np.testing.assert_array_equal(source.render(AT_S), fitted)


def test_the_planar_arm_ignores_the_mouse(
    qtbot: QtBot, short_takes: dict[str, Path]
) -> None:
    planar = _shown_view(qtbot, open_recording(short_takes["reach"]))
    assert isinstance(planar.canvas, SceneCanvas)
    assert planar.view_3d is None
    assert planar.toolTip() == ""
    before = _picture(planar)

    _drag(qtbot, planar, (80, 30))
    _drag(qtbot, planar, (40, 0), Qt.MouseButton.RightButton)
    _wheel(planar, 3)
    qtbot.mouseDClick(planar, Qt.MouseButton.LeftButton)

    np.testing.assert_array_equal(_picture(planar), before)


# -- in the window -------------------------------------------------------------


@pytest.fixture
def active_window(qtbot: QtBot, window: MainWindow) -> MainWindow:
    """Make the conftest's window the active one: the keys go to it."""
    return activate_window(qtbot, window)


def test_the_window_keeps_the_orbit_through_toggles_and_resets_it_per_file(
    qtbot: QtBot, active_window: MainWindow, contacts_path: Path
) -> None:
    window = active_window
    window.open_files([contacts_path, GENESIS_BATCH])
    scene = window.scene_view
    window.session.clock.seek(AT_S)
    _drag(qtbot, scene, (-60, 20))
    orbit = _view_3d(scene)
    assert orbit is not _canvas(scene).fitted_view

    window.menus.toggles["targets"].trigger()
    window.session.clock.seek(0.2)
    qtbot.waitUntil(lambda: scene.painted_s == pytest.approx(0.2))

    assert not _canvas(scene).options.shows("targets")
    assert _view_3d(scene) is orbit

    qtbot.keyClick(window, Qt.Key.Key_N)  # the Genesis batch
    assert window.session.playlist.current == 1
    assert _view_3d(scene) is _canvas(scene).fitted_view
    qtbot.keyClick(window, Qt.Key.Key_P)  # back to the contacts: opened again
    assert _view_3d(scene) is _canvas(scene).fitted_view
    assert _view_3d(scene).azimuth_deg == pytest.approx(-55.0)


# -- painting from anywhere --------------------------------------------------


def _floor_share(image: Pixels) -> float:
    return float((image == np.array(FLOOR_COLOR, dtype=np.uint8)).all(axis=2).mean())


def test_the_floor_seen_from_below_is_its_grid_alone(contacts: RecordingModel) -> None:
    canvas = GeometryCanvas(contacts)
    above = qimage_to_rgb(canvas.render(AT_S, WIDTH, HEIGHT))
    canvas.view = canvas.fitted_view.orbited(0.0, -50.0)
    below = qimage_to_rgb(canvas.render(AT_S, WIDTH, HEIGHT))

    assert _floor_share(above) > 0.3
    assert _floor_share(below) < 0.01  # a grid line's edge may match it
    near_grid = np.abs(below.astype(int) - GRID_COLOR).max(axis=2) < 12
    assert near_grid.sum() > 500  # the grid lines


def test_a_floor_reaching_behind_the_eye_is_still_drawn(
    contacts: RecordingModel,
) -> None:
    """Low over the floor and close: the floor runs past the eye, cut at it."""
    canvas = GeometryCanvas(contacts)
    low = canvas.fitted_view.orbited(0.0, -22.0).zoomed(4.0)
    floor = contacts.geometry.meshes[0]  # type: ignore[union-attr]
    assert floor.kind == "plane"
    assert (low.camera(floor.vertices_m)[:, 2] < 0).any()  # a corner behind
    canvas.view = low
    image = qimage_to_rgb(canvas.render(AT_S, WIDTH, HEIGHT))
    assert _floor_share(image) > 0.1  # the ramp covers much of it
    background = (image == np.array(BACKGROUND, dtype=np.uint8)).all(axis=2)
    assert background[: HEIGHT // 4].mean() > 0.9  # the sky over the horizon


def test_every_angle_and_distance_paints(contacts: RecordingModel) -> None:
    canvas = GeometryCanvas(contacts)
    fitted = canvas.fitted_view
    geometry = contacts.geometry
    assert geometry is not None
    ball = geometry.poses_at(AT_S)[geometry.bodies.index("ball"), :3]
    views = [
        fitted.orbited(azimuth, elevation).zoomed(zoom)
        for azimuth in range(0, 360, 45)
        for elevation in (-89.0, -40.0, -1.0, 0.0, 1.0, 40.0, 89.0)
        for zoom in (1.0 / ZOOM_LIMIT, 1.0, ZOOM_LIMIT)
    ]
    # The eye on the floor, in the ball, and at the ball's centre exactly.
    flat = fitted.orbited(0.0, -fitted.elevation_deg)
    views.append(flat.panned(0.0, -float(flat.eye_m[2])))
    to_ball = fitted.panned(*(fitted.rotation[:2] @ (ball - fitted.center_m)))
    views.append(to_ball.zoomed(fitted.distance_m / 0.01))
    views.append(dataclasses.replace(to_ball, eye_m=ball.copy()))
    for turned in views:
        canvas.view = turned
        image = qimage_to_rgb(canvas.render(AT_S, 96, 72))
        assert image.shape == (72, 96, 3)


# -- the view's own arithmetic -------------------------------------------------

RECT = QRectF(0, 0, WIDTH, HEIGHT)


@pytest.fixture
def looking() -> SceneView3d:
    """Look at a point 3 m away, the fitted view's way, z up."""
    return SceneView3d.looking([0.2, -0.1, 0.4], [0.0, 0.0, 1.0], -55.0, 24.0, 3.0)


def _assert_same(one: SceneView3d, other: SceneView3d) -> None:
    np.testing.assert_allclose(one.eye_m, other.eye_m, atol=1e-12)
    np.testing.assert_allclose(one.rotation, other.rotation, atol=1e-12)
    np.testing.assert_allclose(one.center_m, other.center_m, atol=1e-12)


def test_orbiting_all_the_way_round_comes_back(looking: SceneView3d) -> None:
    _assert_same(looking.orbited(360.0, 0.0), looking)
    _assert_same(looking.orbited(-360.0, 0.0), looking)
    quarters = looking
    for _ in range(4):
        quarters = quarters.orbited(90.0, 0.0)
    _assert_same(quarters, looking)
    half = looking.orbited(180.0, 0.0)
    np.testing.assert_allclose(half.rotation[0], -looking.rotation[0], atol=1e-12)


def test_orbiting_keeps_the_centre_the_distance_and_a_level_camera(
    looking: SceneView3d,
) -> None:
    for turned in (looking.orbited(37.0, 11.0), looking.orbited(-150.0, -60.0)):
        np.testing.assert_allclose(turned.center_m, looking.center_m)
        assert turned.distance_m == pytest.approx(looking.distance_m)
        np.testing.assert_allclose(
            turned.rotation @ turned.rotation.T, np.eye(3), atol=1e-12
        )
        assert turned.rotation[0] @ turned.up == pytest.approx(0.0, abs=1e-12)
        centre = turned.pixels(RECT, turned.camera(turned.center_m[None]))[0]
        np.testing.assert_allclose(centre, [WIDTH / 2, HEIGHT / 2])


def test_the_elevation_stops_short_of_straight_up_and_down(
    looking: SceneView3d,
) -> None:
    assert looking.orbited(0.0, 30.0).elevation_deg == pytest.approx(54.0)
    top = looking.orbited(0.0, 500.0)
    assert top.elevation_deg == pytest.approx(89.0)
    assert top.orbited(0.0, 1.0).elevation_deg == pytest.approx(89.0)
    assert looking.orbited(0.0, -500.0).elevation_deg == pytest.approx(-89.0)
    assert top.azimuth_deg == pytest.approx(looking.azimuth_deg)
    assert np.isfinite(top.rotation).all()
    with pytest.raises(ValueError, match="finite"):
        looking.orbited(float("nan"), 0.0)


def test_zooming_keeps_the_centre_and_the_direction(looking: SceneView3d) -> None:
    nearer = looking.zoomed(2.0)
    np.testing.assert_array_equal(nearer.center_m, looking.center_m)
    np.testing.assert_array_equal(nearer.rotation, looking.rotation)
    assert nearer.distance_m == pytest.approx(1.5)
    assert looking.zoomed(0.5).distance_m == pytest.approx(6.0)
    centre = nearer.pixels(RECT, nearer.camera(nearer.center_m[None]))[0]
    np.testing.assert_allclose(centre, [WIDTH / 2, HEIGHT / 2])
    aside = looking.center_m + 0.3 * looking.rotation[0]  # right of the centre
    x_far = looking.pixels(RECT, looking.camera(aside[None]))[0, 0]
    x_near = nearer.pixels(RECT, nearer.camera(aside[None]))[0, 0]
    assert x_near - WIDTH / 2 == pytest.approx(2.0 * (x_far - WIDTH / 2))
    for bad in (0.0, -1.0, float("inf")):
        with pytest.raises(ValueError, match="zoom"):
            looking.zoomed(bad)


def test_panning_moves_the_eye_and_the_centre_together(looking: SceneView3d) -> None:
    moved = looking.panned(0.5, -0.25)
    shift = 0.5 * looking.rotation[0] - 0.25 * looking.rotation[1]
    np.testing.assert_allclose(moved.eye_m, looking.eye_m + shift)
    np.testing.assert_allclose(moved.center_m, looking.center_m + shift)
    np.testing.assert_array_equal(moved.rotation, looking.rotation)
    assert moved.azimuth_deg == pytest.approx(looking.azimuth_deg)
    assert moved.elevation_deg == pytest.approx(looking.elevation_deg)


def test_the_fitted_view_is_the_old_fixed_one(contacts: RecordingModel) -> None:
    fitted = GeometryCanvas(contacts).fitted_view
    assert fitted.azimuth_deg == pytest.approx(-55.0)
    assert fitted.elevation_deg == pytest.approx(24.0)
    np.testing.assert_allclose(fitted.up, [0.0, 0.0, 1.0])
