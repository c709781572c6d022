"""Headless export: frame count and size, atomic output, cancel, the CLI form."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest

from app.cli import main
from app.export import (
    ExportCancelled,
    ensure_gui_app,
    export_video,
    frame_count,
    frame_times,
)
from app.export.atomic import partial_name
from fsr_core.adapters.planar_arm.demos import _take_documents
from fsr_core.adapters.planar_arm.recorder import record_run
from fsr_core.adapters.planar_arm.scenario import Scenario
from fsr_core.errors import TargetExistsError, WriteFailedError
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def reach_take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the demo reach take, shortened to 0.5 s and without cameras."""
    document = _take_documents()["01_reach"]
    document["duration_s"] = 0.5
    document["cameras"] = []
    path = tmp_path_factory.mktemp("take") / "reach.fsr"
    record_run(Scenario.from_json(document), path)
    return path


@pytest.fixture
def reach_model(reach_take: Path, qapp: Any) -> RecordingModel:
    return open_recording(reach_take)


def _decode(path: Path) -> tuple[list[av.VideoFrame], Any]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = list(container.decode(stream))
        info = {
            "codec": stream.codec_context.name,
            "pix_fmt": stream.codec_context.format.name,
            "rate": stream.average_rate,
            "time_base": stream.time_base,
        }
    return frames, info


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_frame_count_follows_span_speed_and_fps() -> None:
    assert frame_count(2.0, fps=30.0, speed=1.0) == 61
    assert frame_count(2.0, fps=30.0, speed=2.0) == 31
    # skelarm drops this last frame to float error; we keep it.
    assert frame_count(2.999999999999891, fps=30.0, speed=1.0) == 91
    times = frame_times(0.5, fps=30.0, speed=1.0)
    assert times[0] == 0.0
    assert times[-1] == pytest.approx(0.5)


