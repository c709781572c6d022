"""Benchmark ``batch check``: numeric checks, cameras and workers, against peers.

1. **Numeric checks** on a LeRobot dataset of ``--episodes`` state/action
   episodes (``--frames`` rows each), written with pyarrow in the layout of
   ``tests/data/lerobot/checks_v30`` (its ``info.json`` and schemas, without
   the camera; row groups of 1,000 rows, as Hugging Face ``datasets`` writes
   them): every episode checked as ``batch check`` does (those read together
   by ``checked_together``, any other opened and ``check_recording``-ed without
   frames, then ``dataset_flags``), against a plain pyarrow + numpy pass over
   the same columns (read the table once, then per episode the same figures:
   non-finite values, time steps, velocities, jerk, still share, end state).
2. **Camera checks**: the small grey frames ``frozen_video`` reads from
   ``checks_v30``'s video (all its episodes), in frames per second, against
   PyAV decoding the same file alone.
3. **Workers**: ``fsr-viewer batch check`` over ``--copies`` copies of
   ``checks_v30`` (each episode's video decoded for ``frozen_video``: work
   for the workers) with ``--jobs 1`` and ``--jobs 2``, on the local engine
   and on Ray (a local instance each run starts). The numeric dataset
   is checked together in the parent, with no worker to share it, so its
   ``batch check`` is timed with ``--jobs 1`` alone. Beside them, the
   machine's ceiling: two processes of pure-Python work against one.

    .venv/bin/python tools/bench_check.py [--episodes 1000] [--frames 100] [--copies 32]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bench_common import add_counts, argument_parser, report, time_once
from fsr_core.checks import (
    Thresholds,
    check_recording,
    checked_together,
    dataset_flags,
)
from fsr_core.checks.camera_frames import small_frames
from fsr_core.sources import expand_recordings, open_recording

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "tests" / "data" / "lerobot" / "checks_v30"
CAMERA = "observation.images.front"
ROW_GROUP = 1000
"""Rows per row group of the data file, as Hugging Face ``datasets`` writes them."""


def write_dataset(root: Path, episodes: int, frames: int) -> None:
    """Write a state/action LeRobot dataset of ``episodes`` x ``frames`` rows."""
    info = json.loads((TEMPLATE / "meta" / "info.json").read_text())
    info["features"].pop(CAMERA)
    info.update(
        total_episodes=episodes,
        total_frames=episodes * frames,
        total_tasks=1,
        splits={"train": f"0:{episodes}"},
    )
    (root / "meta" / "episodes" / "chunk-000").mkdir(parents=True)
    (root / "data" / "chunk-000").mkdir(parents=True)
    (root / "meta" / "info.json").write_text(json.dumps(info, indent=2))
    shutil.copy(TEMPLATE / "meta" / "tasks.parquet", root / "meta" / "tasks.parquet")
    rng = np.random.default_rng(3)
    rows = episodes * frames
    steps = np.linspace(0.0, 1.0, frames)
    goals = rng.normal(0.5, 0.05, size=(episodes, 1, 6))
    state = (goals * (1 - np.cos(np.pi * steps))[None, :, None] / 2).reshape(rows, 6)
    action = np.concatenate([state[1:], state[-1:]])
    frame_index = np.tile(np.arange(frames), episodes)
    episode_index = np.repeat(np.arange(episodes), frames)
    width = pa.list_(pa.float32(), 6)
    table = pa.table(
        {
            "observation.state": pa.FixedSizeListArray.from_arrays(
                pa.array(state.astype(np.float32).ravel()), 6
            ).cast(width),
            "action": pa.FixedSizeListArray.from_arrays(
                pa.array(action.astype(np.float32).ravel()), 6
            ).cast(width),
            "timestamp": pa.array((frame_index / info["fps"]).astype(np.float32)),
            "frame_index": pa.array(frame_index),
            "episode_index": pa.array(episode_index),
            "index": pa.array(np.arange(rows)),
            "task_index": pa.array(np.zeros(rows, dtype=np.int64)),
        }
    )
    data = root / "data" / "chunk-000" / "file-000.parquet"
    pq.write_table(table, data, row_group_size=ROW_GROUP)
    starts = np.arange(episodes) * frames
    meta = pa.table(
        {
            "episode_index": pa.array(np.arange(episodes)),
            "tasks": pa.array([["move to the goal"]] * episodes),
            "length": pa.array(np.full(episodes, frames)),
            "data/chunk_index": pa.array(np.zeros(episodes, dtype=np.int64)),
            "data/file_index": pa.array(np.zeros(episodes, dtype=np.int64)),
            "dataset_from_index": pa.array(starts),
            "dataset_to_index": pa.array(starts + frames),
            "meta/episodes/chunk_index": pa.array(np.zeros(episodes, dtype=np.int64)),
            "meta/episodes/file_index": pa.array(np.zeros(episodes, dtype=np.int64)),
        }
    )
    pq.write_table(meta, root / "meta" / "episodes" / "chunk-000" / "file-000.parquet")


def checks_pass(root: Path) -> tuple[float, float, int, int]:
    """Time checking every episode as ``batch check`` does; return the figures.

    The episodes a source reads together are checked at once
    (``checked_together``); the rest are opened and checked one by one. The
    seconds of both, the flags found, and how many were checked together.
    """
    paths = expand_recordings([root])
    started = time.perf_counter()
    together = checked_together(paths)
    opened = time.perf_counter()
    alone = [
        check_recording(open_recording(path), decode_frames=False)
        for path in paths
        if path not in together
    ]
    results = [*together.values(), *alone]
    found = dataset_flags(results, Thresholds())
    checked = time.perf_counter()
    flags = sum(len(r.flags) for r in results) + sum(map(len, found))
    return opened - started, checked - opened, flags, len(together)


def plain_pass(root: Path, fps: float) -> float:
    """Time pyarrow + numpy computing the same figures over the same columns."""
    started = time.perf_counter()
    table = pq.read_table(
        root / "data" / "chunk-000" / "file-000.parquet",
        columns=["observation.state", "action", "timestamp", "episode_index"],
    )
    width = 6
    state = table["observation.state"].combine_chunks().flatten().to_numpy()
    state = state.reshape(-1, width).astype(np.float64)
    action = table["action"].combine_chunks().flatten().to_numpy()
    action = action.reshape(-1, width).astype(np.float64)
    stamps = table["timestamp"].to_numpy().astype(np.float64)
    episodes = table["episode_index"].to_numpy()
    bounds = np.flatnonzero(np.diff(episodes)) + 1
    for rows in np.split(np.arange(episodes.size), bounds):
        q, a, t = state[rows], action[rows], stamps[rows]
        _ = (~np.isfinite(q)).any(), (~np.isfinite(a)).any()
        step = np.diff(t)
        _ = (step <= 0).any(), (step > 4 * np.median(step)).any()
        velocity = np.diff(q, axis=0) / step[:, None]
        jerk = np.diff(velocity, n=2, axis=0) * fps * fps
        norm = np.linalg.norm(jerk, axis=1)
        _ = np.median(norm), np.percentile(norm, 95)
        still = np.abs(velocity).max(axis=1) < 0.01
        _ = still.mean(), np.median((a - q)[1:][still], axis=0), q[-1]
    return time.perf_counter() - started


def camera_rates() -> dict[str, float]:
    """Return frames per second: the checks' small frames, and PyAV alone."""
    import av

    models = [open_recording(path) for path in expand_recordings([TEMPLATE])]
    started = time.perf_counter()
    frames = 0
    for model in models:
        found = small_frames(model, model.cameras[0], 32, 100_000)
        frames += 0 if found is None else len(found.times_s)
    checked = frames / (time.perf_counter() - started)
    video = next((TEMPLATE / "videos").rglob("*.mp4"))
    started = time.perf_counter()
    decoded = 0
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for _frame in container.decode(stream):
            decoded += 1
    alone = decoded / (time.perf_counter() - started)
    return {"checks_fps": checked, "pyav_fps": alone, "frames": frames}


