"""Benchmark the MuJoCo adapter: simulation speed, recording overhead, render cost.

For each example scene (``examples/mujoco/*.toml``, as shipped) it measures:

- bare simulation: the scene's model stepped with its authored control
  (``mj_step`` only, nothing recorded), in steps per second;
- recording: ``record_mujoco_run`` into a temporary file, once without
  cameras and once as shipped (cameras included), in steps per second and as
  a multiple of the bare simulation's time (the recording overhead); a
  one-step recording gives the fixed part (compiling the model, opening,
  sealing and reading back the file), so the per-step overhead is shown too;
- offscreen rendering of the scene's first camera, in milliseconds per
  frame: at its recorded size with the renderer defaults (shadows,
  reflections and multisampling off), and at 640x480 (the size of the limit
  in docs/performance.md, printed beside it) with the defaults and with each of
  them switched on;
- the player's 3D scene (``GeometryCanvas``) painted at 640x480 with Qt's
  offscreen platform, in milliseconds per frame;
- the two replays of the shipped recording: render (frames per second) and
  resimulate (steps per second).

Each figure is the best of ``--repeats`` runs (``time.perf_counter``); the
machine is shared, so the best run is the one least disturbed. MuJoCo renders
with ``MUJOCO_GL`` (EGL, else OSMesa, when unset). ``--json`` prints one JSON
object.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from fsr_core.simulators.mujoco.runtime import select_gl_backend

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

EXAMPLES: Final = Path(__file__).resolve().parents[1] / "examples" / "mujoco"
SCENES: Final = ("reach_arm", "contacts")
LIMIT_SIZE: Final = (640, 480)
RENDER_LIMIT: Final = (
    "docs/performance.md: 8-16 ms all off, 60-110 ms with MuJoCo's defaults"
)
SCENE_PAINT_LIMIT: Final = "a frame at 60 Hz is 16.7 ms"
_APPS: list[Any] = []  # keeps the QGuiApplication alive
RENDER_VARIANTS: Final[dict[str, dict[str, Any]]] = {
    "default (all off)": {},
    "shadows": {"shadows": True},
    "reflections": {"reflections": True},
    "multisamples 4": {"multisamples": 4},
    "all on": {"shadows": True, "reflections": True, "multisamples": 4},
}


def _best(repeats: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(repeats))


def _bare_seconds(scenario: Any) -> tuple[float, int]:
    from fsr_core.simulators.mujoco.control import ControlPlayback, authored_chunks
    from fsr_core.simulators.mujoco.model_session import load_model

    loaded = load_model(dataclasses.replace(scenario, cameras=()))
    mujoco, model, data = loaded.mujoco, loaded.model, loaded.data
    dt_s = float(model.opt.timestep)
    ticks = max(1, round(scenario.duration_s / dt_s))
    playback = ControlPlayback(
        authored_chunks(scenario.control, loaded.actuators), loaded.actuators
    )
    started = time.perf_counter()
    for tick in range(ticks):
        playback.submit_due(tick * dt_s)
        playback.apply(tick * dt_s, data.ctrl)
        mujoco.mj_step(model, data)
    return time.perf_counter() - started, ticks


def _record_seconds(scenario: Any, folder: Path) -> float:
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run

    path = folder / f"run-{time.perf_counter_ns()}.fsr"
    started = time.perf_counter()
    record_mujoco_run(scenario, path)
    elapsed = time.perf_counter() - started
    path.unlink()
    return elapsed


def _render_ms(
    scenario: Any, frames: int, size: tuple[int, int] | None, **settings: Any
) -> float:
    from fsr_core.simulators.mujoco.cameras import CameraRig
    from fsr_core.simulators.mujoco.model_session import load_model

    camera = scenario.cameras[0]
    if size is not None:
        camera = dataclasses.replace(camera, width=size[0], height=size[1])
    render = dataclasses.replace(scenario.render, **settings)
    scenario = dataclasses.replace(scenario, render=render, cameras=(camera,))
    loaded = load_model(scenario)
    rig = CameraRig(loaded, (camera,), render)
    try:
        rig.render(camera.name)  # the GL context and buffers are made here
        started = time.perf_counter()
        for _ in range(frames):
            loaded.mujoco.mj_step(loaded.model, loaded.data)
            rig.render(camera.name)
        return 1000.0 * (time.perf_counter() - started) / frames
    finally:
        rig.close()


def _scene_paint_ms(source: Path, frames: int) -> float:
    """Paint the player's 3D scene (GeometryCanvas) at 640x480, ms per frame."""
    from PySide6.QtGui import QGuiApplication

    from app.canvas.geometry_canvas import GeometryCanvas
    from fsr_core.sources.fsr import load_fsr

    if QGuiApplication.instance() is None:
        _APPS.append(QGuiApplication([]))
    model = load_fsr(source)
    canvas = GeometryCanvas(model)
    times = [model.duration_s * i / max(frames - 1, 1) for i in range(frames)]
    canvas.render(times[0], *LIMIT_SIZE)
    started = time.perf_counter()
    for play_time_s in times:
        canvas.render(play_time_s, *LIMIT_SIZE)
    return 1000.0 * (time.perf_counter() - started) / frames


