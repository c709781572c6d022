"""Re-simulating and re-rendering Genesis trajectories with Genesis itself.

Needs genesis-world (1.4.5, GSTRAJ4) and torch where the tests run, or a
Python with them in ``FSR_VIEWER_GENESIS_PYTHON``; skipped elsewhere (see
conftest). The recordings are the scenes of ``tests/data/genesis``, recorded
again on the machine running the tests (conftest's ``recorded_here``):
Genesis on one CPU is deterministic, so a re-run reproduces an exact-mode
recording bit for bit, and where a recording was changed from outside (the
batch scene's reset of one environment) the comparison says exactly where.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from data_paths import GENESIS_DATA as DATA

from app.cli import main
from fsr_core.compare import compare_recordings
from fsr_core.errors import ReplayError
from fsr_core.format.reader import FsrReader
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import (
    CancelToken,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
)
from fsr_core.simulators.genesis import availability
from fsr_core.simulators.genesis.channels import TIMINGS_PREFIX
from fsr_core.simulators.genesis.output import COMPARISON_STREAM
from fsr_core.simulators.genesis.request import CAMERA_VARIABLE, START_VARIABLE
from fsr_core.sources import open_recording

pytestmark = pytest.mark.genesis

Replayed = Callable[[str, str], ReplayResult]


def _comparison(path: Path) -> dict[str, object]:
    with FsrReader.open(path) as reader:
        records = list(reader.iter_records(COMPARISON_STREAM))
        provenance = reader.footer.provenance  # type: ignore[union-attr]
    assert len(records) == 1
    assert records[0].decoded == provenance["comparison"]
    found: dict[str, object] = records[0].decoded
    return found


def _channels_equal(source: Path, replay: Path) -> None:
    """Every channel but the wall-clock timings is bit for bit the recorded one."""
    reference = open_recording(source)
    comparison = compare_recordings(reference, open_recording(replay))
    assert comparison.within_tolerance
    assert [c.name for c in comparison.channels if not c.exact] == []
    assert set(comparison.only_in_reference) == {
        name for name in reference.channels if name.startswith(TIMINGS_PREFIX)
    }


@pytest.mark.parametrize("stem", ["box_exact", "arm_exact", "arm_minimal"])
def test_resimulation_reproduces_the_recording_bit_for_bit(
    stem: str, replayed: Replayed, recorded_here: Path
) -> None:
    result = replayed(stem, "resimulate")

    assert result.outcome is ReplayOutcome.SUCCEEDED, result.message
    assert result.message.startswith("bit for bit"), result.message
    assert result.output is not None
    summary = _comparison(result.output)
    assert summary["bit_for_bit"] is True
    assert summary["first_divergence"] is None
    source = recorded_here / f"v4_{stem}.gstraj"
    frames = open_recording(source).channels["Simulator.time"]
    assert summary["frames_compared"] == len(frames.times_s)
    _channels_equal(source, result.output)


def test_arm_inputs_are_put_back_and_not_compared(replayed: Replayed) -> None:
    result = replayed("arm_exact", "resimulate")

    assert result.output is not None
    summary = _comparison(result.output)
    put_back = summary["put_back_before_each_step"]
    assert isinstance(put_back, list)
    assert "RigidSolver.dyn_state.dofs.ctrl_pos" in put_back


def test_resimulation_says_where_a_reset_from_outside_diverges(
    replayed: Replayed, recorded_here: Path
) -> None:
    # At step 20 the recording reset environment 1 alone (tests/data/genesis).
    result = replayed("batch_exact", "resimulate")

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.output is not None
    first = _comparison(result.output)["first_divergence"]
    assert isinstance(first, dict)
    assert (first["frame"], first["field"], first["envs"]) == (
        20,
        "Simulator.steps",
        [1],
    )
    assert first["max_abs_error"] == 20.0
    assert "diverges at frame 20" in result.message
    reference = open_recording(recorded_here / "v4_batch_exact.gstraj")
    comparison = compare_recordings(reference, open_recording(result.output))
    divergence = comparison.first_divergence
    assert divergence is not None
    assert "env1" in divergence.channel + divergence.column
    assert divergence.time_s == pytest.approx(0.2)


def test_resimulation_from_a_later_frame(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, box: Path
) -> None:
    monkeypatch.setenv(START_VARIABLE, "25")
    output = tmp_path / "box.from25.fsr"

    result = replay_file(box, output, ReplayOptions(mode=ReplayMode.RESIMULATE))

    assert result.message.startswith("bit for bit"), result.message
    summary = _comparison(output)
    assert (summary["start_frame"], summary["frames_compared"]) == (25, 16)
    times = open_recording(output).channels["Simulator.time"].times_s
    assert times[0] == pytest.approx(0.25)


def test_render_writes_a_camera_that_sees_the_box(
    replayed: Replayed, box: Path
) -> None:
    result = replayed("box_exact", "render")

    assert result.outcome is ReplayOutcome.SUCCEEDED, result.message
    assert result.message.startswith("bit for bit"), result.message
    assert result.output is not None
    model = open_recording(result.output)
    (track,) = model.cameras
    assert len(track.times_s) == 41
    source = open_recording(box)
    links = np.asarray(source.channels["RigidSolver.dyn_state.links.pos"].values)
    for index in (0, 20, 40):
        frame, calibration = track.fetch(index)
        assert calibration is not None
        assert calibration.pose is not None
        profile, pose = calibration.profile, calibration.pose
        rotation = pose.rotation_matrix()
        centre = links[index].reshape(-1, 3)[1]  # link 1 is the box, 0 the plane
        x, y, z = rotation.T @ (centre - pose.translation_m)
        u = round(profile.fx * x / z + profile.cx)
        v = round(profile.fy * y / z + profile.cy)
        pixels = frame.pixels.astype(np.int32)
        assert 0 <= u < profile.width
        assert 0 <= v < profile.height
        box_colour = pixels[v - 1 : v + 2, u - 1 : u + 2].mean()
        # The box is light grey, the checkered plane dark blue.
        assert box_colour > 150, (index, box_colour)
        assert np.median(pixels) < 100
    first, _ = track.fetch(0)
    last, _ = track.fetch(40)
    assert not np.array_equal(first.pixels, last.pixels)


def test_render_names_its_source_and_genesis(replayed: Replayed, box: Path) -> None:
    result = replayed("box_exact", "render")

    assert result.output is not None
    digest = hashlib.sha256(box.read_bytes()).hexdigest()
    assert result.source_sha256 == digest
    with FsrReader.open(result.output) as reader:
        provenance = reader.footer.provenance  # type: ignore[union-attr]
        metadata = reader.metadata
        intrinsics = [
            info
            for info in reader.streams.values()
            if info.name.endswith(".intrinsics")
        ]
    assert provenance["source"] == {"file": box.name, "sha256": digest}
    assert provenance["mode"] == "render"
    assert provenance["genesis_version"].startswith("1.4.")
    assert metadata["genesis"]["camera"]["pose_source"] == "framing"
    assert [info.record_count for info in intrinsics] == [1]


def test_render_takes_the_users_camera(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, box: Path
) -> None:
    monkeypatch.setenv(
        CAMERA_VARIABLE, "pos=0.6,-0.6,0.4 lookat=0,0,0.05 fov=50 size=160x120"
    )
    output = tmp_path / "box.user.fsr"

    result = replay_file(box, output, ReplayOptions(mode=ReplayMode.RENDER))

    assert result.outcome is ReplayOutcome.SUCCEEDED
    (track,) = open_recording(output).cameras
    frame, calibration = track.fetch(10)
    assert frame.pixels.shape == (120, 160, 3)
    assert calibration is not None
    assert calibration.pose is not None
    profile = calibration.profile
    assert profile.fy == pytest.approx(60.0 / np.tan(np.radians(25.0)))
    assert (profile.cx, profile.cy) == (79.5, 59.5)
    assert calibration.pose.translation_m == pytest.approx([0.6, -0.6, 0.4], abs=1e-6)
    sight = calibration.pose.rotation_matrix()[
        :, 2
    ]  # OpenCV: the camera looks along +z
    expected = np.array([-0.6, 0.6, -0.35]) / np.linalg.norm([-0.6, 0.6, -0.35])
    assert sight == pytest.approx(expected, abs=1e-6)
    with FsrReader.open(output) as reader:
        assert reader.metadata["genesis"]["camera"]["pose_source"] == "user"


def test_cancel_publishes_nothing(tmp_path: Path, box: Path) -> None:
    cancel = CancelToken()
    output = tmp_path / "cancelled.fsr"

    def progress(done: int, total: int) -> None:
        if done >= 3:
            cancel.cancel()

    result = replay_file(
        box,
        output,
        ReplayOptions(mode=ReplayMode.RESIMULATE),
        progress=progress,
        cancel=cancel,
    )

    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.output is None
    assert not output.exists()
    assert list(tmp_path.iterdir()) == []


def test_replay_command_resimulates_and_says_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], box: Path
) -> None:
    output = tmp_path / "box.fsr"

    status = main(
        [
            "replay",
            "--simulator",
            "genesis",
            str(box),
            "--mode",
            "resimulate",
            "-o",
            str(output),
        ]
    )

    said = capsys.readouterr().out
    assert status == 0
    assert "note: bit for bit" in said
    assert f"fsr-viewer compare {box} {output}" in said


def test_a_scene_that_cannot_be_rebuilt_fails_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], box: Path
) -> None:
    # The description's zip archive cut in half: Genesis cannot load the scene.
    data = box.read_bytes()
    manifest = int.from_bytes(data[8:16], "little")
    start = 16 + manifest + 8
    size = int.from_bytes(data[start - 8 : start], "little")
    broken = bytearray(data)
    broken[start + size // 2 : start + size // 2 + 64] = bytes(64)
    source = tmp_path / "broken.gstraj"
    source.write_bytes(bytes(broken))

    status = main(
        ["replay", str(source), "--mode", "render", "-o", str(tmp_path / "o.fsr")]
    )

    err = [
        line
        for line in capsys.readouterr().err.splitlines()
        if line.startswith("fsr-viewer")
    ]
    assert status == 1
    assert len(err) == 1
    assert "Genesis could not rebuild or replay the scene" in err[0]
    assert not (tmp_path / "o.fsr").exists()


def test_a_gstraj1_file_is_refused_by_genesis_1_4_5(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"GSTRAJ1 .*1\.4\.0 to 1\.4\.4"):
        replay_file(
            DATA / "v1_box_exact.gstraj",
            tmp_path / "o.fsr",
            ReplayOptions(mode=ReplayMode.RESIMULATE),
        )


def test_the_worker_interpreter_replays_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, box: Path
) -> None:
    # Genesis in a child interpreter, as where the viewer's Python lacks it.
    monkeypatch.setattr(availability, "_installed_here", lambda: None)
    python = os.environ.get(availability.PYTHON_VARIABLE) or sys.executable
    monkeypatch.setenv(availability.PYTHON_VARIABLE, python)
    output = tmp_path / "box.worker.fsr"

    result = replay_file(box, output, ReplayOptions(mode=ReplayMode.RESIMULATE))

    assert result.message.startswith("bit for bit"), result.message
    assert f"in {python}" in result.notes[1]
    _channels_equal(box, output)


def test_nothing_outside_the_adapter_loads_genesis() -> None:
    probe = (
        "import importlib, json, pkgutil, sys\n"
        "import fsr_core\n"
        "for info in pkgutil.walk_packages(fsr_core.__path__, 'fsr_core.'):\n"
        "    importlib.import_module(info.name)\n"
        "import app.cli, app.headless.replay_commands, app.window.replay.job\n"
        "top = {name.split('.')[0] for name in sys.modules}\n"
        "print(json.dumps(sorted(top & {'genesis', 'torch'})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )

    assert done.stdout.strip().splitlines()[-1] == "[]"
