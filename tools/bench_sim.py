"""Measure what recording costs beside simulating: the built-in simulator's demo takes.

For each take it times, in one run, the same loop three ways:

- ``simulate``: dynamics, controller and chunk playback only;
- ``+ render``: the same plus the software cameras' renders at their rates;
- ``record``: the full ``record_run`` to FSR (JPEG encoding on the writer's
  worker threads, batching, fsync, publish and read-back included),

and prints the wall times, simulated-seconds per wall-second, and the
recording overhead ``record / (simulate + render)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.simulators.planar_arm.controllers import controller_from_json
from fsr_core.simulators.planar_arm.demos import DEMO_NAMES, demo_takes
from fsr_core.simulators.planar_arm.integrator import step
from fsr_core.simulators.planar_arm.planning import plan_chunks
from fsr_core.simulators.planar_arm.recorder import ExternalPush, _force_at, record_run
from fsr_core.simulators.planar_arm.render import render_rgb
from fsr_core.simulators.planar_arm.scenario import Scenario
from fsr_core.simulators.planar_arm.scene_capture import SceneCapture
from fsr_core.simulators.planar_arm.tasks import task_from_json


def _loop(scenario: Scenario, pushes: Sequence[ExternalPush], *, render: bool) -> float:
    started = time.perf_counter()
    model, dt = scenario.model, scenario.dt_s
    task = task_from_json(scenario.task)
    capture = SceneCapture(scenario, writer=None)  # type: ignore[arg-type]
    state = scenario.initial.copy()
    controller = controller_from_json(scenario.controller)
    controller.reset(model, state)
    chunks = plan_chunks(
        task, model, state.q.copy(), str(scenario.controller["kind"]),
        duration_s=scenario.duration_s, dt_s=dt,
    )  # fmt: skip
    pending = list(chunks)
    for tick in range(scenario.ticks):
        time_s = tick * dt
        while pending and pending[0].start_sim_time_s <= time_s + 1e-12:
            controller.submit(pending.pop(0))
        output = controller.torque(time_s, state)
        force = _force_at(time_s, 0, scenario, pushes)
        if render:
            due = [camera for camera in capture.cameras if camera.schedule.due(tick)]
            if due:
                scene = capture.scene(state, task, task.active_target(time_s), force)
                for camera in due:
                    profile, _ = camera.profile_at(time_s)
                    render_rgb(scene, profile, camera.pose)
        step(model, state, output.tau, dt, tip_force=force)
    return time.perf_counter() - started


def _record(scenario: Scenario, pushes: Sequence[ExternalPush]) -> tuple[float, int]:
    """Best of two full recordings: wall seconds and file size."""
    times, size = [], 0
    with tempfile.TemporaryDirectory() as folder:
        for attempt in range(2):
            path = Path(folder) / f"run-{attempt}.fsr"
            started = time.perf_counter()
            result = record_run(scenario, path, external_pushes=pushes)
            times.append(time.perf_counter() - started)
            size = result.published.size_bytes
    return min(times), size


def _measure(
    name: str, scenario: Scenario, pushes: Sequence[ExternalPush]
) -> dict[str, Any]:
    simulate = min(_loop(scenario, pushes, render=False) for _ in range(2))
    rendered = min(_loop(scenario, pushes, render=True) for _ in range(2))
    record, size = _record(scenario, pushes)
    numeric, _ = _record(dataclasses.replace(scenario, cameras=()), pushes)
    ticks = scenario.ticks * (len(scenario.resets) + 1)
    return {
        "record_without_cameras_s": numeric,
        "logging_us_per_tick": (numeric - simulate) / ticks * 1e6,
        "take": name,
        "sim_seconds": scenario.duration_s * (len(scenario.resets) + 1),
        "ticks": scenario.ticks,
        "simulate_s": simulate,
        "render_s": rendered - simulate,
        "record_s": record,
        "file_bytes": size,
        "overhead_vs_simulate_and_render": record / rendered,
        "overhead_vs_simulate": record / simulate,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurements and print the table (or JSON)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--take", action="append", choices=DEMO_NAMES)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [
        _measure(take.name, take.scenario, take.external_pushes)
        for take in demo_takes()
        if take.name in (args.take or DEMO_NAMES)
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'take':<28} {'simulate':>9} {'render':>8} {'record':>8} "
        f"{'record/(sim+render)':>20} {'no-camera record':>17} {'us/tick':>8} {'MB':>6}"
    )
    for row in rows:
        print(
            f"{row['take']:<28} {row['simulate_s']:>8.2f}s {row['render_s']:>7.2f}s "
            f"{row['record_s']:>7.2f}s "
            f"{row['overhead_vs_simulate_and_render']:>19.2f}x "
            f"{row['record_without_cameras_s']:>16.2f}s "
            f"{row['logging_us_per_tick']:>8.0f} {row['file_bytes'] / 1e6:>6.1f}"
        )
    ratios = np.array([row["overhead_vs_simulate_and_render"] for row in rows])
    print(f"median: recording takes {np.median(ratios):.2f}x simulating and rendering")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
