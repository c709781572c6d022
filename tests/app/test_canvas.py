"""The scene canvas and readout panel: what a user sees in a frame."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from data_paths import SKELARM_REACH
from demo_recordings import record_demo_take
from pixel_colors import Pixels, near
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from view_models import shown as view_with

from app.canvas.drawing import palette_rgb
from app.canvas.panel import ReadoutPanel
from app.canvas.qimage_arrays import qimage_to_rgb
from app.canvas.scene_canvas import TIP_COLOR, SceneCanvas
from app.canvas.scene_marks import ACTIVE_TARGET_COLOR, FORCE_COLOR
from fsr_core.recording import RecordingModel
from fsr_core.simulators.planar_arm.recorder import ExternalPush
from fsr_core.sources import open_recording
from tests.app.conftest import record_short_take

COM_COLOR = palette_rgb("scene.com")
REFERENCE_COLOR = palette_rgb("scene.reference")

pytestmark = pytest.mark.gui

WIDTH, HEIGHT = 640, 480
RECT = QRectF(0.0, 0.0, WIDTH, HEIGHT)


@pytest.fixture(scope="module")
def takes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Short demo takes: a reach, a push at 0.2-0.35 s, a target switch at 0.25 s."""
    folder = tmp_path_factory.mktemp("takes")
    push = ExternalPush(0.2, 0.35, (-18.0, 6.0))
    return {
        "reach": record_short_take(folder, "01_reach"),
        "pushed": record_short_take(folder, "05_pushed", pushes=(push,)),
        "multi": record_short_take(folder, "02_multi_target", switches=[[0.25, 1]]),
    }


@pytest.fixture
def reach_model(takes: dict[str, Path], qapp: Any) -> RecordingModel:
    return open_recording(takes["reach"])


def _at(pixels: Pixels, xy_px: npt.NDArray[np.float64]) -> Pixels:
    x, y = np.rint(xy_px).astype(int)
    pixel: Pixels = pixels[y, x]
    return pixel


def _tip(model: RecordingModel, play_time_s: float) -> npt.NDArray[np.float64]:
    assert model.kinematics is not None
    q = model.joint_angles_at(play_time_s)
    assert q is not None
    tip: npt.NDArray[np.float64] = model.kinematics.joint_positions(q)[-1]
    return tip


def test_scene_renders_an_rgb_image_of_the_asked_size(
    reach_model: RecordingModel,
) -> None:
    image = SceneCanvas(reach_model).render(0.2, WIDTH, HEIGHT)

    assert image.format() == QImage.Format.Format_RGB888
    assert (image.width(), image.height()) == (WIDTH, HEIGHT)


def test_tip_is_drawn_where_the_kinematics_put_it(
    reach_model: RecordingModel,
) -> None:
    canvas = SceneCanvas(reach_model)
    for play_time_s in (0.0, 0.3, 0.49):
        pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))
        tip_px = canvas.to_pixel(RECT, _tip(reach_model, play_time_s))

        assert near(_at(pixels, tip_px), TIP_COLOR)


def test_view_is_fitted_once_so_the_base_never_moves(
    reach_model: RecordingModel,
) -> None:
    canvas = SceneCanvas(reach_model)
    assert reach_model.kinematics is not None
    base = np.asarray(reach_model.kinematics.base_m)
    reach = reach_model.kinematics.reach_m
    corners = base + reach * np.array([[-1.0, -1.0], [1.0, 1.0]])
    pixels = canvas.to_pixel(RECT, corners)

    assert (pixels >= 0.0).all()
    assert (pixels[:, 0] <= WIDTH).all()
    assert (pixels[:, 1] <= HEIGHT).all()
    assert pixels[0, 1] > pixels[1, 1]  # y points up


