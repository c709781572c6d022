"""The camera canvas: a recorded frame, the task projected through its calibration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from demo_recordings import record_demo_take
from pixel_colors import near
from view_models import shown as view_with

from app.canvas.camera_canvas import (
    PLACEHOLDER_COLOR,
    CameraCanvas,
)
from app.canvas.drawing import palette_rgb
from app.canvas.qimage_arrays import qimage_to_rgb
from fsr_core.recording import CameraTrack, RecordingModel
from fsr_core.simulators.planar_arm.render import ACTIVE_TARGET_COLOR, TIP_COLOR
from fsr_core.sources import open_recording

TIP_MARKER_COLOR = palette_rgb("camera.tip")

pytestmark = pytest.mark.gui

WIDTH, HEIGHT = 160, 120
ZOOM_S = 0.2


def _small_png_cameras(document: dict[str, Any]) -> None:
    """Make every camera WIDTH x HEIGHT, lossless, its zoom at ZOOM_S."""
    for camera in document["cameras"]:
        camera["width"], camera["height"] = WIDTH, HEIGHT
        camera["codec"] = "png"
        for change in camera.get("calibration_changes", []):
            change["time_s"] = ZOOM_S


@pytest.fixture(scope="module")
def take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.6 s of the reset take: 160x120 png cameras, zoom at 0.2 s, reset at 0.35 s."""
    return record_demo_take(
        tmp_path_factory.mktemp("camera") / "reset.fsr",
        "06_reset_and_recalibration",
        _small_png_cameras,
        duration_s=0.6,
        resets=[{"after_s": 0.35, "q_rad": [-1.0, 0.9, 0.2]}],
        pushes=[],
    )


@pytest.fixture
def model(take: Path, qapp: Any) -> RecordingModel:
    return open_recording(take)


def _track(model: RecordingModel, name: str) -> CameraTrack:
    return next(camera for camera in model.cameras if camera.name == name)


def _tip_frames(model: RecordingModel, camera: str) -> list[tuple[float, Any, Any]]:
    """Frames whose drawn tip is unoccluded: (time, calibration, tip centroid).

    The recorder paints the active target over the tip once the arm has
    reached it, so frames with fewer than 8 tip-coloured pixels are left out.
    """
    track = _track(model, camera)
    found = []
    for index, play_time_s in enumerate(track.times_s):
        frame, calibration = track.fetch(index)
        rows, columns = np.nonzero(near(frame.pixels, TIP_COLOR, 30))
        if len(rows) >= 8:
            centroid = np.array([columns.mean(), rows.mean()])
            found.append((float(play_time_s), calibration, centroid))
    return found


def _sample_times(model: RecordingModel) -> list[float]:
    """Front frames with a visible tip: epoch 0, generation 1 and its epoch 1."""
    frames = _tip_frames(model, "front")
    return [t for t, _, _ in frames[1::3]] + [frames[-1][0]]


@pytest.mark.parametrize("camera", ["front", "oblique"])
def test_projected_tip_lands_on_the_tip_drawn_in_the_frame(
    model: RecordingModel, camera: str
) -> None:
    canvas = CameraCanvas(model, camera)
    frames = _tip_frames(model, camera)
    assert len(frames) >= 8
    for play_time_s, _, drawn in frames:
        tip = canvas.overlay_pixels(play_time_s)["tip"]
        assert tip.shape == (1, 2)
        assert np.hypot(*(tip[0] - drawn)) <= 1.0, (play_time_s, tip[0], drawn)
    epochs = {
        (calibration.generation, calibration.epoch) for _, calibration, _ in frames
    }
    if camera == "front":
        assert {(0, 0), (1, 0), (1, 1)} <= epochs


def test_projected_target_lands_on_the_target_drawn_after_the_zoom(
    model: RecordingModel,
) -> None:
    """In generation 0 after the zoom the tip hides behind the target: check that."""
    canvas = CameraCanvas(model, "front")
    track = _track(model, "front")
    index = track.index_at(ZOOM_S + 0.05)
    assert index is not None
    frame, calibration = track.fetch(index)
    assert calibration is not None
    assert (calibration.generation, calibration.epoch) == (0, 1)
    rows, columns = np.nonzero(near(frame.pixels, ACTIVE_TARGET_COLOR, 30))
    assert len(rows) >= 8
    drawn = np.array([columns.mean(), rows.mean()])
    target = canvas.overlay_pixels(ZOOM_S + 0.05)["targets"][0]
    assert np.hypot(*(target - drawn)) <= 1.0, (target, drawn)


def test_rendered_canvas_marks_the_projected_tip(model: RecordingModel) -> None:
    canvas = CameraCanvas(model, "front", view_with(hidden=("calibration",)))
    for play_time_s in _sample_times(model):
        tip = canvas.overlay_pixels(play_time_s)["tip"][0]
        pixels = qimage_to_rgb(canvas.render(play_time_s, WIDTH, HEIGHT))
        x, y = np.rint(tip).astype(int)
        window = pixels[y - 1 : y + 2, x - 1 : x + 2]
        assert near(window, TIP_MARKER_COLOR, 40).any(), play_time_s


