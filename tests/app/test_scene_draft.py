"""A scene of big meshes is drafted while it changes, then drawn whole.

A Franka of 103,000 triangles (pybullet_data's URDF posed by a ROS 2 MCAP):
a seek in the window paints a thinned copy at once and the whole meshes
once the picture stood still; screenshots and exports draw them whole.
"""

from __future__ import annotations

import numpy as np
import pytest
from data_paths import TEST_DATA
from pytestqt.qtbot import QtBot

from app.canvas.geometry_canvas import GeometryCanvas
from app.canvas.qimage_arrays import qimage_to_rgb
from app.window.state import PlaybackClock
from app.window.widgets.scene_view import WHOLE_AFTER_MS, SceneView
from fsr_core.robots import RobotRequest
from fsr_core.sources import OpenOptions, open_recording

pytestmark = pytest.mark.gui

MCAP = TEST_DATA / "mcap" / "panda_description.mcap"
URDF = TEST_DATA / "robots" / "franka_panda" / "panda.urdf"


@pytest.fixture(scope="module")
def franka() -> object:
    return open_recording(MCAP, options=OpenOptions(robot=RobotRequest(path=URDF)))


def test_a_seek_is_drafted_then_drawn_whole(qtbot: QtBot, franka: object) -> None:
    clock = PlaybackClock()
    view = SceneView(clock)
    qtbot.addWidget(view)
    view.resize(480, 360)
    clock.set_frames(franka.channels[franka.joints.positions].times_s)
    view.set_model(franka)
    view.show()
    canvas = view.canvas
    assert isinstance(canvas, GeometryCanvas)
    if not canvas.draws_with_opengl:
        pytest.skip("drafts are an OpenGL matter; this machine draws with QPainter")

    clock.seek(1.5)
    assert canvas.draft
    qtbot.waitUntil(lambda: view.painted_s == 1.5)
    qtbot.waitUntil(lambda: not canvas.draft, timeout=10 * WHOLE_AFTER_MS)


def test_a_draft_shows_the_same_robot_in_the_same_place(franka: object) -> None:
    whole = GeometryCanvas(franka)
    drafted = GeometryCanvas(franka)
    drafted.draft = True

    first = qimage_to_rgb(whole.render(1.5, 400, 300))
    second = qimage_to_rgb(drafted.render(1.5, 400, 300))

    background = first[1, 1].astype(int)
    robot = np.abs(first.astype(int) - background).sum(axis=2) > 60
    thinned = np.abs(second.astype(int) - background).sum(axis=2) > 60
    overlap = (robot & thinned).sum() / max((robot | thinned).sum(), 1)
    assert robot.sum() > 1000
    assert overlap > 0.8
    assert (first != second).any()  # thinned: not the same triangles
