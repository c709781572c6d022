"""Re-rendering and re-simulating MuJoCo recordings through the replay engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from occupied_targets import refused_target

from fsr_core.compare import compare_recordings
from fsr_core.errors import ReplayError, TargetExistsError
from fsr_core.format.reader import FsrReader
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import (
    CancelToken,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    Timing,
)
from fsr_core.simulators.mujoco.scenario import MujocoScenario
from fsr_core.sources.fsr import load_fsr

pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs


@pytest.fixture(scope="module")
def reach_rendered(
    reach_recording: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    output = tmp_path_factory.mktemp("mujoco_render") / "rendered.fsr"
    result = replay_file(reach_recording, output, ReplayOptions(ReplayMode.RENDER))
    assert result.outcome is ReplayOutcome.SUCCEEDED
    return output


def _frames(path: Path, stream: str) -> list[tuple[int, Any]]:
    with FsrReader.open(path) as reader:
        return [
            (record.tick, reader.media_frame(record).decoded.pixels)
            for record in reader.iter_records(stream)
        ]


def test_render_footer_names_the_mode_and_source_digest(
    reach_recording: Path, reach_rendered: Path
) -> None:
    with FsrReader.open(reach_recording) as source:
        digest = source.file_sha256
    with FsrReader.open(reach_rendered) as reader:
        provenance = reader.footer.provenance if reader.footer else {}
        events = [r.decoded for r in reader.iter_records("run.lifecycle")]
    assert provenance["mode"] == "render"
    assert provenance["source_sha256"] == digest
    assert events[-1]["reason_code"] == "REPLAY_COMPLETED"


@pytest.mark.parametrize("camera", ["overview", "top"])
def test_render_reproduces_every_camera_frame(
    reach_recording: Path, reach_rendered: Path, camera: str
) -> None:
    stream = f"sensors.{camera}.camera.rgb"
    source = _frames(reach_recording, stream)
    rendered = _frames(reach_rendered, stream)
    assert [tick for tick, _ in rendered] == [tick for tick, _ in source]
    for (_, expected), (_, actual) in zip(source, rendered, strict=True):
        np.testing.assert_array_equal(actual, expected)


def test_render_keeps_the_recorded_state_and_calibration(
    reach_recording: Path, reach_rendered: Path
) -> None:
    with (
        FsrReader.open(reach_recording) as source,
        FsrReader.open(reach_rendered) as rendered,
    ):
        _, _, recorded = source.read_series("scene.geometry.transforms")
        _, _, replayed = rendered.read_series("scene.geometry.transforms")
        before = source.calibration("overview", generation=0, tick=100)
        after = rendered.calibration("overview", generation=0, tick=100)
        streams = set(rendered.streams)
    np.testing.assert_array_equal(replayed, recorded)
    assert after.digest == before.digest
    assert after.pose == before.pose
    assert "control.authored" not in streams  # no control in render mode


def test_render_of_a_file_without_render_state_is_refused(
    commands_only_recording: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.fsr"
    with pytest.raises(ReplayError, match="render state") as caught:
        replay_file(commands_only_recording, output, ReplayOptions(ReplayMode.RENDER))
    assert caught.value.path == str(commands_only_recording)
    assert not output.exists()


@pytest.mark.parametrize("scene", ["reach_recording", "contacts_recording"])
def test_resimulation_reproduces_every_channel_bit_for_bit(
    scene: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    source: Path = request.getfixturevalue(scene)
    output = tmp_path / "resimulated.fsr"
    result = replay_file(source, output, ReplayOptions(ReplayMode.RESIMULATE))
    comparison = compare_recordings(load_fsr(source), load_fsr(output))
    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.steps == len(load_fsr(source).channels["observations.mujoco"].values)
    assert comparison.exact
    assert comparison.channel("observations.mujoco").samples_compared == result.steps
    with FsrReader.open(output) as reader:
        provenance = reader.footer.provenance if reader.footer else {}
    assert provenance["mode"] == "resimulate"
    assert provenance["source_sha256"] == result.source_sha256


def test_resimulation_as_fast_as_valid_stops_when_control_ends(
    tmp_path: Path, example_scenario: Callable[..., MujocoScenario]
) -> None:
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import ControlSpec

    push = ControlSpec(start_s=0.0, times_s=(0.0, 0.1), values=((0.0,), (0.2,)))
    scenario = dataclasses.replace(
        example_scenario("contacts", duration_s=0.3, cameras=False), control=(push,)
    )
    source = tmp_path / "push.fsr"
    record_mujoco_run(scenario, source)
    fast = ReplayOptions(ReplayMode.RESIMULATE, timing=Timing.AS_FAST_AS_VALID)
    recorded = ReplayOptions(ReplayMode.RESIMULATE)
    early = replay_file(source, tmp_path / "fast.fsr", fast)
    whole = replay_file(source, tmp_path / "whole.fsr", recorded)
    assert early.steps == 51  # the chunk's last point (0.1 s) is at step 50
    assert whole.steps == 150  # the recorded tail to the terminal cut


def test_a_passive_scene_resimulates_bit_for_bit_with_no_command(
    tmp_path: Path, example_scenario: Callable[..., MujocoScenario]
) -> None:
    from fsr_core.replay.engine import PASSIVE_NOTE
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run

    scenario = dataclasses.replace(
        example_scenario("contacts", duration_s=0.3), control=()
    )  # the bodies drop and settle; nothing is commanded
    source = tmp_path / "drop.fsr"
    record_mujoco_run(scenario, source)
    output = tmp_path / "again.fsr"

    result = replay_file(source, output, ReplayOptions(ReplayMode.RESIMULATE))

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.steps == 150
    assert result.notes[0] == PASSIVE_NOTE
    comparison = compare_recordings(load_fsr(source), load_fsr(output))
    assert comparison.exact  # the channels and the camera frames
    fast = ReplayOptions(ReplayMode.RESIMULATE, timing=Timing.AS_FAST_AS_VALID)
    with pytest.raises(ReplayError, match="passive run"):
        replay_file(source, tmp_path / "fast.fsr", fast)
    assert not (tmp_path / "fast.fsr").exists()


def test_cancelled_replay_publishes_nothing(
    reach_recording: Path, tmp_path: Path
) -> None:
    token = CancelToken()
    token.cancel()
    output = tmp_path / "cancelled.fsr"
    result = replay_file(
        reach_recording, output, ReplayOptions(ReplayMode.RESIMULATE), cancel=token
    )
    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.output is None
    assert not output.exists()
    assert list(tmp_path.iterdir()) == []


def test_replay_never_overwrites_an_existing_output(
    reach_recording: Path, tmp_path: Path
) -> None:
    with refused_target(
        tmp_path / "taken.fsr", TargetExistsError, match="exists", content=b"keep me"
    ) as output:
        replay_file(reach_recording, output, ReplayOptions(ReplayMode.RESIMULATE))
    replay_file(
        reach_recording,
        output,
        dataclasses.replace(ReplayOptions(ReplayMode.RENDER), overwrite=True),
    )
    assert output.read_bytes()[:4] != b"keep"