def test_overlays_are_scaled_with_the_letterboxed_image(
    model: RecordingModel,
) -> None:
    canvas = CameraCanvas(model, "front", view_with(hidden=("calibration",)))
    play_time_s = _sample_times(model)[2]
    tip = canvas.overlay_pixels(play_time_s)["tip"][0]
    pixels = qimage_to_rgb(canvas.render(play_time_s, 4 * WIDTH + 200, 4 * HEIGHT))
    shown = np.array([100.0, 0.0]) + (tip + 0.5) * 4.0  # 4x, centred horizontally
    x, y = np.rint(shown).astype(int)
    assert near(pixels[y - 2 : y + 3, x - 2 : x + 3], TIP_MARKER_COLOR, 40).any()
    assert not near(pixels[:, :90], TIP_MARKER_COLOR, 40).any()  # letterbox bars


def test_targets_project_inside_the_image(model: RecordingModel) -> None:
    canvas = CameraCanvas(model, "front")
    overlays = canvas.overlay_pixels(0.1)
    targets = overlays["targets"]
    assert targets.shape == (1, 2)
    assert 0 <= targets[0, 0] < WIDTH
    assert 0 <= targets[0, 1] < HEIGHT
    assert overlays["coms"].shape == (3, 2)


def test_readout_shows_the_calibration_epoch_change(model: RecordingModel) -> None:
    canvas = CameraCanvas(model, "front")
    before = canvas.readout_lines(ZOOM_S - 0.04)
    after = canvas.readout_lines(ZOOM_S + 0.05)
    assert before[0].startswith("front")
    assert before[1] == "epoch 0, generation 0"
    assert after[1] == "epoch 1, generation 0"
    assert before[2] != after[2]
    assert before[2].startswith("fx ")
    digest = after[-1].removeprefix("digest ")
    assert before[-1] != after[-1]
    assert len(digest) == 12
    int(digest, 16)  # hex characters only
    assert after[3].startswith("t (")
    assert after[3].endswith(") m")
    second = model.timeline.segments[1].start_play_s
    assert canvas.readout_lines(second + 0.1)[1] == "epoch 0, generation 1"
    box = (slice(0, 40), slice(0, 100))
    image_before = qimage_to_rgb(canvas.render(ZOOM_S - 0.04, WIDTH, HEIGHT))[box]
    image_after = qimage_to_rgb(canvas.render(ZOOM_S + 0.05, WIDTH, HEIGHT))[box]
    assert not np.array_equal(image_before, image_after)


def test_unknown_camera_is_refused_with_the_known_names(
    model: RecordingModel,
) -> None:
    with pytest.raises(ValueError, match=r"'front'.*'oblique'"):
        CameraCanvas(model, "side")


def test_before_the_first_frame_a_placeholder_is_drawn(model: RecordingModel) -> None:
    canvas = CameraCanvas(model, "front")
    first = float(_track(model, "front").times_s[0])
    assert canvas.readout_lines(first - 1.0) == ["front", "no frame yet"]
    assert all(len(v) == 0 for v in canvas.overlay_pixels(first - 1.0).values())
    pixels = qimage_to_rgb(canvas.render(first - 1.0, WIDTH, HEIGHT))
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    assert near(pixels, PLACEHOLDER_COLOR, 4).mean() > 0.8


def test_the_decoded_frame_is_cached_per_index(model: RecordingModel) -> None:
    track = _track(model, "front")
    calls: list[int] = []

    def fetch(index: int) -> Any:
        calls.append(index)
        return track.fetch(index)

    counted = CameraTrack(track.name, track.times_s, fetch)
    counting = RecordingModel(
        path=model.path,
        source=model.source,
        title=model.title,
        timeline=model.timeline,
        channels=model.channels,
        cameras=(counted,),
        kinematics=model.kinematics,
        joints=model.joints,
        overlays=model.overlays,
    )
    canvas = CameraCanvas(counting, "front")
    t = float(track.times_s[3])
    canvas.render(t, WIDTH, HEIGHT)
    canvas.render(t + 0.001, WIDTH, HEIGHT)
    canvas.overlay_pixels(t)
    assert calls == [3]
    canvas.render(float(track.times_s[4]), WIDTH, HEIGHT)
    assert calls == [3, 4]


def test_zoomed_frames_render_larger_at_any_output_size(
    model: RecordingModel, tmp_path: Path
) -> None:
    """Before/after the zoom and in generation 1, rendered at 640x480 and saved."""
    canvas = CameraCanvas(model, "front", view_with(show_com=True))
    second = model.timeline.segments[1].start_play_s
    shots = {"before": 0.1, "after": ZOOM_S + 0.05, "after_gen1": second + 0.2}
    for label, t in shots.items():
        path = tmp_path / f"camera_{label}.png"
        assert canvas.render(t, 640, 480).save(str(path))
        assert path.stat().st_size > 0
    assert canvas.readout_lines(0.1)[1].startswith("epoch 0")
    assert canvas.readout_lines(ZOOM_S + 0.05)[1].startswith("epoch 1")
