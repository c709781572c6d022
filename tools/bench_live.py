"""Follow a recording while a writer process records it: latency, cost, memory.

A writer process (``tools/live_writer.py``: the FsrWriter at a fixed rate,
a 1 kHz 7-column numeric stream and a 30 Hz 640x480 JPEG camera, 50 ms
batches) records for ``--seconds`` twice: alone, then with this process
following its file as the window does (a poll every 100 ms, then the model
of views built, ``live_model``). Printed:

* latency: for every write the writer made (a batch), from the end of that
  write to the end of the first poll that had read it whole; median and
  p95 (target: median <= 100 ms). Drawing is not included;
* reader CPU: this process's CPU time while following over the wall time,
  in % of one core (target <= 10 %);
* RSS of this process every ``--rss-every`` seconds, and the last over the
  first at or after 5 min (the 1-hour run, ``--seconds 3600``: target <= 1.2x);
* writer throughput: samples per CPU second of the writer process, followed
  over alone (target >= 0.95); ``--followed-only`` skips the run alone (the
  hour-long memory run need not take two hours).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

from bench_common import BenchError, argument_parser, positive, report
from fsr_core.sources.live import follow_recording, live_model

TOOLS: Final = Path(__file__).resolve().parent
POLL_S: Final = 0.1
TARGET_LATENCY_MS: Final = 100.0
TARGET_CPU_PERCENT: Final = 10.0
TARGET_RSS_RATIO: Final = 1.2
TARGET_WRITER_RATIO: Final = 0.95
RSS_REFERENCE_S: Final = 300.0


def _rss_mb() -> float:
    with Path("/proc/self/statm").open() as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def _writer(path: Path, args: argparse.Namespace, log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(TOOLS / "live_writer.py"),
            str(path),
            "--seconds",
            str(args.seconds),
            "--codec",
            "jpeg",
            "--log-writes",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def _done(process: subprocess.Popen[str]) -> tuple[int, float]:
    """Wait for the writer; return its samples and CPU seconds."""
    assert process.stdout is not None
    out = process.stdout.read()
    process.stdout.close()
    if process.wait() != 0:
        raise BenchError(f"the writer failed (exit {process.returncode})")
    done = next(line for line in out.splitlines() if line.startswith("done "))
    _, ticks, _, _, cpu = done.split()
    return int(ticks), float(cpu)


def _alone(folder: Path, args: argparse.Namespace) -> dict[str, float]:
    process = _writer(folder / "alone.fsr", args, folder / "alone.json")
    assert process.stdout is not None
    process.stdout.readline()
    ticks, cpu = _done(process)
    return {"samples": ticks, "cpu_s": cpu, "samples_per_cpu_s": ticks / cpu}


def _followed(folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    log = folder / "followed.json"
    process = _writer(folder / "followed.fsr", args, log)
    assert process.stdout is not None
    staging = Path(process.stdout.readline().split(" ", 1)[1].strip())
    follower = follow_recording(staging)
    polls: list[tuple[float, int]] = []
    rss: list[tuple[float, float]] = []
    start = time.time()
    cpu_start = os.times()
    next_rss = 0.0
    while not follower.status.state.final:
        tick = time.monotonic()
        follower.poll()
        live_model(follower)
        polls.append((time.time(), follower.consumed))
        elapsed = time.time() - start
        if elapsed >= next_rss:
            rss.append((round(elapsed, 1), round(_rss_mb(), 1)))
            next_rss += args.rss_every
        late = time.time() - start > args.seconds + 60
        if late and process.poll() is not None and not follower.status.state.final:
            raise BenchError(f"following never ended: {follower.status.message}")
        time.sleep(max(0.0, POLL_S - (time.monotonic() - tick)))
    wall = time.time() - start
    cpu_end = os.times()
    cpu = (cpu_end.user + cpu_end.system) - (cpu_start.user + cpu_start.system)
    follower.close()
    ticks, writer_cpu = _done(process)
    writes = json.loads(log.read_text(encoding="utf-8"))
    poll_times = np.array([p[0] for p in polls])
    poll_bytes = np.array([p[1] for p in polls])
    latencies = []
    for wall_s, end in writes:
        found = int(np.searchsorted(poll_bytes, end, "left"))
        if found < len(polls):
            latencies.append(poll_times[found] - wall_s)
    if not latencies:
        raise BenchError("no write was seen by the follower")
    millis = 1000 * np.array(latencies)
    reference = next((mb for t, mb in rss if t >= RSS_REFERENCE_S), rss[0][1])
    return {
        "records": follower.model.records,
        "polls": len(polls),
        "latency_median_ms": round(float(np.median(millis)), 1),
        "latency_p95_ms": round(float(np.percentile(millis, 95)), 1),
        "reader_cpu_percent": round(100 * cpu / wall, 2),
        "rss_mb": rss,
        "rss_ratio": round(rss[-1][1] / reference, 3),
        "samples": ticks,
        "cpu_s": writer_cpu,
        "samples_per_cpu_s": ticks / writer_cpu,
    }


def measure(folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run the writer alone (unless ``--followed-only``), then followed."""
    alone = None if args.followed_only else _alone(folder, args)
    followed = _followed(folder, args)
    ratio = (
        None
        if alone is None
        else followed["samples_per_cpu_s"] / alone["samples_per_cpu_s"]
    )
    return {
        "config": {"seconds": args.seconds, "rate_hz": 1000, "camera_hz": 30},
        "alone": alone,
        "followed": followed,
        "writer_ratio": None if ratio is None else round(ratio, 3),
        "met": {
            "latency": followed["latency_median_ms"] <= TARGET_LATENCY_MS,
            "reader_cpu": followed["reader_cpu_percent"] <= TARGET_CPU_PERCENT,
            "rss": followed["rss_ratio"] <= TARGET_RSS_RATIO,
            "writer": None if ratio is None else ratio >= TARGET_WRITER_RATIO,
        },
    }


