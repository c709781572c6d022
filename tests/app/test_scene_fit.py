"""The scene view frames the robot and what is on its table, not the arena.

robosuite's Lift scene (``lift.hdf5``, drawn from its ``model_file``) stands
in an arena of 3 m walls; fitted to everything, the view showed the walls'
box with the robot hidden inside. The fit leaves out the large still world
(the walls) and the walls between the eye and the robot are not drawn.
"""

from __future__ import annotations

import numpy as np
import pytest
from data_paths import TEST_DATA
from PySide6.QtCore import QRectF

from app.canvas.geometry_canvas import GeometryCanvas
from app.canvas.qimage_arrays import qimage_to_rgb
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

WIDTH, HEIGHT = 480, 360


@pytest.fixture(scope="module")
def lift(qapp: object) -> RecordingModel:
    from fsr_core.simulators.mujoco.runtime import select_gl_backend

    select_gl_backend()  # before MuJoCo is first imported: offscreen EGL/OSMesa
    pytest.importorskip("mujoco")
    model = open_recording(episode_path(TEST_DATA / "hdf5" / "lift.hdf5", 1))
    if model.geometry is None:
        pytest.fail(f"no robot drawn: {model.report.get('notes')}")
    return model


def test_the_robot_is_seen_not_the_arena_walls(lift: RecordingModel) -> None:
    image = qimage_to_rgb(GeometryCanvas(lift).render(0.0, WIDTH, HEIGHT))
    rgb = image.astype(int)
    # robosuite draws the Panda's collision meshes green.
    green = (rgb[..., 1] > rgb[..., 0] + 40) & (rgb[..., 1] > rgb[..., 2] + 40)
    assert green.mean() > 0.004


def test_the_fit_frames_the_robot_large(lift: RecordingModel) -> None:
    canvas = GeometryCanvas(lift)
    links = np.array(
        [
            lift.channels[f"robot/{name}"].values[0, :3]
            for name in ("robot0_link0", "robot0_link4", "robot0_right_hand")
        ]
    )
    view = canvas.fitted_view
    pixels = view.pixels(QRectF(0, 0, WIDTH, HEIGHT), view.camera(links))
    assert ((pixels >= 0) & (pixels <= [WIDTH, HEIGHT])).all()
    assert np.ptp(pixels[:, 1]) > 0.15 * HEIGHT  # the arm, not a speck in a box


def _reddish(rgb: np.ndarray) -> np.ndarray:
    """Pixels of the cube's red (robosuite's red wood), not the floor's pink."""
    pixels = rgb.astype(int)
    return (pixels[..., 0] > 2 * pixels[..., 1] + 20) & (
        pixels[..., 0] > 2 * pixels[..., 2] + 20
    )


def test_the_cube_is_drawn_where_the_episode_states_put_it(
    lift: RecordingModel,
) -> None:
    # The cube's free joint in robosuite's states ([time, qpos, qvel], read
    # with h5py) at its qpos address in the MJCF MuJoCo compiles.
    import h5py

    from fsr_core.robots.robosuite_assets import resolve_robosuite_paths

    mujoco = pytest.importorskip("mujoco")
    with h5py.File(TEST_DATA / "hdf5" / "lift.hdf5", "r", locking=False) as handle:
        states = np.asarray(handle["data/demo_1/states"])
        model_file = handle["data/demo_1"].attrs["model_file"]
    text = model_file if isinstance(model_file, bytes) else str(model_file).encode()
    compiled = mujoco.MjModel.from_xml_string(
        resolve_robosuite_paths(text, "lift.hdf5").text.decode()
    )
    joint = mujoco.mj_name2id(compiled, mujoco.mjtObj.mjOBJ_JOINT, "cube_joint0")
    start = 1 + int(compiled.jnt_qposadr[joint])
    canvas = GeometryCanvas(lift)
    view = canvas.fitted_view
    rect = QRectF(0, 0, WIDTH, HEIGHT)
    image = qimage_to_rgb(canvas.render(0.0, WIDTH, HEIGHT))
    centre = view.pixels(rect, view.camera(states[:1, start : start + 3]))[0]
    column, row = (round(float(value)) for value in centre)

    # The red cube is drawn about its recorded centre, on the table...
    around = image[row - 2 : row + 3, column - 2 : column + 3]
    assert _reddish(around).mean() > 0.5
    # ...not at the model's rest place for it, under the table, where it was
    # drawn when only the arm's joints were posed.
    rest = compiled.qpos0[start - 1 : start + 2][None, :]
    column, row = (round(float(v)) for v in view.pixels(rect, view.camera(rest))[0])
    assert np.hypot(*(centre - (column, row))) > 5
    assert not _reddish(image[row - 2 : row + 3, column - 2 : column + 3]).any()
