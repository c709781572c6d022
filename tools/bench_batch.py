"""Benchmark ``fsr-viewer batch``: scaling, per-file overhead, Ray against local.

It records the six demo takes, shortened to ``--seconds`` (default 0.5 s,
cameras kept), and copies them round-robin into ``--files`` files (default
200) in a temporary folder. Then, for ``batch validate`` and ``batch export``
(``--size 160`` px square at ``--fps 10`` by default), it times the same work
item by item:

- **loop**: a plain loop calling :func:`~app.headless.batch.work.run_item`
  in this process, the reference;
- **local 1** and **local 2**: the local engine with 1 and 2 worker processes
  (their start included);
- **ray 2**: the Ray engine on a local instance started with 2 CPUs (the
  instance's start is timed apart; its workers' start is included).

and prints, per verb: each time, the scaling from 1 to 2 local workers
(target >= 1.8x for export), the local engine's overhead against the loop
(1 worker; target <= 5 %: the whole run, and per file once the worker runs),
and Ray's extra time per task against the local engine with 2 workers.
Each verb runs in a process of its own, as each ``batch`` command does, so
the local engine's fork server loads that verb's modules once (its start
falls in the first round). Each figure is the median of ``--rounds`` rounds
(default 3) in which the engines take turns, so the load of a shared
machine falls on all of them alike; the load average before and after is
printed with them. ``--json`` prints the figures as JSON; ``--engines``
picks some of ``loop,local1,local2,ray``; ``--verbs`` some of ``validate,export``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.canvas.view_model import ViewModel
from app.headless.batch.engines.local import LocalEngine
from app.headless.batch.items import BatchOptions, Verb, WorkItem
from app.headless.batch.plan import plan_items
from app.headless.batch.work import run_item
from app.headless.export.request import VideoRequest
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

ENGINES = ("loop", "local1", "local2", "ray")
VERBS = ("validate", "export")


def make_takes(folder: Path, files: int, seconds: float) -> list[Path]:
    """Record the demo takes shortened to ``seconds``, copy them to ``files`` files."""
    originals: list[Path] = []
    for name, document in _take_documents().items():
        document.update(duration_s=seconds)
        path = folder / "originals" / f"{name}.fsr"
        path.parent.mkdir(exist_ok=True)
        record_run(Scenario.from_json(document), path)
        originals.append(path)
    takes = folder / "takes"
    takes.mkdir()
    copies = []
    for number in range(files):
        copy = takes / f"take_{number:04d}.fsr"
        shutil.copyfile(originals[number % len(originals)], copy)
        copies.append(copy)
    return copies


class _Clock:
    """When the run started and when each result came."""

    def __init__(self) -> None:
        self.started_s = time.perf_counter()
        self.finished_s: list[float] = []
        self.failed = 0

    def __call__(self, result: dict[str, Any]) -> None:
        self.finished_s.append(time.perf_counter())
        self.failed += result["status"] == "failed"

    @property
    def total_s(self) -> float:
        return self.finished_s[-1] - self.started_s

    @property
    def steady_s(self) -> float:
        """From the first result to the last: the run without its start."""
        return self.finished_s[-1] - self.finished_s[0]


def _loop(items: Sequence[WorkItem], options: BatchOptions) -> _Clock:
    clock = _Clock()
    for item in items:
        clock(run_item(item, options))
    return clock


def _engine_run(
    engine: Any, items: Sequence[WorkItem], options: BatchOptions
) -> _Clock:
    clock = _Clock()
    engine.run(items, options, clock)
    return clock


def _local_run(jobs: int, items: Sequence[WorkItem], options: BatchOptions) -> _Clock:
    return _engine_run(LocalEngine(jobs), items, options)


def _items(verb: Verb, takes: list[Path], out: Path) -> list[WorkItem]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    suffix = ".mp4" if verb is Verb.EXPORT else ""
    return plan_items(verb, takes, out_dir=out, suffix=suffix)


def _runners(
    engines: Sequence[str], ray_init_s: list[float]
) -> dict[str, Callable[[Sequence[WorkItem], BatchOptions], _Clock]]:
    runners: dict[str, Callable[[Sequence[WorkItem], BatchOptions], _Clock]] = {}
    for name in engines:
        if name == "loop":
            runners[name] = _loop
        elif name in ("local1", "local2"):
            runners[name] = functools.partial(_local_run, int(name[-1]))
        elif name == "ray":
            runners[name] = _ray_runner(ray_init_s)
    return runners


def _ray_runner(
    ray_init_s: list[float],
) -> Callable[[Sequence[WorkItem], BatchOptions], _Clock]:
    import ray

    from app.headless.batch.engines.ray_engine import RayEngine

    started_s = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_init_s.append(time.perf_counter() - started_s)
    return lambda items, options: _engine_run(RayEngine(2), items, options)


def _median(clocks: list[_Clock], attribute: str) -> float:
    return float(statistics.median(getattr(clock, attribute) for clock in clocks))


def _figures(clocks: dict[str, list[_Clock]], files: int) -> dict[str, Any]:
    """Return the figures of one verb from each engine's rounds (medians)."""
    total = {name: _median(rounds, "total_s") for name, rounds in clocks.items()}
    steady = {name: _median(rounds, "steady_s") for name, rounds in clocks.items()}
    figures: dict[str, Any] = {f"{name}_s": seconds for name, seconds in total.items()}
    figures["rounds_s"] = {
        name: [round(clock.total_s, 3) for clock in rounds]
        for name, rounds in clocks.items()
    }
    figures["failed"] = {
        name: max(clock.failed for clock in rounds) for name, rounds in clocks.items()
    }
    if "local1" in total and "local2" in total:
        figures["scaling"] = total["local1"] / total["local2"]
    if "loop" in total and "local1" in total:
        figures["overhead_pct"] = 100 * (total["local1"] / total["loop"] - 1)
        figures["steady_overhead_pct"] = 100 * (steady["local1"] / steady["loop"] - 1)
        per_file = (steady["local1"] - steady["loop"]) / max(files - 1, 1)
        figures["overhead_ms_per_file"] = 1000 * per_file
    if "ray" in total and "local2" in total:
        figures["ray_overhead_ms_per_task"] = (
            1000 * (total["ray"] - total["local2"]) / files
        )
    return figures