def test_centres_of_mass_appear_only_when_asked(
    reach_model: RecordingModel,
) -> None:
    assert reach_model.kinematics is not None
    q = reach_model.joint_angles_at(0.3)
    assert q is not None
    coms = reach_model.kinematics.com_positions(q)
    assert coms is not None
    hidden = SceneCanvas(reach_model)
    shown = SceneCanvas(reach_model, view_with(show_com=True))
    without = qimage_to_rgb(hidden.render(0.3, WIDTH, HEIGHT))
    with_com = qimage_to_rgb(shown.render(0.3, WIDTH, HEIGHT))

    for com_px in shown.to_pixel(RECT, coms):
        assert near(_at(with_com, com_px), COM_COLOR)
        assert not near(_at(without, com_px), COM_COLOR)


def test_force_arrow_is_drawn_only_while_the_tip_is_pushed(
    takes: dict[str, Path], qapp: Any
) -> None:
    model = open_recording(takes["pushed"])
    canvas = SceneCanvas(model)

    def arrow_pixels(play_time_s: float) -> int:
        pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))
        return int(near(pixels, FORCE_COLOR).sum())

    assert arrow_pixels(0.1) == 0
    assert arrow_pixels(0.3) > 100
    assert arrow_pixels(0.45) == 0
    hidden = SceneCanvas(model, view_with(hidden=("force",)))
    assert not near(qimage_to_rgb(hidden.render(0.3, WIDTH, HEIGHT)), FORCE_COLOR).any()


def test_peak_force_spans_forty_percent_of_the_reach(
    takes: dict[str, Path], qapp: Any
) -> None:
    model = open_recording(takes["pushed"])
    canvas = SceneCanvas(model)
    assert model.kinematics is not None
    pixels = qimage_to_rgb(canvas.render(0.3, WIDTH, HEIGHT))
    ys, xs = np.nonzero(near(pixels, FORCE_COLOR))
    tip_px = canvas.to_pixel(RECT, _tip(model, 0.3))
    longest_px = float(np.hypot(xs - tip_px[0], ys - tip_px[1]).max())
    reach_px = model.kinematics.reach_m * float(
        np.diff(canvas.to_pixel(RECT, np.array([[0.0, 0.0], [1.0, 0.0]]))[:, 0])[0]
    )

    assert longest_px == pytest.approx(0.4 * reach_px, rel=0.1)


def test_active_target_emphasis_follows_the_recorded_switch(
    takes: dict[str, Path], qapp: Any
) -> None:
    model = open_recording(takes["multi"])
    overlay = model.overlay_at(0.0)
    assert overlay is not None
    assert model.active_target_channel is not None
    active = model.channels[model.active_target_channel]
    assert active.value_at(0.1)[0] == 0
    assert active.value_at(0.4)[0] == 1
    canvas = SceneCanvas(model)
    targets_px = canvas.to_pixel(RECT, np.asarray(overlay.targets_xy))

    def emphasized(play_time_s: float) -> list[bool]:
        pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))
        return [bool(near(_at(pixels, xy), ACTIVE_TARGET_COLOR)) for xy in targets_px]

    assert emphasized(0.1) == [True, False, False]
    assert emphasized(0.4) == [False, True, False]
    hidden = SceneCanvas(model, view_with(hidden=("targets",)))
    pixels = qimage_to_rgb(hidden.render(0.4, WIDTH, HEIGHT))
    assert not near(_at(pixels, targets_px[1]), ACTIVE_TARGET_COLOR)


def test_skelarm_targets_are_drawn_in_their_own_colours(qapp: Any) -> None:
    from PySide6.QtGui import QColor

    model = open_recording(SKELARM_REACH.with_name("multi_target_switch.sklog.npz"))
    overlay = model.overlay_at(0.0)
    assert overlay is not None
    canvas = SceneCanvas(model)
    targets_px = canvas.to_pixel(RECT, np.asarray(overlay.targets_xy))
    pixels = qimage_to_rgb(canvas.render(0.0, WIDTH, HEIGHT))  # A (purple) active

    purple = QColor("purple")
    assert near(
        _at(pixels, targets_px[0]), (purple.red(), purple.green(), purple.blue())
    )
    assert not near(_at(pixels, targets_px[0]), ACTIVE_TARGET_COLOR)


