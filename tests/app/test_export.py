"""Headless export: frame count and size, atomic output, cancel, the CLI form."""

from __future__ import annotations

import csv
import dataclasses
import errno
import math
import os
import shutil
import threading
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
from demo_recordings import record_demo_take
from occupied_targets import refused_target
from PySide6.QtGui import QImage
from python_probe import run_python
from view_models import export_frame_as, export_video_as, shown

from app.cli import main
from app.headless.export.atomic import partial_name
from app.headless.export.channels import channel_table, export_channels
from app.headless.export.video import (
    ExportCancelled,
    ensure_gui_app,
    frame_count,
    frame_times,
    play_window,
)
from fsr_core.errors import TargetExistsError, WriteFailedError
from fsr_core.recording import Channel, RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def reach_take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the demo reach take, shortened to 0.5 s and without cameras."""
    return record_demo_take(
        tmp_path_factory.mktemp("take") / "reach.fsr",
        "01_reach",
        duration_s=0.5,
        cameras=[],
    )


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


def _occupied(path: Path, content: bytes = b"old") -> Path:
    """Write ``content`` at ``path``: a target that already exists."""
    path.write_bytes(content)
    return path


@dataclasses.dataclass(frozen=True)
class CliRun:
    """What one ``fsr-viewer`` command did: its exit code and what it printed."""

    code: int
    out: str
    err: str


Cli = Callable[..., CliRun]


@pytest.fixture
def cli(qapp: Any, capsys: pytest.CaptureFixture[str]) -> Cli:
    """Return a function that runs ``fsr-viewer`` with its arguments as strings."""

    def run(*args: object) -> CliRun:
        code = main([str(arg) for arg in args])
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


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
    result = export_video_as(reach_model, out)
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
    result = export_video_as(reach_model, out, panel=True)
    frames, _ = _decode(out)
    assert (result.width, result.height) == (1104, 800)
    assert (frames[0].width, frames[0].height) == (1104, 800)
    panel = frames[0].to_ndarray(format="rgb24")[:, 800:]
    assert panel.std() > 1.0


def test_gif_is_animated_and_plays_at_fps(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.gif"
    result = export_video_as(reach_model, out, fps=20.0)
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
    normal = export_video_as(reach_model, tmp_path / "x1.mp4")
    fast = export_video_as(reach_model, tmp_path / "x2.mp4", speed=2.0)
    frames, _ = _decode(tmp_path / "x2.mp4")
    assert len(frames) == fast.frames
    assert fast.frames == frame_count(reach_model.duration_s, fps=30.0, speed=2.0)
    assert fast.frames == (normal.frames - 1) // 2 + 1


def test_decoded_frame_matches_the_canvas(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    from app.canvas.qimage_arrays import qimage_to_rgb
    from app.canvas.scene_canvas import SceneCanvas

    out = tmp_path / "reach.mp4"
    export_video_as(reach_model, out)
    frames, _ = _decode(out)
    times = frame_times(reach_model.duration_s, fps=30.0, speed=1.0)
    middle = len(frames) // 2
    decoded = frames[middle].to_ndarray(format="rgb24").astype(int)
    drawn = SceneCanvas(reach_model).render(times[middle], 800, 800)
    expected = qimage_to_rgb(drawn).astype(int)
    assert np.abs(decoded - expected).mean() < 6.0


def test_output_appears_only_when_complete(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    seen: list[tuple[bool, bool]] = []

    def progress(done: int, total: int) -> None:
        seen.append((out.exists(), (tmp_path / partial_name(out)).exists()))

    export_video_as(reach_model, out, progress=progress)
    assert seen
    assert set(seen) == {(False, True)}
    assert out.exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [("reach.mp4", "already exists"), ("reach.webm", "--overwrite")],
)
def test_existing_target_is_never_overwritten_and_the_flag_is_named(
    reach_model: RecordingModel, tmp_path: Path, name: str, message: str
) -> None:
    with refused_target(
        tmp_path / name, TargetExistsError, match=message, content=b"keep me"
    ) as out:
        export_video_as(reach_model, out)
    assert _leftovers(tmp_path) == []


def test_cancel_leaves_nothing_on_disk(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "reach.mp4"
    done: list[int] = []

    def progress(count: int, total: int) -> None:
        done.append(count)

    with pytest.raises(ExportCancelled, match="nothing written"):
        export_video_as(
            reach_model, out, progress=progress, cancelled=lambda: len(done) >= 3
        )
    assert done == [1, 2, 3]
    assert list(tmp_path.iterdir()) == []


def test_unknown_extension_is_refused(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"\.mp4, \.webm or \.gif"):
        export_video_as(reach_model, tmp_path / "reach.avi")
    assert list(tmp_path.iterdir()) == []


def test_output_equal_to_input_is_refused(reach_take: Path, tmp_path: Path) -> None:
    # Sources are recognised by content, so a recording may be named *.mp4.
    source = tmp_path / "take.mp4"
    shutil.copyfile(reach_take, source)
    before = source.read_bytes()
    with pytest.raises(WriteFailedError, match="is the input"):
        export_video_as(open_recording(source), source)
    assert source.read_bytes() == before


def test_ensure_gui_app_reuses_the_running_application(qapp: Any) -> None:
    assert ensure_gui_app() is qapp


def test_cli_export_prints_progress_and_the_result(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    out = tmp_path / "reach.mp4"
    run = cli(reach_take, "--export", out, "--panel", "--fps", "24")
    assert run.code == 0
    expected = frame_count(open_recording(reach_take).duration_s, fps=24.0, speed=1.0)
    assert f"{expected}/{expected} frames" in run.err
    assert "[" + "#" * 30 + "]" in run.err
    assert f"{out}: {expected} frames, 1104x800" in run.out
    frames, info = _decode(out)
    assert len(frames) == expected
    assert info["rate"] == Fraction(24)


def test_cli_existing_target_exits_1_and_keeps_it(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    out = _occupied(tmp_path / "reach.gif", b"keep me")
    run = cli(reach_take, "--export", out)
    assert run.code == 1
    assert "already exists" in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert out.read_bytes() == b"keep me"


def test_cli_output_equal_to_input_exits_1(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    source = tmp_path / "take.gif"
    shutil.copyfile(reach_take, source)
    run = cli(source, "--export", source)
    assert run.code == 1
    assert "is the input" in run.err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--export", "out.avi"], "must be .mp4, .webm or .gif"),
        (["--export", "out.mp4", "--size", "640"], "expected WxH"),
        (["--export", "out.mp4", "--size", "0x480"], "expected WxH"),
        (["--export", "out.mp4", "--start", "0.4", "--end", "0.2"], "is after"),
        (["second.fsr", "--export", "out.mp4"], "--export takes a single recording"),
        (["--export", "out.mp4", "--fps", "0"], "must be positive"),
        (["--export-frame", "x", "a.png"], "T must be a time"),
        (["--export-frame", "0.1", "a.jpg"], "written as .png"),
        (["--export-channels", "a.txt"], "use a .csv name"),
        (["b.fsr", "--export-channels", "a.csv"], "single recording"),
        (["b.fsr", "--export", "a.mp4"], "single recording"),
        (["--export-dir", "d", "--export", "a.mp4"], "cannot be combined"),
        (["--export-dir", "d", "--format", "avi"], "invalid choice"),
    ],
)
def test_cli_usage_errors_exit_2(
    reach_take: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main([str(reach_take), *extra])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_screenshot_draws_the_whole_window_at_the_time_asked(
    reach_take: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "window.png"
    code = main(
        [
            str(reach_take),
            "--screenshot",
            str(output),
            "--at",
            "0.2",
            "--size",
            "960x600",
        ]
    )
    assert code == 0
    image = QImage(str(output))
    assert (image.width(), image.height()) == (960, 600)
    assert "t = 0.200 s" in capsys.readouterr().out


def test_cli_plot_options_open_one_plot_each_split_outside_brackets() -> None:
    from app.cli import _parse

    args = _parse(
        [
            "run.fsr",
            "--plot",
            "observations.arm[q0],observations.arm[q1]",
            "--plot",
            "q",
        ]
    )
    assert args.plot == [("observations.arm[q0]", "observations.arm[q1]"), ("q",)]


def test_cli_screenshot_with_plots_draws_them_under_the_views(
    reach_take: Path, tmp_path: Path
) -> None:
    bare, plotted = tmp_path / "bare.png", tmp_path / "plotted.png"
    common = [str(reach_take), "--at", "0.2", "--size", "960x600"]
    assert main([*common, "--screenshot", str(bare)]) == 0
    arm = "observations.arm"
    assert (
        main([*common, "--screenshot", str(plotted), "--plot", f"{arm}[q0],{arm}[q1]"])
        == 0
    )
    # The plot dock takes the bottom of the window: its rows now differ.
    rows = range(480, 560)
    bare_image, plotted_image = QImage(str(bare)), QImage(str(plotted))
    changed = sum(
        bare_image.pixel(x, y) != plotted_image.pixel(x, y)
        for y in rows
        for x in range(0, 960, 8)
    )
    assert changed > len(rows) * 120 // 4


def test_cli_player_refuses_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "nope.fsr")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_export_runs_headless_without_qt_platform_set(
    reach_take: Path, tmp_path: Path
) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}
    }
    out = tmp_path / "reach.gif"
    done = run_python(["-m", "app", str(reach_take), "--export", str(out)], env=env)
    assert done.returncode == 0, done.stderr
    frames, _ = _decode(out)
    assert len(frames) == frame_count(
        open_recording(reach_take).duration_s, fps=30.0, speed=1.0
    )


# -- size, play-time window, overwrite, WebM ------------------------------


def test_size_sets_the_scene_and_the_panel_keeps_its_width(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    plain = export_video_as(reach_model, tmp_path / "a.mp4", size=(320, 240))
    panel = export_video_as(
        reach_model, tmp_path / "b.mp4", size=(320, 240), panel=True
    )
    assert (plain.width, plain.height) == (320, 240)
    assert (panel.width, panel.height) == (320 + 304, 240)
    for name, size in (("a.mp4", (320, 240)), ("b.mp4", (624, 240))):
        frames, _ = _decode(tmp_path / name)
        assert {(f.width, f.height) for f in frames} == {size}


def test_odd_size_is_padded_to_even_for_yuv420p(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    result = export_video_as(reach_model, tmp_path / "odd.mp4", size=(161, 121))
    frames, _ = _decode(tmp_path / "odd.mp4")
    assert (result.width, result.height) == (162, 122)
    assert (frames[0].width, frames[0].height) == (162, 122)
    gif = export_video_as(reach_model, tmp_path / "odd.gif", size=(161, 121))
    assert (gif.width, gif.height) == (161, 121)


def test_the_canvas_frame_is_painted_in_place_and_padded_with_its_edges(
    reach_model: RecordingModel,
) -> None:
    from app.headless.export.canvas_frame import CanvasFrame
    from app.headless.export.frames import FrameSource

    source = FrameSource(
        reach_model, shown(size=(161, 121), panel=True, show_com=False)
    )
    canvas = CanvasFrame(source.width + 1, 122)
    source.paint(canvas.image, 0.2)
    canvas.pad(source.width, source.height)

    # What PyAV converts is what was painted, edges repeated into the padding.
    frame = canvas.frame.to_ndarray(format="bgra")
    assert frame.shape == (122, source.width + 1, 4)
    assert np.array_equal(frame, canvas.pixels)
    assert np.array_equal(frame[:121, : source.width, 2::-1], source.render(0.2))
    assert np.array_equal(frame[:121, -1], frame[:121, -2])
    assert np.array_equal(frame[-1], frame[-2])
    assert (frame[..., 3] == 255).all()
    with pytest.raises(ValueError, match="smaller"):
        source.paint(CanvasFrame(160, 121).image, 0.2)
    with pytest.raises(ValueError, match="does not fit"):
        canvas.pad(source.width + 2, 122)


def test_start_and_end_bound_the_frames(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    from app.canvas.qimage_arrays import qimage_to_rgb
    from app.canvas.scene_canvas import SceneCanvas

    out = tmp_path / "window.mp4"
    result = export_video_as(
        reach_model, out, size=(200, 200), start_s=0.1, end_s=0.4, speed=0.5
    )
    expected = math.floor((0.4 - 0.1) / 0.5 * 30.0 + 1e-6) + 1
    frames, _ = _decode(out)
    assert result.frames == len(frames) == expected == 19
    times = frame_times(
        reach_model.duration_s, fps=30.0, speed=0.5, start_s=0.1, end_s=0.4
    )
    assert times[0] == pytest.approx(0.1)
    assert times[-1] == pytest.approx(0.4)
    drawn = SceneCanvas(reach_model).render(times[0], 200, 200)
    first = frames[0].to_ndarray(format="rgb24").astype(int)
    assert np.abs(first - qimage_to_rgb(drawn).astype(int)).mean() < 6.0


def test_start_equal_to_end_gives_one_frame(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    result = export_video_as(
        reach_model, tmp_path / "one.gif", size=(64, 64), start_s=0.25, end_s=0.25
    )
    assert result.frames == 1


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (-0.1, None, "before the recording"),
        (None, 9.0, "past the end"),
        (0.3, 0.2, "is after"),
    ],
)
def test_window_outside_the_recording_is_refused(
    reach_model: RecordingModel,
    tmp_path: Path,
    start: float | None,
    end: float | None,
    message: str,
) -> None:
    with pytest.raises(ValueError, match=message):
        export_video_as(reach_model, tmp_path / "w.mp4", start_s=start, end_s=end)
    assert list(tmp_path.iterdir()) == []


def test_play_window_defaults_to_the_whole_recording() -> None:
    assert play_window(2.5, None, None) == (0.0, 2.5)
    assert play_window(2.5, 0.5, 2.5 + 1e-12) == (0.5, 2.5)


def test_overwrite_replaces_the_existing_file_atomically(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = _occupied(tmp_path / "reach.mp4")
    old_inode = out.stat().st_ino
    seen: list[bytes] = []

    def progress(done: int, total: int) -> None:
        seen.append(out.read_bytes())

    result = export_video_as(
        reach_model, out, size=(96, 96), overwrite=True, progress=progress
    )
    assert set(seen) == {b"old"}
    assert out.stat().st_ino != old_inode
    frames, _ = _decode(out)
    assert len(frames) == result.frames
    assert _leftovers(tmp_path) == []


def test_cancelled_overwrite_keeps_the_old_file(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    with refused_target(tmp_path / "reach.gif", ExportCancelled) as out:
        export_video_as(
            reach_model, out, size=(96, 96), overwrite=True, cancelled=lambda: True
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reach.gif"]


def test_overwrite_never_replaces_the_source(reach_take: Path, tmp_path: Path) -> None:
    source = tmp_path / "take.mp4"
    shutil.copyfile(reach_take, source)
    before = source.read_bytes()
    with pytest.raises(WriteFailedError, match="is the input"):
        export_video_as(open_recording(source), source, overwrite=True)
    assert source.read_bytes() == before


def test_webm_is_vp9_yuv420p(reach_model: RecordingModel, tmp_path: Path) -> None:
    assert "libvpx-vp9" in av.codecs_available
    out = tmp_path / "reach.webm"
    result = export_video_as(reach_model, out, size=(240, 160), fps=20.0)
    frames, info = _decode(out)
    assert info["codec"] == "vp9"
    assert info["pix_fmt"] == "yuv420p"
    assert (
        len(frames)
        == result.frames
        == frame_count(reach_model.duration_s, fps=20.0, speed=1.0)
    )
    assert {(f.width, f.height) for f in frames} == {(240, 160)}
    assert _leftovers(tmp_path) == []


def test_cli_size_window_and_overwrite(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    out = _occupied(tmp_path / "clip.webm")
    args = [reach_take, "--export", out, "--size", "200x120", "--panel"]
    window = ["--start", "0.1", "--end", "0.3"]
    refused = cli(*args, *window)
    assert refused.code == 1
    assert "--overwrite" in refused.err
    assert out.read_bytes() == b"old"
    written = cli(*args, *window, "--overwrite")
    assert written.code == 0
    assert f"{out}: 7 frames, 504x120" in written.out
    frames, _ = _decode(out)
    assert len(frames) == 7
    assert (frames[0].width, frames[0].height) == (504, 120)


def test_cli_end_past_the_recording_exits_1_before_any_work(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    run = cli(reach_take, "--export", tmp_path / "clip.mp4", "--end", "60")
    assert run.code == 1
    assert "past the end of the recording" in run.err
    assert list(tmp_path.iterdir()) == []


# -- one still, channel CSV -------------------------------------------------


def _read_png(path: Path) -> np.ndarray[Any, np.dtype[np.uint8]]:
    from PySide6.QtGui import QImage

    from app.canvas.qimage_arrays import qimage_to_rgb

    image = QImage(str(path))
    assert not image.isNull()
    return qimage_to_rgb(image)


def test_still_is_the_video_frame_drawn_with_the_same_options(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    from app.headless.export.video import FrameSource

    out = tmp_path / "still.png"
    result = export_frame_as(
        reach_model, 0.25, out, panel=True, show_com=True, size=(200, 150)
    )
    assert (result.width, result.height, result.frames) == (504, 150, 1)
    still = _read_png(out)
    source = FrameSource(reach_model, shown(size=(200, 150), panel=True, show_com=True))
    np.testing.assert_array_equal(still, source.render(0.25))
    assert _leftovers(tmp_path) == []


def test_still_never_overwrites_unless_asked(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    with refused_target(tmp_path / "still.png", TargetExistsError) as out:
        export_frame_as(reach_model, 0.0, out, size=(64, 64))
    export_frame_as(reach_model, 0.0, out, size=(64, 64), overwrite=True)
    assert _read_png(out).shape == (64, 64, 3)


@pytest.mark.parametrize(("when", "name"), [(-1.0, "a.png"), (9.0, "a.png")])
def test_still_outside_the_recording_or_not_png_is_refused(
    reach_model: RecordingModel, tmp_path: Path, when: float, name: str
) -> None:
    with pytest.raises(ValueError, match="outside the recording"):
        export_frame_as(reach_model, when, tmp_path / name)
    with pytest.raises(ValueError, match=r"\.png"):
        export_frame_as(reach_model, 0.1, tmp_path / "a.jpg")
    assert list(tmp_path.iterdir()) == []


def test_channels_csv_has_every_numeric_column_with_units(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "channels.csv"
    result = export_channels(reach_model, out)
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    assert header[0] == "play_time_s"
    assert "q:q0 [rad]" in header
    assert "ext_force:ext_fx" in header
    widths = sum(c.width for c in reach_model.channels.values())
    assert len(header) == 1 + widths == result.columns
    primary = max(reach_model.channels.values(), key=lambda c: c.times_s.size)
    assert len(rows) - 1 == result.rows == primary.times_s.size
    q = reach_model.channels["q"]
    column = header.index("q:q1 [rad]")
    assert float(rows[10][column]) == q.values[9, 1]
    assert float(rows[10][0]) == primary.times_s[9]
    assert _leftovers(tmp_path) == []


def test_channels_on_different_time_bases_follow_the_primary(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    fast = Channel(
        "fast",
        np.arange(10) * 0.1,
        np.arange(10, dtype=np.float64),
        unit="m",
        columns=("x",),
    )
    slow = Channel(
        "slow",
        np.array([0.25, 0.55]),
        np.array([[1.0, 2.0], [3.0, 4.0]]),
        columns=("a", "b"),
    )
    model = dataclasses.replace(reach_model, channels={"slow": slow, "fast": fast})
    header, table, primary, left_out = channel_table(model)
    assert left_out == []
    assert primary == "fast"
    assert header == ["play_time_s", "slow:a", "slow:b", "fast:x [m]"]
    assert table.shape == (10, 4)
    assert np.isnan(table[:3, 1]).all()
    np.testing.assert_array_equal(table[3:6, 1:3], [[1.0, 2.0]] * 3)
    np.testing.assert_array_equal(table[6:, 1:3], [[3.0, 4.0]] * 4)
    out = tmp_path / "mixed.csv"
    export_channels(model, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "play_time_s,slow:a,slow:b,fast:x [m]"
    assert lines[1] == "0.0,,,0.0"
    assert lines[4] == "0.30000000000000004,1.0,2.0,3.0"


def test_channels_csv_never_overwrites_unless_asked(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    out = tmp_path / "c.csv"
    out.write_text("old")
    with pytest.raises(TargetExistsError):
        export_channels(reach_model, out)
    assert out.read_text() == "old"
    export_channels(reach_model, out, overwrite=True)
    assert out.read_text().startswith("play_time_s,")


def test_cli_exports_a_still_and_the_channels(
    reach_take: Path, tmp_path: Path, cli: Cli
) -> None:
    png = tmp_path / "at.png"
    table = tmp_path / "data.csv"
    run = cli(
        *(reach_take, "--export-frame", "0.2", png, "--export-channels", table),
        *("--panel", "--size", "120x100"),
    )
    assert run.code == 0
    assert f"{png}: 424x100 at t = 0.2 s" in run.out
    assert f"{table}: " in run.out
    assert _read_png(png).shape == (100, 424, 3)
    assert table.read_text().startswith("play_time_s,")


def test_cli_still_outside_the_recording_exits_1(
    reach_take: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "late.png"
    assert main([str(reach_take), "--export-frame", "99", str(png)]) == 1
    assert "outside the recording" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# -- drawing and encoding overlap ---------------------------------------------


def test_frames_are_drawn_here_and_encoded_on_the_worker_thread(
    reach_model: RecordingModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.headless.export.encoder as encoder
    from app.headless.export.frames import FrameSource

    drawn: set[str] = set()
    encoded: set[str] = set()
    draw, encode = FrameSource.paint, encoder._encode

    def draw_spy(source: FrameSource, *args: Any) -> Any:
        drawn.add(threading.current_thread().name)
        return draw(source, *args)

    def encode_spy(stream: Any, frame: av.VideoFrame) -> Any:
        encoded.add(threading.current_thread().name)
        return encode(stream, frame)

    monkeypatch.setattr(FrameSource, "paint", draw_spy)
    monkeypatch.setattr(encoder, "_encode", encode_spy)
    result = export_video_as(reach_model, tmp_path / "t.mp4", size=(96, 96))
    assert drawn == {threading.current_thread().name}
    assert encoded == {"fsr-export-encoder"}
    frames, _ = _decode(tmp_path / "t.mp4")
    assert len(frames) == result.frames


def test_an_encoder_error_propagates_and_leaves_nothing(
    reach_model: RecordingModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.headless.export.encoder as encoder

    original = encoder._encode
    calls: list[int] = []

    def failing(stream: Any, frame: av.VideoFrame) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(stream, frame)

    monkeypatch.setattr(encoder, "_encode", failing)
    with pytest.raises(WriteFailedError, match="No space left on device"):
        export_video_as(reach_model, tmp_path / "full.mp4", size=(96, 96))
    assert list(tmp_path.iterdir()) == []
    assert threading.active_count() == 1 or not any(
        t.name == "fsr-export-encoder" for t in threading.enumerate()
    )


def test_an_ffmpeg_error_on_the_worker_becomes_write_failed(
    reach_model: RecordingModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.headless.export.encoder as encoder

    def broken(container: Any, kind: str, size: Any, fps: float) -> Any:
        raise av.InvalidDataError(1094995529, "bad option")

    monkeypatch.setattr(encoder, "_add_stream", broken)
    with pytest.raises(WriteFailedError, match="encoding failed"):
        export_video_as(reach_model, tmp_path / "bad.webm", size=(64, 64))
    assert list(tmp_path.iterdir()) == []


def test_cancel_stops_the_worker_and_leaves_nothing(
    reach_model: RecordingModel, tmp_path: Path
) -> None:
    with pytest.raises(ExportCancelled):
        export_video_as(
            reach_model,
            tmp_path / "c.gif",
            size=(64, 64),
            cancelled=iter([False] * 5 + [True]).__next__,
        )
    assert list(tmp_path.iterdir()) == []
    assert not any(t.name == "fsr-export-encoder" for t in threading.enumerate())


# -- --view scene|camera|both, --camera -------------------------------------


@pytest.fixture(scope="module")
def camera_take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the demo reach take, shortened to 0.5 s, with its cameras."""
    return record_demo_take(
        tmp_path_factory.mktemp("cameras") / "reach_cam.fsr", "01_reach", duration_s=0.5
    )


