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

from app.canvas import qimage_to_rgb
from app.canvas.geometry_canvas import GeometryCanvas
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
