"""Render mode applies the recorded render state and re-renders the cameras."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from replay_sources import RENDER, rewrite

from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import CancelToken, ReplayOutcome, ReplayResult

CAMERA = "sensors.front.camera.rgb"


@pytest.fixture(scope="module")
def rendered(
    camera_recording: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, ReplayResult, list[tuple[int, int]]]:
    """Re-render the camera recording once; keep the progress it reported."""
    output = tmp_path_factory.mktemp("render") / "rendered.fsr"
    steps: list[tuple[int, int]] = []
    result = replay_file(
        camera_recording,
        output,
        RENDER,
        progress=lambda done, total: steps.append((done, total)),
    )
    return output, result, steps


def test_render_re_renders_every_camera_frame_as_recorded(
    camera_recording: Path, rendered: tuple[Path, ReplayResult, list]
) -> None:
    output, result, _ = rendered

    with FsrReader.open(camera_recording) as source, FsrReader.open(output) as new:
        recorded = [
            (r.generation, r.tick, r.payload) for r in source.iter_records(CAMERA)
        ]
        again = [(r.generation, r.tick, r.payload) for r in new.iter_records(CAMERA)]
        states = new.streams["render.state"].record_count

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert len(again) == len(recorded) == 9  # 0.3 s at 30 Hz
    # The same deterministic renderer on the same state: the same pixels.
    assert again == recorded
    assert result.steps == states


def test_render_draws_frames_the_source_never_stored(
    camera_recording: Path, tmp_path: Path
) -> None:
    camera_kinds = {
        StreamKind.CAMERA_RGB,
        StreamKind.CAMERA_INTRINSICS,
        StreamKind.CAMERA_TRANSLATION,
        StreamKind.CAMERA_QUATERNION,
    }
    source = rewrite(
        camera_recording,
        tmp_path / "no_pictures.fsr",
        streams=lambda specs: [s for s in specs if s.kind not in camera_kinds],
    )

    replay_file(source, tmp_path / "drawn.fsr", RENDER)

    with (
        FsrReader.open(camera_recording) as recorded,
        FsrReader.open(tmp_path / "drawn.fsr") as drawn,
    ):
        expected = [r.payload for r in recorded.iter_records(CAMERA)]
        assert [r.payload for r in drawn.iter_records(CAMERA)] == expected


def test_render_footer_names_the_mode_and_the_source_digest(
    camera_recording: Path, rendered: tuple[Path, ReplayResult, list]
) -> None:
    output, result, _ = rendered
    digest = hashlib.sha256(camera_recording.read_bytes()).hexdigest()

    with FsrReader.open(output) as reader:
        provenance = reader.footer.provenance
        completion = reader.footer.completion
        replay = reader.metadata["replay"]

    assert provenance["mode"] == "render"
    assert provenance["source"] == {"file": camera_recording.name, "sha256": digest}
    assert provenance["simulator"] == "planar_arm"
    assert replay["mode"] == "render"
    assert replay["source"]["sha256"] == digest
    assert result.source_sha256 == digest
    assert completion["status"] == "succeeded"
    assert completion["reason_code"] == "REPLAY_COMPLETED"


def test_render_runs_no_control_session_and_no_physics(
    rendered: tuple[Path, ReplayResult, list],
) -> None:
    output, _, _ = rendered

    with FsrReader.open(output) as reader:
        kinds = {info.spec.kind for info in reader.streams.values()}

    assert StreamKind.CONTROL_AUTHORED not in kinds
    assert StreamKind.CONTROL_APPLIED not in kinds
    assert StreamKind.NUMERIC not in kinds  # no observations: nothing was stepped
    assert StreamKind.CAMERA_RGB in kinds


def test_render_reports_progress_up_to_every_frame(
    rendered: tuple[Path, ReplayResult, list],
) -> None:
    _, result, steps = rendered

    done = [step for step, _ in steps]
    assert done == sorted(done)
    assert steps[-1] == (result.steps, result.steps)


def test_cancelled_render_publishes_nothing(
    camera_recording: Path, tmp_path: Path
) -> None:
    cancel = CancelToken()
    cancel.cancel()

    result = replay_file(camera_recording, tmp_path / "out.fsr", RENDER, cancel=cancel)

    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.reason_code == "REPLAY_CANCELLED"
    assert result.output is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("rate_hz", [20.0, 45.0])
def test_cameras_off_the_render_state_rate_re_render_exactly(
    rate_hz: float, tmp_path: Path
) -> None:
    from replay_sources import TINY_CAMERA, record, scenario_document

    camera = dict(TINY_CAMERA, rate_hz=rate_hz)  # render state stays at 30 Hz
    source = record(tmp_path / "source.fsr", scenario_document(cameras=[camera]))
    output = tmp_path / "rendered.fsr"

    result = replay_file(source, output, RENDER)

    assert result.outcome is ReplayOutcome.SUCCEEDED
    with FsrReader.open(source) as recorded, FsrReader.open(output) as again:
        before = [(r.tick, r.payload) for r in recorded.iter_records(CAMERA)]
        after = [(r.tick, r.payload) for r in again.iter_records(CAMERA)]
    assert len(before) == round(0.3 * rate_hz)
    assert after == before