@pytest.mark.parametrize(
    ("view", "panel", "size"),
    [
        ("scene", False, (160, 120)),
        ("camera", False, (160, 120)),
        ("both", False, (320, 120)),
        ("camera", True, (160 + 304, 120)),
        ("both", True, (320 + 304, 120)),
    ],
)
def test_view_sets_the_frame_size(
    camera_take: Path,
    qapp: Any,
    tmp_path: Path,
    view: str,
    panel: bool,
    size: tuple[int, int],
) -> None:
    model = open_recording(camera_take)
    out = tmp_path / "v.mp4"
    result = export_video_as(model, out, size=(160, 120), view=view, panel=panel)
    assert (result.width, result.height) == size
    frames, _ = _decode(out)
    assert {(f.width, f.height) for f in frames} == {size}


def test_camera_view_differs_from_the_scene_and_both_holds_each(
    camera_take: Path, qapp: Any
) -> None:
    from app.canvas.camera_canvas import CameraCanvas
    from app.canvas.qimage_arrays import qimage_to_rgb
    from app.headless.export.video import FrameSource

    model = open_recording(camera_take)
    middle = model.duration_s / 2
    options = {"size": (160, 120), "panel": False, "show_com": False}
    scene = FrameSource(model, shown(view="scene", **options)).render(middle)
    camera = FrameSource(model, shown(view="camera", **options)).render(middle)
    both = FrameSource(model, shown(view="both", camera="oblique", **options)).render(
        middle
    )
    assert scene.shape == camera.shape == (120, 160, 3)
    assert np.abs(scene.astype(int) - camera).mean() > 5.0
    np.testing.assert_array_equal(both[:, :160], scene)
    oblique = CameraCanvas(model, "oblique").render(middle, 160, 120)
    np.testing.assert_array_equal(both[:, 160:], qimage_to_rgb(oblique))
    first = CameraCanvas(model, model.cameras[0].name)
    np.testing.assert_array_equal(camera, qimage_to_rgb(first.render(middle, 160, 120)))