def _spin(loops: int) -> float:
    """Run a pure-Python loop; return its seconds (CPU work and nothing else)."""
    started = time.perf_counter()
    total = 0
    for step in range(loops):
        total += step * step
    return time.perf_counter() - started


def cpu_scaling(loops: int = 20_000_000, rounds: int = 3) -> float:
    """Return the best throughput of two CPU-bound processes over one, of ``rounds``.

    The machine's own ceiling for ``--jobs 2``: no I/O, no startup, nothing
    shared.
    """
    import multiprocessing

    best = 0.0
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [1000, 1000])  # both workers up before timing
        for _ in range(rounds):
            one = time_once(lambda: pool.map(_spin, [loops]))
            two = time_once(lambda: pool.map(_spin, [loops, loops]))
            best = max(best, 2 * one / two)
    return best


def camera_datasets(directory: Path, copies: int) -> list[Path]:
    """Copy ``checks_v30`` (video and all) ``copies`` times; return the roots."""
    roots = []
    for number in range(copies):
        root = directory / "cameras" / f"copy_{number:02d}"
        if not root.exists():
            shutil.copytree(TEMPLATE, root)
        roots.append(root)
    return roots


def batch_seconds(
    roots: list[Path], jobs: int, report_path: Path, engine: str = "local"
) -> float:
    """Run ``fsr-viewer batch check`` with ``jobs`` workers; return its seconds."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "batch",
            "check",
            *map(str, roots),
            "--jobs",
            str(jobs),
            "--engine",
            engine,
            "--report",
            str(report_path),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return time.perf_counter() - started


def run(directory: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Write the dataset, run every measure, return the figures."""
    root = directory / "numeric_v30"
    if root.exists():
        shutil.rmtree(root)
    write_dataset(root, args.episodes, args.frames)
    fps = float(json.loads((root / "meta" / "info.json").read_text())["fps"])
    plain = plain_pass(root, fps)
    opening, checks, flags, together = checks_pass(root)
    cameras = camera_rates()
    numeric_batch = batch_seconds([root], 1, directory / "numeric.jsonl")
    videos = camera_datasets(directory, args.copies)
    one = batch_seconds(videos, 1, directory / "jobs1.jsonl")
    two = batch_seconds(videos, 2, directory / "jobs2.jsonl")
    ray_one = batch_seconds(videos, 1, directory / "ray1.jsonl", "ray")
    ray_two = batch_seconds(videos, 2, directory / "ray2.jsonl", "ray")
    floor = cpu_scaling()
    return {
        "episodes": args.episodes,
        "frames_per_episode": args.frames,
        "open_s": opening,
        "checked_together": together,
        "numeric_batch_s": numeric_batch,
        "camera_copies": args.copies,
        "numeric_checks_s": checks,
        "plain_pass_s": plain,
        "numeric_ratio": (opening + checks) / plain,
        "flags": flags,
        **cameras,
        "camera_ratio": cameras["pyav_fps"] / cameras["checks_fps"],
        "batch_jobs1_s": one,
        "batch_jobs2_s": two,
        "jobs_scaling": one / two,
        "ray_jobs1_s": ray_one,
        "ray_jobs2_s": ray_two,
        "ray_scaling": ray_one / ray_two,
        "cpu_scaling": floor,
    }