def render(result: dict[str, Any]) -> str:
    """Return the figures as lines of text."""
    followed, met = result["followed"], result["met"]
    rss = ", ".join(f"{t:.0f} s {mb:.0f} MB" for t, mb in followed["rss_mb"])
    return "\n".join(
        [
            f"following a {result['config']['seconds']:.0f} s run "
            f"(1 kHz numeric + 30 Hz 640x480 JPEG): {followed['records']} records, "
            f"{followed['polls']} polls",
            f"latency write -> readable: median {followed['latency_median_ms']} ms, "
            f"p95 {followed['latency_p95_ms']} ms "
            f"(target <= {TARGET_LATENCY_MS:.0f} ms: {_met(met['latency'])})",
            f"reader CPU: {followed['reader_cpu_percent']} % of one core "
            f"(target <= {TARGET_CPU_PERCENT:.0f} %: {_met(met['reader_cpu'])})",
            f"reader RSS: {rss}; last over reference {followed['rss_ratio']}x "
            f"(target <= {TARGET_RSS_RATIO}x: {_met(met['rss'])})",
            _writer_line(result),
        ]
    )


def _writer_line(result: dict[str, Any]) -> str:
    followed = result["followed"]["samples_per_cpu_s"]
    if result["alone"] is None:
        return (
            f"writer samples per CPU s: followed {followed:.0f} "
            "(alone not run: --followed-only)"
        )
    return (
        f"writer samples per CPU s: alone "
        f"{result['alone']['samples_per_cpu_s']:.0f}, followed "
        f"{followed:.0f}, {result['writer_ratio']}x "
        f"(target >= {TARGET_WRITER_RATIO}: {_met(result['met']['writer'])})"
    )


def _met(flag: bool) -> str:
    return "met" if flag else "NOT met"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark."""
    parser = argument_parser(__doc__)
    parser.add_argument(
        "--seconds",
        type=positive(float),
        default=20.0,
        help="seconds each writer run records (3600: the 1-hour run)",
    )
    parser.add_argument(
        "--rss-every",
        type=positive(float),
        default=5.0,
        help="seconds between two RSS samples (default 5)",
    )
    parser.add_argument(
        "--followed-only",
        action="store_true",
        help="skip the writer's run alone (no writer ratio): the 1-hour memory run",
    )
    args = parser.parse_args(argv)
    return report("bench_live", args, lambda folder: measure(folder, args), render)


if __name__ == "__main__":
    sys.exit(main())
