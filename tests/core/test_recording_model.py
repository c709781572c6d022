"""The format-neutral recording model, built from FSR files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.recording import Integrity, MarkerKind
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import Scenario
from fsr_core.sources.fsr import load_fsr
from fsr_core.synthetic import SyntheticRun, write_synthetic


@pytest.fixture(scope="module")
def reset_take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    document = _take_documents()["06_reset_and_recalibration"]
    document["duration_s"] = 0.8
    document["resets"] = [{"after_s": 0.4, "q_rad": [-1.0, 0.9, 0.2]}]
    for camera in document["cameras"]:
        camera["width"], camera["height"] = 96, 72
        for change in camera.get("calibration_changes", []):
            change["time_s"] = 0.2
    path = tmp_path_factory.mktemp("model") / "reset.fsr"
    record_run(Scenario.from_json(document), path)
    return path


def test_generations_are_laid_end_to_end_on_one_play_time_axis(
    reset_take: Path,
) -> None:
    model = load_fsr(reset_take)
    first, second = model.timeline.segments
    assert (first.generation, second.generation) == (0, 1)
    assert second.start_play_s == pytest.approx(first.end_play_s)
    assert model.duration_s == pytest.approx(0.398 + 0.798)
    assert model.timeline.locate(0.5) == (1, pytest.approx(0.5 - first.end_play_s))
    times = model.channels["observations.arm"].times_s
    assert np.all(np.diff(times) >= 0)


def test_markers_show_resets_terminal_cut_calibration_and_events(
    reset_take: Path,
) -> None:
    model = load_fsr(reset_take)
    kinds = {marker.kind for marker in model.markers}
    assert {
        MarkerKind.GENERATION_RESET,
        MarkerKind.TERMINAL_CUT,
        MarkerKind.CALIBRATION,
        MarkerKind.EVENT,
    } <= kinds
    reset = next(m for m in model.markers if m.kind is MarkerKind.GENERATION_RESET)
    assert reset.play_time_s == pytest.approx(model.timeline.segments[1].start_play_s)


def test_planar_arm_recordings_give_kinematics_joint_angles_and_overlays(
    reset_take: Path,
) -> None:
    model = load_fsr(reset_take)
    assert model.kinematics is not None
    q = model.joint_angles_at(0.1)
    assert q is not None
    assert q.shape == (3,)
    tip = model.kinematics.joint_positions(q)[-1]
    observed = model.channels["observations.arm"]
    columns = observed.columns
    row = observed.value_at(0.1)
    assert tip == pytest.approx(row[[columns.index("tip_x"), columns.index("tip_y")]])
    overlay = model.overlay_at(0.1)
    assert overlay is not None
    assert overlay.kind == "reach"
    assert model.external_force_channel == "ext_force"


def test_camera_frames_come_with_the_calibration_of_their_epoch(
    reset_take: Path,
) -> None:
    model = load_fsr(reset_take)
    front = next(camera for camera in model.cameras if camera.name == "front")
    before = front.index_at(0.1)
    after = front.index_at(0.3)
    assert before is not None
    assert after is not None
    frame, calibration = front.fetch(before)
    assert (frame.width, frame.height) == (96, 72)
    assert calibration is not None
    assert calibration.epoch == 0
    _, zoomed = front.fetch(after)
    assert zoomed is not None
    assert zoomed.epoch == 1
    assert zoomed.profile.fx > calibration.profile.fx


def test_integrity_state_follows_profile_recovery_and_gaps(tmp_path: Path) -> None:
    strong = tmp_path / "strong.fsr"
    write_synthetic(strong, SyntheticRun(ticks=12, integrity="strong"))  # type: ignore[arg-type]
    assert load_fsr(strong).integrity is Integrity.DEGRADED  # it declares a gap
    cut = tmp_path / "cut.fsr"
    cut.write_bytes(strong.read_bytes()[: strong.stat().st_size * 2 // 3])
    recovered = load_fsr(cut)
    assert recovered.integrity is Integrity.RECOVERED
    assert "truncated at" in recovered.integrity_reason


def test_what_can_be_replayed_is_stated(reset_take: Path, tmp_path: Path) -> None:
    model = load_fsr(reset_take)
    assert model.can_rerender is None
    assert model.can_resimulate is None
    synthetic = tmp_path / "synthetic.fsr"
    write_synthetic(synthetic, SyntheticRun(ticks=8))
    assert load_fsr(synthetic).can_resimulate is not None


def test_tick_shown_is_the_tick_of_the_sample_in_force(reset_take: Path) -> None:
    model = load_fsr(reset_take)
    channel = model.channels["observations.arm"]
    frames = np.arange(0, int(model.duration_s * 30) + 1) / 30  # an export's times
    samples = channel.times_s
    edges = np.concatenate([samples, np.nextafter(samples, np.inf)])
    for play_time_s in np.concatenate([frames, edges]).tolist():
        generation, _ = model.timeline.locate(play_time_s)
        segment = model.timeline.segment(generation)
        first_index = channel.index_at(segment.start_play_s)
        expected = segment.first_tick + channel.index_at(play_time_s) - first_index
        assert model.timeline.tick_at(play_time_s) == (expected, generation), (
            play_time_s
        )
