"""Every registered overlay's toggle changes the picture where it draws, and only there.

For each overlay of the registry and each recording kind (a planar take with
a camera, a pushed one, one tracking a reference, and a MuJoCo 3D scene with
a camera), a still is exported with the scene and the camera side by side
(``--view both``), once with the overlay on and once off: the scene half
changes exactly when the overlay paints on that recording's scene, the
camera half exactly when it paints on its camera. The window's scene and
camera views, toggled through the View menu, change the same way; and the
command line's flag (``--show-com``, ``--hide-targets``, …) reaches the
exported camera view too.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from data_paths import MUJOCO_EXAMPLES
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, new_main_window, open_and_wait
from view_models import export_frame_as

from app.canvas.overlay import Overlay, Surface
from app.canvas.overlay_registry import overlays
from app.canvas.qimage_arrays import qimage_to_rgb
from app.canvas.view_model import ViewModel
from app.cli import main
from fsr_core.recording import RecordingModel
from fsr_core.simulators.planar_arm.recorder import ExternalPush
from fsr_core.sources import open_recording
from tests.app.conftest import record_short_take

pytestmark = pytest.mark.gui

AT_S = 0.3
SIZE = (200, 160)


def _record_contacts(folder: Path) -> Path:
    from fsr_core.simulators.mujoco.runtime import select_gl_backend

    select_gl_backend()
    pytest.importorskip("mujoco")
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    scenario = load_mujoco_scenario(MUJOCO_EXAMPLES / "contacts.toml")
    cameras = tuple(
        dataclasses.replace(camera, width=160, height=120, codec="png")
        for camera in scenario.cameras
    )
    # Long enough for the pusher to move (from 0.8 s): its path is the tip trail.
    scenario = dataclasses.replace(scenario, duration_s=1.2, cameras=cameras)
    path = folder / "contacts.fsr"
    record_mujoco_run(scenario, path)
    return path


@pytest.fixture(scope="module")
def takes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Record takes that between them give every overlay something to draw."""
    folder = tmp_path_factory.mktemp("overlay_takes")
    push = ExternalPush(0.1, 0.45, (-18.0, 6.0))
    return {
        "pushed": record_short_take(folder, "05_pushed", camera=True, pushes=(push,)),
        "reference": record_short_take(folder, "04_reference_tracking", camera=True),
        "contacts": _record_contacts(folder),
    }


def _surfaces(model: RecordingModel) -> tuple[Surface, Surface]:
    if model.kinematics is not None:
        return Surface.PLANE, Surface.CAMERA
    return Surface.SPACE, Surface.SPACE_CAMERA


def _expected(overlay: Overlay, model: RecordingModel) -> tuple[bool, bool]:
    """Whether toggling ``overlay`` should change the scene and the camera."""
    scene, camera = _surfaces(model)
    applies = overlay.applies(model)
    return (
        applies and bool(overlay.paints_on(scene)),
        applies and bool(overlay.paints_on(camera)),
    )


def _changed(first: np.ndarray, second: np.ndarray) -> bool:
    return bool((np.abs(first.astype(int) - second.astype(int)) > 8).any())


def _png(path: Path) -> np.ndarray:
    return qimage_to_rgb(QImage(str(path)))


CASES = [
    (take, overlay.name)
    for take in ("pushed", "reference", "contacts")
    for overlay in overlays()
]


@pytest.mark.parametrize(("take", "name"), CASES)
def test_an_exported_still_changes_where_the_overlay_draws(
    qapp: object, takes: dict[str, Path], tmp_path: Path, take: str, name: str
) -> None:
    model = open_recording(takes[take])
    overlay = next(item for item in overlays() if item.name == name)
    stills = {}
    for shown in (True, False):
        out = tmp_path / f"{shown}.png"
        chosen = ViewModel().with_overlay(name, shown).overlays
        export_frame_as(model, AT_S, out, view="both", size=SIZE, overlays=chosen)
        stills[shown] = _png(out)
    width = SIZE[0]
    on, off = stills[True], stills[False]
    changed = (
        _changed(on[:, :width], off[:, :width]),
        _changed(on[:, width:], off[:, width:]),
    )

    assert changed == _expected(overlay, model)


def _grab_views(qtbot: QtBot, window: object) -> tuple[np.ndarray, np.ndarray]:
    views = window.camera_area.views  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: all(view.settled for view in views))
    scene = qimage_to_rgb(window.scene_view.grab().toImage())  # type: ignore[attr-defined]
    camera = qimage_to_rgb(views[0].grab().toImage())
    return scene, camera


@pytest.mark.parametrize("take", ["pushed", "reference", "contacts"])
def test_the_window_views_change_where_each_menu_toggle_draws(
    qtbot: QtBot, takes: dict[str, Path], tmp_path: Path, take: str
) -> None:
    window = new_main_window(ini_settings(tmp_path))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, takes[take])
    window.session.clock.seek(AT_S)
    model = window.session.model
    assert model is not None
    for overlay in overlays():
        action = window.menus.toggles[overlay.name]
        action.setChecked(True)
        on = _grab_views(qtbot, window)
        action.setChecked(False)
        off = _grab_views(qtbot, window)
        changed = (_changed(on[0], off[0]), _changed(on[1], off[1]))

        assert changed == _expected(overlay, model), overlay.name
    window.close()


@pytest.mark.parametrize("name", [overlay.name for overlay in overlays()])
def test_each_flag_reaches_the_exported_camera_view(
    qapp: object, takes: dict[str, Path], tmp_path: Path, name: str
) -> None:
    overlay = next(item for item in overlays() if item.name == name)
    model = open_recording(takes["pushed"])
    plain, flagged = tmp_path / "plain.png", tmp_path / "flagged.png"
    common = ["--view", "camera", "--size", "160x120"]
    source = str(takes["pushed"])

    assert main([source, "--export-frame", str(AT_S), str(plain), *common]) == 0
    assert (
        main([source, "--export-frame", str(AT_S), str(flagged), *common, overlay.flag])
        == 0
    )

    expected = _expected(overlay, model)[1]
    assert _changed(_png(plain), _png(flagged)) == expected
