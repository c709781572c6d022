"""In a batched run's 3D scene, the chosen environment is drawn in full, the rest faded.

The Genesis batch file holds three environments side by side (``env0`` ..
``env2``), each a box, a sphere and a floor. Choosing ``env1`` (View →
Environment, or the export's ``--environment``) keeps its colours and fades
the other two toward the background; no choice, or a name the file lacks,
draws all three in full.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from data_paths import GENESIS_BATCH
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from app.canvas.geometry_canvas import BACKGROUND, GeometryCanvas
from app.canvas.view_model import ViewModel
from app.window.main_window import MainWindow
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

BATCH = GENESIS_BATCH
SIZE = (800, 500)
AT_S = 0.25


@pytest.fixture(scope="module")
def batch() -> RecordingModel:
    return open_recording(BATCH)


def _picture(model: RecordingModel, group: str) -> tuple[np.ndarray, np.ndarray]:
    """Paint the scene with ``group`` active: its pixels and each body's position."""
    canvas = GeometryCanvas(model, ViewModel(environment=group))
    image = QImage(*SIZE, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    rect = QRectF(0, 0, *SIZE)
    canvas.paint(painter, rect, AT_S)
    painter.end()
    bits = image.constBits()
    rgb = np.frombuffer(bits, np.uint8).reshape(SIZE[1], SIZE[0], 4)[..., 2::-1]
    return rgb.astype(float), canvas.body_positions(rect, AT_S)


def _distance_to_background(rgb: np.ndarray, xy: np.ndarray) -> float:
    """Return how far from the background the 5x5 pixels around ``xy`` are."""
    x, y = (round(float(v)) for v in xy)
    patch = rgb[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3)
    return float(np.abs(patch - np.asarray(BACKGROUND)).sum(axis=1).mean())


def test_a_batched_scene_names_its_environments(batch: RecordingModel) -> None:
    assert batch.geometry is not None
    assert batch.geometry.groups == ("env0", "env1", "env2")


def test_the_active_environment_keeps_its_colours_and_the_others_fade(
    qapp: object, batch: RecordingModel
) -> None:
    assert batch.geometry is not None
    groups = batch.geometry.body_groups
    plain, where = _picture(batch, "")
    chosen, _ = _picture(batch, "env1")
    # Each environment's box body (its second link), seen in both pictures.
    boxes = {group: groups.index(group) + 1 for group in ("env0", "env1", "env2")}

    for group, body in boxes.items():
        before = _distance_to_background(plain, where[body])
        after = _distance_to_background(chosen, where[body])
        assert before > 40  # a coloured box is there
        if group == "env1":
            assert after == pytest.approx(before)
        else:
            assert after < 0.5 * before  # faded toward the background


def test_no_choice_or_an_unknown_one_draws_everything_in_full(
    qapp: object, batch: RecordingModel
) -> None:
    plain, _ = _picture(batch, "")
    unknown, _ = _picture(batch, "env9")

    np.testing.assert_array_equal(unknown, plain)


def test_the_window_offers_the_environments_and_draws_the_chosen_one(
    window: MainWindow,
) -> None:
    menu = window.menus.environment_menu
    window.open_files([BATCH])
    assert window.session.model is not None

    labels = [action.text() for action in menu.actions()]
    assert labels == ["All", "env0", "env1", "env2"]
    assert menu.isEnabled()
    assert menu.actions()[0].isChecked()

    menu.actions()[2].trigger()

    assert window.session.options.options.environment == "env1"
    canvas = window.scene_view.canvas
    assert isinstance(canvas, GeometryCanvas)
    assert canvas.options.environment == "env1"
    assert [action.isChecked() for action in menu.actions()] == [
        False,
        False,
        True,
        False,
    ]


def test_a_recording_without_environments_disables_the_menu(
    window: MainWindow,
) -> None:
    window.open_files([BATCH.with_name("v4_box_exact.gstraj")])
    assert window.session.model is not None

    assert not window.menus.environment_menu.isEnabled()
    assert [a.text() for a in window.menus.environment_menu.actions()] == ["All"]


def test_the_export_draws_the_environment_the_option_names(
    qapp: object, tmp_path: Path, batch: RecordingModel
) -> None:
    from PIL import Image

    from app.cli import main

    shots = {}
    for name in ("", "env2"):
        output = tmp_path / f"frame_{name or 'all'}.png"
        extra = ["--environment", name] if name else []
        frame = ["--export-frame", str(AT_S), str(output)]
        code = main([str(BATCH), *frame, "--size", "800x500", *extra])
        assert code == 0
        shots[name] = np.asarray(Image.open(output).convert("RGB"), dtype=float)
    _, where = _picture(batch, "")
    assert batch.geometry is not None
    env0_box = batch.geometry.body_groups.index("env0") + 1
    env2_box = batch.geometry.body_groups.index("env2") + 1

    assert shots["env2"].shape == shots[""].shape == (500, 800, 3)
    faded = _distance_to_background(shots["env2"], where[env0_box])
    assert faded < 0.5 * _distance_to_background(shots[""], where[env0_box])
    kept = _distance_to_background(shots["env2"], where[env2_box])
    assert kept == pytest.approx(_distance_to_background(shots[""], where[env2_box]))


def test_the_exported_panel_reads_the_environment_the_option_names(
    qapp: object, tmp_path: Path
) -> None:
    from PIL import Image

    from app.canvas.panel import ReadoutPanel
    from app.cli import main

    panels = {}
    for name in ("env0", "env2"):
        output = tmp_path / f"panel_{name}.png"
        frame = ["--export-frame", str(AT_S), str(output), "--panel"]
        code = main([str(BATCH), *frame, "--size", "400x400", "--environment", name])
        assert code == 0
        image = np.asarray(Image.open(output).convert("RGB"), dtype=int)
        panels[name] = image[:, -ReadoutPanel.WIDTH_PX :]

    model = open_recording(BATCH)
    lines = {
        name: ReadoutPanel(model, environment=name).text_lines(AT_S)
        for name in ("env0", "env2")
    }
    assert any("env2" in line for line in lines["env2"])
    assert lines["env0"] != lines["env2"]
    assert (np.abs(panels["env0"] - panels["env2"]).sum(axis=2) > 60).sum() > 20