def _replay_seconds(source: Path, folder: Path, mode: str) -> float:
    from fsr_core.replay.engine import replay_file
    from fsr_core.simulation.protocol import ReplayMode, ReplayOptions

    output = folder / f"{mode}-{time.perf_counter_ns()}.fsr"
    started = time.perf_counter()
    replay_file(source, output, ReplayOptions(ReplayMode(mode)))
    elapsed = time.perf_counter() - started
    output.unlink()
    return elapsed


def bench_scene(name: str, repeats: int, frames: int, folder: Path) -> dict[str, Any]:
    """Measure one example scene; return its figures."""
    from fsr_core.format.reader import FsrReader
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    scenario = load_mujoco_scenario(EXAMPLES / f"{name}.toml")
    bare_s, ticks = min(_bare_seconds(scenario) for _ in range(repeats))
    plain = dataclasses.replace(scenario, cameras=())
    one_step = dataclasses.replace(plain, duration_s=1e-6)
    setup_s = _best(repeats, lambda: _record_seconds(one_step, folder))
    no_cameras_s = _best(repeats, lambda: _record_seconds(plain, folder))
    shipped_s = _best(repeats, lambda: _record_seconds(scenario, folder))
    render = {
        label: _best(
            repeats,
            functools.partial(_render_ms, scenario, frames, LIMIT_SIZE, **settings),
        )
        for label, settings in RENDER_VARIANTS.items()
    }
    recorded_size_ms = _best(
        repeats, functools.partial(_render_ms, scenario, frames, None)
    )
    source = folder / f"{name}.fsr"
    record_mujoco_run(scenario, source)
    with FsrReader.open(source) as reader:
        render_frames = reader.streams["render.state"].record_count
    rerender_s = _best(repeats, lambda: _replay_seconds(source, folder, "render"))
    resimulate_s = _best(repeats, lambda: _replay_seconds(source, folder, "resimulate"))
    camera = scenario.cameras[0]
    return {
        "scene": name,
        "steps": ticks,
        "cameras": [
            f"{c.name} {c.width}x{c.height} @ {c.rate_hz:g} Hz"
            for c in scenario.cameras
        ],
        "bare_steps_per_s": ticks / bare_s,
        "recorded_no_cameras_steps_per_s": ticks / no_cameras_s,
        "recorded_steps_per_s": ticks / shipped_s,
        "overhead_no_cameras_x": no_cameras_s / bare_s,
        "record_setup_s": setup_s,
        "per_step_overhead_no_cameras_x": (no_cameras_s - setup_s) / bare_s,
        "overhead_x": shipped_s / bare_s,
        "render_camera": f"{camera.name} {camera.width}x{camera.height}",
        "render_recorded_size_ms": recorded_size_ms,
        "render_ms_per_frame": render,
        "scene_paint_ms": _best(repeats, lambda: _scene_paint_ms(source, frames)),
        "rerender_frames_per_s": render_frames / rerender_s,
        "resimulate_steps_per_s": ticks / resimulate_s,
    }


def _print_table(results: Sequence[dict[str, Any]]) -> None:
    for result in results:
        print(f"{result['scene']}: {result['steps']} steps, cameras "
              f"{', '.join(result['cameras'])}")  # fmt: skip
        print(f"  bare simulation        {result['bare_steps_per_s']:10.0f} steps/s")
        plain = result["recorded_no_cameras_steps_per_s"]
        print(
            f"  recorded, no cameras   {plain:10.0f}"
            f" steps/s  ({result['overhead_no_cameras_x']:.1f}x the bare time)"
        )
        print(
            f"  of which setup and finish (compile, open, seal, read back) "
            f"{result['record_setup_s'] * 1000:.0f} ms; per step "
            f"{result['per_step_overhead_no_cameras_x']:.1f}x the bare step"
        )
        print(
            f"  recorded, as shipped   {result['recorded_steps_per_s']:10.0f}"
            f" steps/s  ({result['overhead_x']:.1f}x the bare time)"
        )
        print(
            f"  render {result['render_camera']} (recorded size, all off): "
            f"{result['render_recorded_size_ms']:.2f} ms/frame"
        )
        print(f"  render {LIMIT_SIZE[0]}x{LIMIT_SIZE[1]} ({RENDER_LIMIT}):")
        default = result["render_ms_per_frame"]["default (all off)"]
        for label, ms in result["render_ms_per_frame"].items():
            extra = "" if ms is default else f"  ({ms - default:+.2f} ms)"
            print(f"    {label:<20} {ms:7.2f} ms/frame{extra}")
        print(
            f"  player scene paint     {result['scene_paint_ms']:10.2f} ms/frame at "
            f"{LIMIT_SIZE[0]}x{LIMIT_SIZE[1]} ({SCENE_PAINT_LIMIT})"
        )
        print(
            f"  re-render replay       {result['rerender_frames_per_s']:10.1f} frames/s"
        )
        print(
            f"  resimulate replay      {result['resimulate_steps_per_s']:10.0f} steps/s"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", choices=SCENES, action="append")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frames", type=int, default=60, help="frames per render")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    select_gl_backend()
    from fsr_core.simulators.mujoco.runtime import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        print(f"bench_mujoco: MuJoCo is unavailable: {reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-mujoco-") as folder:
        results = [
            bench_scene(name, max(args.repeats, 1), max(args.frames, 1), Path(folder))
            for name in args.scene or SCENES
        ]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
