"""Benchmark the player window: how long a seek takes to show on every view.

The window is built offscreen at 1280x720 on a recording made for the
purpose (written first into a temporary folder): the 02_multi_target demo
take's arm, task and 640x480 camera, stretched to 100,000 state samples
(``--samples``) with one camera frame every ``--camera-every`` samples, and
three plots open (joint angles, joint speeds, tip position) of 100k-point
series each.

It then seeks to ``--seeks`` random play times (seeded) and, for each, times
from the seek until every view shows the new time: the timeline handle, the
transport readout, the side panel, the plot cursors, the scene, and the
camera frame recorded at that time, decoded on the worker pool as in normal
use. The window is repainted synchronously (``QWidget.repaint``) after the
event loop delivered what was pending, until every view reports the new
time. Times come from ``time.perf_counter``. ``--quick`` is a tiny run
(for the tests); ``--json`` prints the figures as one JSON object.

``--robot`` times the same seeks on a meshed robot instead: the ROS 2 MCAP of
``tests/data/mcap`` (3 s of a Franka's ``/joint_states`` at 100 Hz) drawn
with pybullet_data's Franka URDF (103,000 triangles), the scene filling the
window but for the side panel, no camera and no plot.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WINDOW_SIZE: Final = (1280, 720)
TARGET_MEDIAN_MS: Final = 16.0
TAKE: Final = "02_multi_target"
ARM: Final = "observations.arm"
CAMERA: Final = "front"
PLOTS: Final = (
    (f"{ARM}[q0]", f"{ARM}[q1]", f"{ARM}[q2]"),
    (f"{ARM}[dq0]", f"{ARM}[dq1]", f"{ARM}[dq2]"),
    (f"{ARM}[tip_x]", f"{ARM}[tip_y]"),
)
#: Longest wait for one seek to show, in seconds (a hung view fails the run).
SEEK_TIMEOUT_S: Final = 30.0


@dataclass(frozen=True)
class Figures:
    """What one run measured."""

    seeks: int
    """Seeks timed (each one from the request to the picture shown)."""
    median_ms: float
    p95_ms: float
    max_ms: float
    target_median_ms: float
    meets_target: bool
    samples: int
    camera_frames: int
    plot_points: int
    window: str
    triangles: int = 0
    """Triangles of the robot drawn (``--robot``), else 0."""


def _record_take(folder: Path) -> Path:
    """Record one second of the demo take with its 640x480 front camera."""
    from fsr_core.simulators.planar_arm.demos import _take_documents
    from fsr_core.simulators.planar_arm.recorder import record_run
    from fsr_core.simulators.planar_arm.scenario import Scenario

    document = _take_documents()[TAKE]
    document["duration_s"] = 1.0
    document["cameras"] = [
        camera for camera in document["cameras"] if camera["name"] == CAMERA
    ]
    path = folder / f"{TAKE}_1s.fsr"
    record_run(Scenario.from_json(document), path)
    return path


def _ping_pong(count: int, length: int) -> list[int]:
    """Return ``count`` indices going 0..length-1 forward then back, repeated."""
    period = max(2 * (length - 1), 1)
    return [
        step if step < length else period - step
        for step in (i % period for i in range(count))
    ]


def write_bench_recording(
    folder: Path, *, samples: int, camera_every: int
) -> tuple[Path, int]:
    """Write the benchmark's recording into ``folder``; return it and its frames.

    The short take's arm samples and camera frames are played forward and
    back (so the motion stays continuous) up to ``samples`` state samples.
    """
    from fsr_core import FsrReader, FsrWriter
    from fsr_core.format.catalog import camera_streams

    take = _record_take(folder)
    camera = f"sensors.{CAMERA}.camera"
    with FsrReader.open(take) as reader:
        metadata = reader.metadata
        specs = [
            reader.streams[name].spec
            for name in ("run.lifecycle", ARM, "task.context", "events")
        ]
        _, _, arm_values = reader.read_series(ARM)
        arm_times = reader.rows(ARM)["sim_time_s"]
        task = [
            (r.tick, r.sim_time_s, r.decoded)
            for r in reader.iter_records(specs[2].name)
        ]
        events = [
            (r.tick, r.sim_time_s, r.decoded) for r in reader.iter_records("events")
        ]
        frames = [frame.decoded for frame in reader.iter_media(CAMERA)]
        calibration = reader.calibration(CAMERA, generation=0, tick=0)
    dt_s = float(arm_times[1] - arm_times[0])
    rate_hz = 1.0 / (dt_s * camera_every)
    specs += camera_streams(CAMERA, width=640, height=480, rate_hz=rate_hz)
    path = folder / "bench_gui.fsr"
    rows = _ping_pong(samples, len(arm_values))
    shots = _ping_pong(math.ceil(samples / camera_every), len(frames))
    pose = calibration.pose
    if pose is None:
        raise RuntimeError(f"{take}: the {CAMERA} camera has no extrinsics")
    with FsrWriter(path, specs, metadata=metadata) as writer:
        writer.write("run.lifecycle", {"event": "start"}, tick=0, sim_time_s=0.0)
        writer.write(
            f"{camera}.intrinsics", calibration.profile, tick=0, sim_time_s=0.0
        )
        for tick, time_s, value in task:
            writer.write("task.context", value, tick=tick, sim_time_s=time_s)
        for tick, time_s, value in events:
            writer.write("events", value, tick=tick, sim_time_s=time_s)
        for tick, row in enumerate(rows):
            time_s = tick * dt_s
            writer.write(ARM, arm_values[row], tick=tick, sim_time_s=time_s)
            if tick % camera_every == 0:
                image = frames[shots[tick // camera_every]]
                writer.write(f"{camera}.rgb", image, tick=tick, sim_time_s=time_s)
                writer.write(
                    f"{camera}.extrinsics.translation",
                    pose.translation_m,
                    tick=tick,
                    sim_time_s=time_s,
                )
                writer.write(
                    f"{camera}.extrinsics.quaternion_xyzw",
                    pose.quaternion_xyzw,
                    tick=tick,
                    sim_time_s=time_s,
                )
        last = len(rows) - 1
        end = last * dt_s
        writer.write(
            "run.lifecycle",
            {"event": "terminal_semantic_cut"},
            tick=last,
            sim_time_s=end,
        )
    return path, len(shots)


def _settle(app: Any, ready: Callable[[], bool], deadline_s: float) -> None:
    """Run the event loop until ``ready()``, sleeping until events come."""
    from PySide6.QtCore import QEventLoop, QTimer

    while not ready():
        if time.perf_counter() > deadline_s:
            raise TimeoutError("a view never showed the sought time")
        QTimer.singleShot(20, app, lambda: None)  # wakes the wait at the latest
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)


def _frames_landed(window: Any) -> bool:
    return all(
        view.wanted_index is None or view.shown_index == view.wanted_index
        for view in window.camera_area.views
    )


def _showing(window: Any, play_time_s: float) -> bool:
    """Whether every view of ``window`` has drawn ``play_time_s``."""
    from app.window.widgets.transport import time_readout

    clock = window.session.clock
    frames_ok = all(
        view.wanted_index is None
        or view.painted_index == view.shown_index == view.wanted_index
        for view in window.camera_area.views
    )
    readout = time_readout(clock, window.session.model, play_time_s)
    return (
        clock.position_s == play_time_s
        and frames_ok
        and window.timeline.painted_s == play_time_s
        and window.transport.readout.text() == readout
        and window.side_panel.shown_s == play_time_s
        and window.scene_view.painted_s == play_time_s
        and all(x == play_time_s for x in window.plots.cursor_positions())
    )


def _time_seek(app: Any, window: Any, play_time_s: float) -> float:
    """Seek and return the seconds until every view showed the new time.

    As in normal use: the seek marks the views dirty and starts the camera
    frame's decode on the pool; the event loop then paints the views once
    (Qt coalesces their updates) and the camera views again when the frame
    lands. Nothing is repainted by hand.
    """
    clock = window.session.clock
    start = time.perf_counter()
    clock.seek(play_time_s)
    _settle(
        app,
        lambda: _showing(window, clock.position_s),
        start + SEEK_TIMEOUT_S,
    )
    return time.perf_counter() - start


_DATA: Final = Path(__file__).resolve().parent.parent / "tests" / "data"
ROBOT_RECORDING: Final = _DATA / "mcap" / "panda_description.mcap"
ROBOT: Final = _DATA / "robots" / "franka_panda" / "panda.urdf"


def _open_window(app: Any, path: Path, folder: Path, *, robot: bool = False) -> Any:
    from PySide6.QtCore import QSettings

    from app.window.main_window import MainWindow
    from app.window.state.session import PlayerSession
    from app.window.workers import run_inline
    from fsr_core.robots import RobotRequest
    from fsr_core.sources import OpenOptions

    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    session = PlayerSession(runner=run_inline, check_runner=run_inline)
    if robot:
        session.set_open_options(OpenOptions(robot=RobotRequest(path=ROBOT)))
    window = MainWindow(session=session, settings=settings)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.open_files([path])
    window.session.options.update(plots=() if robot else PLOTS)
    window.resize(*WINDOW_SIZE)
    deadline = time.perf_counter() + SEEK_TIMEOUT_S
    _settle(app, lambda: window.session.model is not None, deadline)
    app.processEvents()
    window.repaint()
    return window


def run(
    samples: int, camera_every: int, seeks: int, seed: int, *, robot: bool = False
) -> Figures:
    """Build the recording and the window, time the seeks; return the figures."""
    from app.canvas.qt_app import ensure_app

    app = ensure_app(headless=True)
    with tempfile.TemporaryDirectory(prefix="bench_gui_") as name:
        folder = Path(name)
        if robot:
            path, camera_frames = ROBOT_RECORDING, 0
        else:
            path, camera_frames = write_bench_recording(
                folder, samples=samples, camera_every=camera_every
            )
        window = _open_window(app, path, folder, robot=robot)
        try:
            duration_s = window.session.clock.duration_s
            chooser = random.Random(seed)
            times = [chooser.uniform(0.0, duration_s) for _ in range(seeks)]
            _time_seek(app, window, times[0])  # warm-up: first decode opens a reader
            elapsed = [_time_seek(app, window, t) for t in times]
            width, height = window.width(), window.height()
            model = window.session.model
            points = 0 if robot else len(model.channels[ARM].times_s)
            geometry = model.geometry
            triangles = (
                sum(len(mesh.faces) for mesh in geometry.meshes)
                if robot and geometry is not None
                else 0
            )
            samples = (
                len(model.channels[model.joints.positions].times_s)
                if robot
                else samples
            )
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
    millis = sorted(1000.0 * seconds for seconds in elapsed)
    median = statistics.median(millis)
    p95 = millis[min(len(millis) - 1, math.ceil(0.95 * len(millis)) - 1)]
    return Figures(
        seeks=len(millis),
        median_ms=round(median, 2),
        p95_ms=round(p95, 2),
        max_ms=round(millis[-1], 2),
        target_median_ms=TARGET_MEDIAN_MS,
        meets_target=median <= TARGET_MEDIAN_MS,
        samples=samples,
        camera_frames=camera_frames,
        plot_points=points,
        window=f"{width}x{height}",
        triangles=triangles,
    )


def _table(figures: Figures) -> str:
    verdict = "meets" if figures.meets_target else "MISSES"
    shown = (
        f"a robot of {figures.triangles:,} triangles posed by "
        f"{figures.samples} joint samples"
        if figures.triangles
        else f"{figures.samples} state samples, {figures.camera_frames} camera "
        f"frames (640x480 JPEG), 3 plots of {figures.plot_points} points"
    )
    return "\n".join(
        [
            f"window {figures.window}, {shown}",
            f"seek until every view shows it, {figures.seeks} random seeks:",
            f"  median {figures.median_ms:8.2f} ms   (target <= "
            f"{figures.target_median_ms:.0f} ms: {verdict})",
            f"  p95    {figures.p95_ms:8.2f} ms",
            f"  max    {figures.max_ms:8.2f} ms",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the figures; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--camera-every", type=int, default=150)
    parser.add_argument("--seeks", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tiny run (tests)")
    parser.add_argument(
        "--robot", action="store_true", help="seek a Franka of 103k triangles instead"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.samples, args.camera_every, args.seeks = 2000, 50, 10
    figures = run(
        args.samples, args.camera_every, args.seeks, args.seed, robot=args.robot
    )
    print(json.dumps(asdict(figures)) if args.json else _table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
