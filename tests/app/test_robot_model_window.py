"""File → Load Robot Model…: the window draws the recording with a chosen robot.

The choice reopens the playing recording with the robot (its meshes in the
scene, its link poses as channels) and is remembered by the recording's
``robot_type`` and dataset: the next window opening a recording of that
robot draws it by itself. A robot that cannot pose a recording leaves it
open without the robot, with a note, never a failed file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import TEST_DATA
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, new_main_window, open_and_wait

from fsr_core.sources import episode_address

pytestmark = pytest.mark.gui

_URDF = TEST_DATA / "robots" / "franka_panda" / "panda.urdf"
_EPISODE = episode_address(TEST_DATA / "lerobot" / "panda_v30", 0)


def _choose(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(
        QFileDialog,
        "getOpenFileName",
        staticmethod(lambda *args, **kw: (str(path), "")),
    )


def test_a_chosen_robot_is_drawn_and_remembered_for_its_robot_type(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ini_settings(tmp_path)
    window = new_main_window(settings)
    qtbot.addWidget(window)
    open_and_wait(qtbot, window, _EPISODE)
    assert "robot" not in window.session.model.metadata

    _choose(monkeypatch, _URDF)
    window.load_robot_model()
    qtbot.waitUntil(lambda: "robot" in window.session.model.metadata)

    model = window.session.model
    assert model.geometry is not None
    assert len(model.geometry.meshes) >= 9
    assert "robot/panda_hand" in model.channels
    assert window.scene_view.isVisible() or not window.isVisible()
    settings.sync()

    again = new_main_window(ini_settings(tmp_path))
    qtbot.addWidget(again)
    open_and_wait(qtbot, again, _EPISODE)
    qtbot.waitUntil(lambda: "robot" in again.session.model.metadata)
    assert again.session.open_options.robot is not None
    assert again.session.open_options.robot.path == _URDF.resolve()


def test_a_robot_that_matches_nothing_leaves_the_recording_open_with_a_note(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = new_main_window(ini_settings(tmp_path))
    qtbot.addWidget(window)
    open_and_wait(qtbot, window, TEST_DATA / "skelarm" / "reach.sklog.npz")

    _choose(monkeypatch, _URDF)
    window.load_robot_model()
    qtbot.waitUntil(lambda: window.session.open_options.robot is not None)
    qtbot.waitUntil(lambda: bool(window.session.model.report.get("notes")))

    model = window.session.model
    assert "robot" not in model.metadata
    assert any("robot not drawn" in note for note in model.report["notes"])