def test_mp4_has_one_frame_per_tick_of_the_output_clock(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    result = export_video(reach_model, out)
    frames, info = _decode(out)
    expected = frame_count(reach_model.duration_s, fps=30.0, speed=1.0)
    assert result.frames == expected == len(frames)
    assert (result.width, result.height) == (800, 800)
    assert {(f.width, f.height) for f in frames} == {(800, 800)}
    assert info["codec"] == "h264"
    assert info["pix_fmt"] == "yuv420p"
    assert info["rate"] == 30
    assert _leftovers(tmp_path) == []


def test_panel_mp4_places_the_304_px_panel_right_of_the_canvas(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "panel.mp4"
    result = export_video(reach_model, out, panel=True)
    frames, _ = _decode(out)
    assert (result.width, result.height) == (1104, 800)
    assert (frames[0].width, frames[0].height) == (1104, 800)
    panel = frames[0].to_ndarray(format="rgb24")[:, 800:]
    assert panel.std() > 1.0


def test_gif_is_animated_and_plays_at_fps(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.gif"
    result = export_video(reach_model, out, fps=20.0)
    frames, info = _decode(out)
    assert (
        len(frames)
        == result.frames
        == frame_count(reach_model.duration_s, fps=20.0, speed=1.0)
    )
    assert len(frames) > 1
    assert (frames[0].width, frames[0].height) == (800, 800)
    seconds = [float(f.pts * info["time_base"]) for f in frames]
    steps = np.diff(seconds)
    assert steps.mean() == pytest.approx(1 / 20, abs=0.002)
    first = frames[0].to_ndarray(format="rgb24").astype(int)
    last = frames[-1].to_ndarray(format="rgb24").astype(int)
    assert np.abs(first - last).mean() > 0.0


def test_speed_2_halves_the_frames(reach_model: RecordingModel, tmp_path: Path) -> None:
    normal = export_video(reach_model, tmp_path / "x1.mp4")
    fast = export_video(reach_model, tmp_path / "x2.mp4", speed=2.0)
    frames, _ = _decode(tmp_path / "x2.mp4")
    assert len(frames) == fast.frames
    assert fast.frames == frame_count(reach_model.duration_s, fps=30.0, speed=2.0)
    assert fast.frames == (normal.frames - 1) // 2 + 1


def test_decoded_frame_matches_the_canvas(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    from app.canvas import SceneCanvas, SceneOptions, qimage_to_rgb

    out = tmp_path / "reach.mp4"
    export_video(reach_model, out)
    frames, _ = _decode(out)
    times = frame_times(reach_model.duration_s, fps=30.0, speed=1.0)
    middle = len(frames) // 2
    decoded = frames[middle].to_ndarray(format="rgb24").astype(int)
    drawn = SceneCanvas(reach_model, SceneOptions()).render(times[middle], 800, 800)
    expected = qimage_to_rgb(drawn).astype(int)
    assert np.abs(decoded - expected).mean() < 6.0


def test_output_appears_only_when_complete(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    seen: list[tuple[bool, bool]] = []

    def progress(done: int, total: int) -> None:
        seen.append((out.exists(), (tmp_path / partial_name(out)).exists()))

    export_video(reach_model, out, progress=progress)
    assert seen
    assert set(seen) == {(False, True)}
    assert out.exists()
    assert _leftovers(tmp_path) == []


def test_existing_target_is_never_overwritten(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    out.write_bytes(b"keep me")
    with pytest.raises(TargetExistsError, match="already exists"):
        export_video(reach_model, out)
    assert out.read_bytes() == b"keep me"
    assert _leftovers(tmp_path) == []


def test_cancel_leaves_nothing_on_disk(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    done: list[int] = []

    def progress(count: int, total: int) -> None:
        done.append(count)

    with pytest.raises(ExportCancelled, match="nothing written"):
        export_video(
            reach_model, out, progress=progress, cancelled=lambda: len(done) >= 3
        )
    assert done == [1, 2, 3]
    assert list(tmp_path.iterdir()) == []


def test_unknown_extension_is_refused(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
        export_video(reach_model, tmp_path / "reach.avi")
    assert list(tmp_path.iterdir()) == []


def test_output_equal_to_input_is_refused(reach_take: Path, tmp_path: Path) -> None:
    # Sources are recognised by content, so a recording may be named *.mp4.
    source = tmp_path / "take.mp4"
    shutil.copyfile(reach_take, source)
    before = source.read_bytes()
    with pytest.raises(WriteFailedError, match="is the input"):
        export_video(open_recording(source), source)
    assert source.read_bytes() == before


def test_ensure_gui_app_reuses_the_running_application(qapp: Any) -> None:
    assert ensure_gui_app() is qapp


def test_cli_export_prints_progress_and_the_result(
    reach_take: Path,
    tmp_path: Path,
    qapp: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "reach.mp4"
    code = main([str(reach_take), "--export", str(out), "--panel", "--fps", "24"])
    captured = capsys.readouterr()
    assert code == 0
    expected = frame_count(open_recording(reach_take).duration_s, fps=24.0, speed=1.0)
    assert f"{expected}/{expected} frames" in captured.err
    assert "[" + "#" * 30 + "]" in captured.err
    assert f"{out}: {expected} frames, 1104x800" in captured.out
    frames, info = _decode(out)
    assert len(frames) == expected
    assert info["rate"] == Fraction(24)


def test_cli_existing_target_exits_1_and_keeps_it(
    reach_take: Path,
    tmp_path: Path,
    qapp: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "reach.gif"
    out.write_bytes(b"keep me")
    assert main([str(reach_take), "--export", str(out)]) == 1
    err = capsys.readouterr().err
    assert "already exists" in err
    assert len(err.strip().splitlines()) == 1
    assert out.read_bytes() == b"keep me"


def test_cli_output_equal_to_input_exits_1(
    reach_take: Path, tmp_path: Path, qapp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "take.gif"
    shutil.copyfile(reach_take, source)
    assert main([str(source), "--export", str(source)]) == 1
    assert "is the input" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--export", "out.avi"], "must be .mp4 or .gif"),
        (["second.fsr", "--export", "out.mp4"], "--export takes a single recording"),
        (["--export", "out.mp4", "--fps", "0"], "must be positive"),
    ],
)
def test_cli_export_usage_errors_exit_2(
    reach_take: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main([str(reach_take), *extra])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_without_export_says_the_player_is_not_built_yet(
    reach_take: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(reach_take)]) == 0
    assert "player window is not part of this build yet" in capsys.readouterr().out


def test_cli_export_runs_headless_without_qt_platform_set(
    reach_take: Path, tmp_path: Path
) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}
    }
    out = tmp_path / "reach.gif"
    done = subprocess.run(
        [sys.executable, "-m", "app", str(reach_take), "--export", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    frames, _ = _decode(out)
    assert len(frames) == frame_count(
        open_recording(reach_take).duration_s, fps=30.0, speed=1.0
    )