@pytest.mark.parametrize("view", ["camera", "both"])
def test_cli_camera_view_of_a_recording_without_cameras_exits_1(
    reach_take: Path, tmp_path: Path, cli: Cli, view: str
) -> None:
    run = cli(reach_take, "--export", tmp_path / "c.mp4", "--view", view)
    assert run.code == 1
    err = run.err.strip().splitlines()
    assert len(err) == 1
    assert str(reach_take) in err[0]
    assert "has no cameras" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_cli_unknown_camera_exits_1_listing_the_known_ones(
    camera_take: Path, tmp_path: Path, cli: Cli
) -> None:
    run = cli(
        *(camera_take, "--export-frame", "0.1", tmp_path / "c.png"),
        *("--view", "camera", "--camera", "top"),
    )
    assert run.code == 1
    assert "'top'" in run.err
    assert "known cameras: front, oblique" in run.err
    assert list(tmp_path.iterdir()) == []


def test_cli_both_view_with_panel(camera_take: Path, tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "both.gif"
    args = [camera_take, "--export", out, "--size", "100x80"]
    run = cli(*args, "--view", "both", "--panel", "--camera", "front")
    assert run.code == 0
    assert f"{out}: " in run.out
    frames, _ = _decode(out)
    assert (frames[0].width, frames[0].height) == (200 + 304, 80)


# -- --export-dir DIR --format: several recordings ----------------------------


def test_cli_export_dir_exports_each_file_and_reports_a_failure(
    reach_take: Path, camera_take: Path, tmp_path: Path, cli: Cli
) -> None:
    broken = _occupied(tmp_path / "broken.fsr", b"not a recording")
    out_dir = tmp_path / "out"
    args = ["--export-dir", out_dir, "--format", "gif", "--size", "64x48"]
    run = cli(reach_take, broken, camera_take, *args)
    assert run.code == 1
    assert sorted(p.name for p in out_dir.iterdir()) == ["reach.gif", "reach_cam.gif"]
    assert run.out.count(": 15 frames, 64x48") == 2
    errors = [line for line in run.err.splitlines() if "broken.fsr" in line]
    assert len(errors) == 1
    assert run.err.count(" frames\n") == 2  # one progress line per export
    for name in ("reach.gif", "reach_cam.gif"):
        frames, _ = _decode(out_dir / name)
        assert (frames[0].width, frames[0].height) == (64, 48)


def test_cli_export_dir_defaults_to_mp4_and_exits_0(
    reach_take: Path, camera_take: Path, tmp_path: Path, cli: Cli
) -> None:
    run = cli(
        *(reach_take, camera_take, "--export-dir", tmp_path),
        *("--size", "64x48", "--end", "0.1"),
    )
    assert run.code == 0
    assert run.err.count("frames\n") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reach.mp4", "reach_cam.mp4"]


def test_stem_drops_the_recording_suffixes() -> None:
    from app.headless.export.command import stem

    assert stem(Path("/x/run.fsr")) == "run"
    assert stem(Path("run.sklog.npz")) == "run"
    assert stem(Path("run.v2.FSR")) == "run.v2"