def test_skelarm_log_renders_its_arm(qapp: Any) -> None:
    model = open_recording(SKELARM_REACH)
    canvas = SceneCanvas(model, view_with(show_com=True))
    play_time_s = 0.5 * model.duration_s
    pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))

    assert near(_at(pixels, canvas.to_pixel(RECT, _tip(model, play_time_s))), TIP_COLOR)
    panel = qimage_to_rgb(ReadoutPanel(model).render(play_time_s, HEIGHT))
    assert panel.shape == (HEIGHT, ReadoutPanel.WIDTH_PX, 3)
    assert panel.std() > 1.0


def test_a_base_link_is_drawn_grey_from_the_mount_to_the_first_joint(
    qapp: Any,
) -> None:
    from app.canvas.scene_canvas import BASE_LINK_COLOR

    model = open_recording(SKELARM_REACH)
    assert model.kinematics is not None
    mounted = dataclasses.replace(
        model, kinematics=dataclasses.replace(model.kinematics, base_m=(0.5, 0.0))
    )
    flush = SceneCanvas(mounted)
    pixels = qimage_to_rgb(flush.render(0.0, WIDTH, HEIGHT))
    middle_px = flush.to_pixel(RECT, np.array([0.25, 0.0]))
    assert not near(_at(pixels, middle_px), BASE_LINK_COLOR)

    offset = dataclasses.replace(
        mounted,
        kinematics=dataclasses.replace(mounted.kinematics, mount_m=(0.0, 0.0)),
    )
    canvas = SceneCanvas(offset)
    pixels = qimage_to_rgb(canvas.render(0.0, WIDTH, HEIGHT))
    for x_m in (0.15, 0.25, 0.35):
        point_px = canvas.to_pixel(RECT, np.array([x_m, 0.0]))
        assert near(_at(pixels, point_px), BASE_LINK_COLOR), x_m
    mount_px = canvas.to_pixel(RECT, np.array([0.0, 0.0]))
    assert _at(pixels, mount_px + np.array([0.0, 3.5])).max() < 90  # the dark base disc


