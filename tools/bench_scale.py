"""Benchmark how the viewer's memory scales with the length of one recording.

Writes two FSR recordings of the same kind, one short (``--short-minutes``,
default 1) and one long (``--minutes``, default 60): a 1 kHz numeric stream
of 7 joints and a 30 Hz 640x480 JPEG camera (the frames cycle through a few
pre-encoded pictures, so writing is fast; reading decodes each one). For each,
a fresh process opens it, scrubs 100 random positions (the camera frame and
the panel values there, as the window does), plots the joints (the whole run,
then 20 random 10 s zooms), then exports 10 s of video with the camera and
the panel, and reports its peak resident memory after each step. The goal
(issue: one recording of any size): the long recording's peak is at most
1.2x the short one's and at most 500 MB.

With ``--screenshot`` it measures opening a finished planar-arm take instead:
it records the demo reach take (two cameras) lasting 20 s and 200 s with the
built-in simulator, then takes ``fsr-viewer TAKE --screenshot`` of each in a
fresh process ``--runs`` times and prints each peak resident memory, the
median of each and their ratio. The goal (issue 42): the 200 s take's peak is
at most 1.2x the 20 s take's.

    .venv/bin/python tools/bench_scale.py [--minutes 60] [--short-minutes 1]
        [--keep DIR]
    .venv/bin/python tools/bench_scale.py --screenshot [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from bench_common import camera_profile, numbers_parser, write_jpeg
from fsr_core.format.catalog import camera_streams, numeric_stream
from fsr_core.format.writer import FsrWriter

JOINTS_HZ: Final = 1000
CAMERA_HZ: Final = 30
WIDTH, HEIGHT = 640, 480
CAMERA: Final = "front"
JOINTS: Final = "observations.arm"
TARGET_RATIO: Final = 1.2
TARGET_MB: Final = 500.0
SHOT_TAKE: Final = "01_reach"
SHOT_SECONDS: Final = (20.0, 200.0)


def _jpegs(count: int = 8) -> list[bytes]:
    from PIL import Image

    made = []
    y = np.linspace(0, 255, HEIGHT, dtype=np.float32)[:, None]
    x = np.linspace(0, 255, WIDTH, dtype=np.float32)[None, :]
    for number in range(count):
        shade = np.full((HEIGHT, WIDTH), 30 * number % 256, np.float32)
        picture = np.stack([x + 0 * y, y + 0 * x, shade], axis=-1).astype(np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(picture).save(buffer, format="JPEG", quality=85)
        made.append(buffer.getvalue())
    return made


def write_recording(path: Path, minutes: float) -> None:
    """Write ``minutes`` of 1 kHz joints and a 30 Hz camera to ``path``."""
    joints = numeric_stream(JOINTS, [f"q{i}" for i in range(7)], "rad")
    rgb, intrinsics = camera_streams(
        CAMERA, width=WIDTH, height=HEIGHT, rate_hz=CAMERA_HZ
    )[:2]
    jpegs = _jpegs()
    ticks = int(minutes * 60 * JOINTS_HZ)
    per_frame = JOINTS_HZ // CAMERA_HZ
    phases = np.arange(7, dtype=np.float64)
    metadata = {"run": {"name": f"bench_scale_{minutes:g}min"}}
    with FsrWriter(path, [joints, rgb, intrinsics], metadata=metadata) as out:
        profile = camera_profile(WIDTH, HEIGHT)
        out.write(intrinsics.name, profile, tick=0, sim_time_s=0.0)
        frame = 0
        for tick in range(ticks):
            time_s = tick / JOINTS_HZ
            out.write(
                joints.name, np.sin(time_s + phases), tick=tick, sim_time_s=time_s
            )
            if tick % per_frame == 0:
                write_jpeg(out, rgb.name, jpegs, frame, tick=tick, sim_time_s=time_s)
                frame += 1


def _peak_mb() -> float:
    """Peak resident memory of this process so far (Linux: ``VmHWM``).

    Not ``getrusage``'s ``ru_maxrss``: Linux carries a parent's peak into a
    child over fork and exec, so a child started after the long file was
    written reported the writer's peak.
    """
    try:
        with Path("/proc/self/status").open(encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(path: Path, video: Path) -> dict[str, Any]:
    """In this process: open, scrub, export; return the peak RSS after each step."""
    from app.canvas.panel_rows import row_values, rows_for
    from app.cli import main as cli_main
    from fsr_core.sources import open_recording

    figures: dict[str, Any] = {"start_mb": _peak_mb()}
    started = time.perf_counter()
    model = open_recording(path)
    figures["open_s"] = time.perf_counter() - started
    figures["open_mb"] = _peak_mb()
    track = model.cameras[0]
    rows = rows_for(model)
    rng = random.Random(3)
    started = time.perf_counter()
    for _ in range(100):
        time_s = rng.uniform(0.0, model.duration_s)
        index = track.index_at(time_s)
        if index is not None:
            track.fetch(index)
        row_values(model, rows, time_s)
    figures["scrub_s"] = time.perf_counter() - started
    figures["scrub_mb"] = _peak_mb()
    # A plot of the joints: the whole run, then zoomed to 10 s at 20 places
    # (a long channel draws its overview, and reads the samples zoomed in).
    channel = model.channels[JOINTS]
    started = time.perf_counter()
    if channel.prefers_overview:
        channel.overview()
    else:
        _ = channel.values
    for _ in range(20):
        start_s = rng.uniform(0.0, max(model.duration_s - 10.0, 0.0))
        channel.span(start_s, start_s + 10.0, 200_000)
    figures["plot_s"] = time.perf_counter() - started
    figures["plot_mb"] = _peak_mb()
    end_s = min(10.0, model.duration_s)
    del model
    started = time.perf_counter()
    code = cli_main(
        [
            str(path),
            "--export",
            str(video),
            "--start",
            "0",
            "--end",
            f"{end_s:g}",
            "--view",
            "camera",
            "--panel",
            "--size",
            "320x240",
            "--overwrite",
        ]
    )
    figures["export_s"] = time.perf_counter() - started
    figures["export_code"] = code
    figures["peak_mb"] = _peak_mb()
    return figures


def _measure_in_child(path: Path, video: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", str(path), str(video)],
        check=True,
        capture_output=True,
        text=True,
    )
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def write_take(path: Path, seconds: float) -> None:
    """Record the demo reach take, lasting ``seconds``, to ``path``."""
    from fsr_core.simulators.planar_arm.demos import demo_scenario
    from fsr_core.simulators.planar_arm.recorder import record_run

    scenario = demo_scenario(SHOT_TAKE)
    name = f"{scenario.name}_{seconds:g}s"
    record_run(replace(scenario, duration_s=seconds, name=name), path)


def measure_screenshot(take: Path, picture: Path) -> float:
    """In this process: ``fsr-viewer TAKE --screenshot PICTURE``; its peak in MB."""
    import os

    from app.cli import main as cli_main

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    code = cli_main([str(take), "--screenshot", str(picture), "--overwrite"])
    if code != 0:
        raise SystemExit(f"screenshot of {take} failed ({code})")
    return _peak_mb()


def _screenshot_in_child(take: Path, picture: Path) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--measure-screenshot", str(take), str(picture)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def _write_once(
    path: Path,
    write: Callable[[Path, float], None],
    length: float,
    verb: str,
    size_text: Callable[[int], str],
) -> None:
    """Call ``write(path, length)`` unless ``path`` is there; say its size and time.

    ``size_text`` words the written file's size in bytes.
    """
    if path.exists():
        return
    started = time.perf_counter()
    write(path, length)
    print(
        f"{verb} {path.name} ({size_text(path.stat().st_size)}) in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )


def screenshot_scaling(folder: Path, runs: int) -> None:
    """Record both takes (or reuse them), measure each screenshot, print the ratio."""
    medians = []
    for seconds in SHOT_SECONDS:
        take = folder / f"reach_{seconds:g}s.fsr"
        _write_once(
            take, write_take, seconds, "recorded", lambda size: f"{size / 1e6:.0f} MB"
        )
        peaks = [
            _screenshot_in_child(take, folder / f"reach_{seconds:g}s.png")
            for _ in range(runs)
        ]
        medians.append(statistics.median(peaks))
        shown = ", ".join(f"{peak:.0f}" for peak in peaks)
        print(
            f"{seconds:5g} s take {take.stat().st_size / 1e6:5.0f} MB: screenshot "
            f"peak RSS {shown} MB (median {medians[-1]:.0f} MB)",
            flush=True,
        )
    ratio = medians[1] / medians[0]
    print(
        f"screenshot peak RSS {SHOT_SECONDS[1]:g} s / {SHOT_SECONDS[0]:g} s: "
        f"{ratio:.2f}x (target <= {TARGET_RATIO}x)"
    )


def _row(name: str, size_gb: float, figures: dict[str, Any]) -> str:
    return (
        f"{name:<7} {size_gb:6.2f} GB  open {figures['open_s']:6.2f} s "
        f"{figures['open_mb']:7.1f} MB  scrub {figures['scrub_s']:6.2f} s "
        f"{figures['scrub_mb']:7.1f} MB  plot {figures['plot_s']:6.2f} s "
        f"{figures['plot_mb']:7.1f} MB  export 10 s {figures['export_s']:6.2f} s "
        f"peak {figures['peak_mb']:7.1f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    """Write both recordings, measure each in a fresh process, print the ratio."""
    parser = numbers_parser(__doc__, {"--minutes": 60.0, "--short-minutes": 1.0})
    parser.add_argument("--keep", type=Path, help="write (and reuse) the files here")
    parser.add_argument(
        "--screenshot",
        action="store_true",
        help="measure screenshots of a 20 s and a 200 s planar-arm take instead",
    )
    parser.add_argument("--runs", type=int, default=3, help="screenshots per take")
    parser.add_argument("--measure", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--measure-screenshot", nargs=2, type=Path, help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(measure(*args.measure)))
        return 0
    if args.measure_screenshot is not None:
        print(measure_screenshot(*args.measure_screenshot))
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if args.screenshot:
            screenshot_scaling(folder, max(args.runs, 1))
            return 0
        rows = {}
        for name, minutes in (("short", args.short_minutes), ("long", args.minutes)):
            path = folder / f"scale_{minutes:g}min.fsr"
            _write_once(
                path,
                write_recording,
                minutes,
                "wrote",
                lambda size: f"{size / 1e9:.2f} GB",
            )
            figures = _measure_in_child(path, folder / f"{name}.mp4")
            rows[name] = figures
            print(_row(name, path.stat().st_size / 1e9, figures), flush=True)
        ratio = rows["long"]["peak_mb"] / rows["short"]["peak_mb"]
        print(
            f"peak RSS long / short: {ratio:.2f}x (target <= {TARGET_RATIO}x); "
            f"long peak {rows['long']['peak_mb']:.0f} MB (target <= {TARGET_MB:.0f} MB)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