def render(result: dict[str, Any]) -> str:
    """Return the figures as text."""
    return "\n".join(
        [
            f"numeric checks, {result['episodes']} episodes x "
            f"{result['frames_per_episode']} frames: "
            f"{result['checked_together']} checked together in "
            f"{result['open_s']:.3f} s, the rest alone and the dataset's flags in "
            f"{result['numeric_checks_s']:.3f} s, vs plain pyarrow+numpy "
            f"{result['plain_pass_s']:.3f} s: {result['numeric_ratio']:.2f}x "
            f"(target <= 1.5x); {result['flags']} flags (the IQR rule's tail of "
            "the random final poses)",
            f"batch check of that dataset, --jobs 1: {result['numeric_batch_s']:.2f} "
            "s (the process's start included)",
            f"camera checks: {result['checks_fps']:.0f} frames/s vs PyAV decoding "
            f"alone {result['pyav_fps']:.0f} frames/s ({result['frames']} frames; "
            f"{result['camera_ratio']:.2f}x)",
            f"batch check of {result['camera_copies']} copies of checks_v30 (video "
            f"decoded): --jobs 1 {result['batch_jobs1_s']:.1f} s, --jobs 2 "
            f"{result['batch_jobs2_s']:.1f} s: {result['jobs_scaling']:.2f}x "
            "(target >= 1.8x)",
            f"the same with --engine ray (a local instance started by each run): "
            f"--jobs 1 {result['ray_jobs1_s']:.1f} s, --jobs 2 "
            f"{result['ray_jobs2_s']:.1f} s: {result['ray_scaling']:.2f}x "
            "(target >= 1.8x)",
            f"this machine's ceiling: two CPU-bound processes do "
            f"{result['cpu_scaling']:.2f}x the work of one; --jobs 2 reaches "
            f"{result['jobs_scaling'] / result['cpu_scaling']:.2f} of it, Ray "
            f"{result['ray_scaling'] / result['cpu_scaling']:.2f}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module docstring)."""
    parser = argument_parser(__doc__)
    add_counts(
        parser,
        {
            "--episodes": (1000, "episodes of the numeric dataset"),
            "--frames": (100, "frames per episode"),
            "--copies": (32, "copies of checks_v30 for the workers' measure"),
        },
    )
    args = parser.parse_args(argv)
    return report("bench_check", args, lambda folder: run(folder, args), render)


if __name__ == "__main__":
    raise SystemExit(main())