def _table(results: dict[str, Any]) -> str:
    lines = [
        f"{results['files']} demo takes of {results['seconds']:g} s "
        f"({results['bytes_per_file'] / 1e6:.2f} MB each); export "
        f"{results['export_options']}"
    ]
    lines.append(
        f"load average (1 min) {results['load_average_before']:.1f} before, "
        f"{results['load_average_after']:.1f} after, on {os.cpu_count()} CPUs; "
        f"medians of {results['rounds']} rounds taking turns"
    )
    if "ray_init_s" in results:
        lines.append(f"ray.init (2 CPUs): {results['ray_init_s']:.1f} s, not counted")
    for verb in VERBS:
        figures = results.get(verb)
        if figures is None:
            continue
        times = "  ".join(
            f"{name} {figures[f'{name}_s']:.2f} s"
            for name in ENGINES
            if f"{name}_s" in figures
        )
        lines.append(f"batch {verb}: {times}")
        if "scaling" in figures:
            target = " (target >= 1.8x)" if verb == "export" else ""
            lines.append(f"  scaling 1 -> 2 workers: {figures['scaling']:.2f}x{target}")
        if "overhead_pct" in figures:
            lines.append(
                f"  local engine (1 worker) vs plain loop: "
                f"{figures['overhead_pct']:+.1f} % in all, "
                f"{figures['steady_overhead_pct']:+.1f} % once started "
                f"({figures['overhead_ms_per_file']:+.2f} ms per file; target <= 5 %)"
            )
        if "ray_overhead_ms_per_task" in figures:
            lines.append(
                "  ray (2 CPUs) vs local (2 workers): "
                f"{figures['ray_overhead_ms_per_task']:+.1f} ms per task"
            )
    return "\n".join(lines)


def _each_verb_apart(argv: list[str], verbs: list[str], as_json: bool) -> int:
    """Run this benchmark once per verb, each in a new process; merge the figures."""
    kept: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--verbs":
            next(words, None)
        elif not word.startswith("--verbs=") and word != "--json":
            kept.append(word)
    merged: dict[str, Any] = {}
    for verb in verbs:
        completed = subprocess.run(
            [sys.executable, __file__, *kept, "--verbs", verb, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            print(f"batch {verb}: the benchmark failed\n{completed.stderr}")
            return 1
        found = json.loads(completed.stdout[completed.stdout.index("{") :])
        before = merged.get("load_average_before", found["load_average_before"])
        merged.update(found)
        merged["load_average_before"] = before
        merged["ray_init_s"] = max(
            merged.get("ray_init_s", 0.0), found.get("ray_init_s", 0.0)
        )
    if not merged["ray_init_s"]:
        del merged["ray_init_s"]
    print(json.dumps(merged, indent=2) if as_json else _table(merged))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--verbs", default=",".join(VERBS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", type=int, default=160, help="export: W = H, px")
    parser.add_argument("--fps", type=float, default=10.0, help="export: rate")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    verbs = [name for name in args.verbs.split(",") if name]
    engines = [name for name in args.engines.split(",") if name]
    if "ray" in engines and importlib.util.find_spec("ray") is None:
        print("ray is not installed (pip install 'fsr-viewer[ray]'): left out")
        engines.remove("ray")
    if len(verbs) > 1:
        return _each_verb_apart(list(argv or sys.argv[1:]), verbs, args.json)
    results: dict[str, Any] = {
        "files": args.files,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "export_options": f"{args.size}x{args.size} at {args.fps:g} fps",
    }
    ray_init_s: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as temporary:
        folder = Path(temporary)
        takes = make_takes(folder, args.files, args.seconds)
        results["bytes_per_file"] = sum(p.stat().st_size for p in takes) / len(takes)
        runners = _runners(engines, ray_init_s)
        results["load_average_before"] = os.getloadavg()[0]
        for verb in (Verb(name) for name in verbs):
            shown = ViewModel(size=(args.size,) * 2)
            video = VideoRequest(Path(), Path(), shown, fps=args.fps)
            options = BatchOptions(verb, video=video if verb is Verb.EXPORT else None)
            clocks: dict[str, list[_Clock]] = {name: [] for name in runners}
            for turn in range(args.rounds):  # taking turns: the load falls on all
                order = list(runners)[turn % len(runners) :] + list(runners)
                for name in order[: len(runners)]:
                    items = _items(verb, takes, folder / "out")
                    clocks[name].append(runners[name](items, options))
            results[verb.value] = _figures(clocks, args.files)
        results["load_average_after"] = os.getloadavg()[0]
        if ray_init_s:
            import ray

            ray.shutdown()
            results["ray_init_s"] = ray_init_s[0]
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