def test_recording_without_kinematics_says_so(reach_model: RecordingModel) -> None:
    model = dataclasses.replace(reach_model, kinematics=None, joints=None)
    pixels = qimage_to_rgb(SceneCanvas(model).render(0.2, WIDTH, HEIGHT))
    middle = pixels[HEIGHT // 2 - 20 : HEIGHT // 2 + 20, WIDTH // 4 : 3 * WIDTH // 4]

    assert (middle.astype(int).sum(axis=-1) < 500).any()  # the message's text
    panel = ReadoutPanel(model).render(0.2, HEIGHT)
    assert panel.width() == ReadoutPanel.WIDTH_PX


def test_panel_is_fixed_width_and_its_time_label_changes(
    reach_model: RecordingModel,
) -> None:
    panel = ReadoutPanel(reach_model)
    early = panel.render(0.1, 600)
    late = panel.render(0.4, 600)

    assert early.format() == QImage.Format.Format_RGB888
    assert (early.width(), early.height()) == (ReadoutPanel.WIDTH_PX, 600)
    early_px, late_px = qimage_to_rgb(early), qimage_to_rgb(late)
    time_rows = slice(30, 70)  # below the title, where "t = X.XX s" is
    title_rows = slice(0, 28)
    assert not np.array_equal(early_px[time_rows], late_px[time_rows])
    assert np.array_equal(early_px[title_rows], late_px[title_rows])


def test_scene_and_panel_paint_side_by_side_into_one_image(
    reach_model: RecordingModel,
) -> None:
    width = WIDTH + ReadoutPanel.WIDTH_PX
    image = QImage(width, HEIGHT, QImage.Format.Format_RGB888)
    painter = QPainter(image)
    SceneCanvas(reach_model).paint(painter, RECT, 0.2)
    ReadoutPanel(reach_model).paint(
        painter, QRectF(WIDTH, 0.0, ReadoutPanel.WIDTH_PX, HEIGHT), 0.2
    )
    painter.end()
    pixels = qimage_to_rgb(image)

    scene = qimage_to_rgb(SceneCanvas(reach_model).render(0.2, WIDTH, HEIGHT))
    side = qimage_to_rgb(ReadoutPanel(reach_model).render(0.2, HEIGHT))
    # Antialiasing rounds a little differently in a 24-bit target.
    assert np.abs(pixels[:, :WIDTH].astype(int) - scene).max() <= 2
    assert np.abs(pixels[:, WIDTH:].astype(int) - side).max() <= 2


@pytest.mark.parametrize("width", [1, 7, 13])
def test_qimage_to_rgb_drops_row_padding(width: int, qapp: Any) -> None:
    rng = np.random.default_rng(width)
    expected = rng.integers(0, 256, size=(5, width, 3), dtype=np.uint8)
    image = QImage(width, 5, QImage.Format.Format_RGB888)
    assert image.bytesPerLine() > 3 * width or width % 4 == 0
    for y in range(5):
        for x in range(width):
            r, g, b = (int(v) for v in expected[y, x])
            image.setPixel(x, y, (0xFF << 24) | (r << 16) | (g << 8) | b)

    assert np.array_equal(qimage_to_rgb(image), expected)
    argb = image.convertToFormat(QImage.Format.Format_ARGB32)
    assert np.array_equal(qimage_to_rgb(argb), expected)


@pytest.fixture(scope="module")
def two_task_model(tmp_path_factory: pytest.TempPathFactory, qapp: Any) -> Any:
    """Return a reference-tracking take reset at 0.25 s, its second path moved."""
    path = record_demo_take(
        tmp_path_factory.mktemp("reset") / "reset.fsr",
        "04_reference_tracking",
        duration_s=0.5,
        cameras=[],
        resets=[{"after_s": 0.25}],
    )
    model = open_recording(path)
    first, second = sorted(model.overlays)
    shifted = tuple((x + 0.15, y - 0.1) for x, y in model.overlays[first].reference_xy)
    model.overlays[second] = dataclasses.replace(
        model.overlays[first], reference_xy=shifted
    )
    return model


def test_a_reused_scene_redraws_its_backdrop_for_a_new_task_and_size(
    two_task_model: RecordingModel,
) -> None:
    reused = SceneCanvas(two_task_model)
    first_s, second_s = 0.1, 0.4
    assert two_task_model.overlay_at(first_s) is not two_task_model.overlay_at(second_s)
    shots = [
        (first_s, WIDTH, HEIGHT),
        (second_s, WIDTH, HEIGHT),
        (second_s, 400, 300),
        (first_s, 400, 300),
    ]
    pictures = []
    for play_time_s, width, height in shots:
        seen = qimage_to_rgb(reused.render(play_time_s, width, height))
        fresh = qimage_to_rgb(
            SceneCanvas(two_task_model).render(play_time_s, width, height)
        )
        assert np.array_equal(seen, fresh), (play_time_s, width, height)
        pictures.append(seen)
    # The moved reference path shows: the two tasks' backdrops differ.
    assert not np.array_equal(pictures[0], pictures[1])


def test_the_backdrop_copy_matches_drawing_it_directly(
    two_task_model: RecordingModel,
) -> None:
    def paint(image: QImage, scale: float) -> Pixels:
        image.fill(0)
        painter = QPainter(image)
        painter.scale(scale, scale)
        SceneCanvas(two_task_model).paint(painter, RECT, 0.4)
        painter.end()
        return qimage_to_rgb(image)

    # A device pixel ratio of 2 is copied from the cached backdrop; the same
    # scale set on the painter of a plain image is drawn directly.
    hidpi = QImage(2 * WIDTH, 2 * HEIGHT, QImage.Format.Format_ARGB32_Premultiplied)
    hidpi.setDevicePixelRatio(2.0)
    plain = QImage(2 * WIDTH, 2 * HEIGHT, QImage.Format.Format_ARGB32_Premultiplied)
    copied, drawn = paint(hidpi, 1.0), paint(plain, 2.0)
    assert np.array_equal(copied, drawn)
    assert (near(copied, REFERENCE_COLOR, 30)).sum() > 100  # the reference path
