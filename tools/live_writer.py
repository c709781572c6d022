"""A real FSR writer in its own process, for following tests and the live benchmark.

Two modes:

* ``--commands``: reads lines from stdin and answers each on stdout once
  done, so a test drives the writer step by step without sleeping:
  ``numeric N`` (N samples of a 1 kHz, 7-column stream), ``camera N``
  (N frames of the camera), ``wait`` (until every queued record is in the
  file; the writer thread writes batches as they close), ``finish``
  (seal and publish), ``crash`` (exit at once, the staging file left behind);
* ``--seconds S``: records for S seconds of wall time at ``--rate`` Hz
  (numeric) and ``--camera-hz`` (a ``--width`` x ``--height`` camera), then
  publishes and prints ``done <ticks> <frames> <wall s> <CPU s>``.

The first line printed is ``staging <path>``. ``--log-writes FILE`` keeps
the wall time and file offset after every write the writer makes, written to
FILE as JSON at the end (the benchmark's "batch written" clock).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from fsr_core.calibration import CalibrationProfile
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import camera_streams, numeric_stream
from fsr_core.format.file_ops import FileOps
from fsr_core.format.writer import FsrWriter

COLUMNS = ("q0", "q1", "q2", "q3", "q4", "q5", "q6")


class _LoggedOps(FileOps):
    """The writer's file operations, noting when each write ended and where."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[float, int]] = []
        self._offset = 0

    def write(self, fd: int, data: bytes | memoryview, name: str) -> None:
        super().write(fd, data, name)
        self._offset += len(data)
        self.writes.append((time.time(), self._offset))


def _open(
    path: Path,
    width: int,
    height: int,
    batch_s: float,
    codec: str = "rgb24",
    ops: FileOps | None = None,
) -> FsrWriter:
    streams = [
        numeric_stream("observations.joints", COLUMNS, "rad"),
        *camera_streams("front", width=width, height=height, codec=codec),
    ]
    writer = FsrWriter(
        path,
        streams,
        metadata={"run": {"id": "live"}},
        batch_limits=BatchLimits(max_records=1 << 16, max_span_s=batch_s),
        keep_partial=True,
        file_ops=ops,
    ).start()
    profile = CalibrationProfile(width, height, 500.0, 500.0, width / 2, height / 2)
    writer.write("sensors.front.camera.intrinsics", profile, tick=0, sim_time_s=0.0)
    return writer


def _sample(tick: int) -> np.ndarray:
    t = tick / 1000.0
    values: np.ndarray = np.sin(t * (1.0 + np.arange(len(COLUMNS))))
    return values


def _frame(number: int, width: int, height: int) -> np.ndarray:
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    pixels[..., 0] = number % 256
    pixels[: max(1, height // 4), :, 1] = 255
    return pixels


def _commands(writer: FsrWriter, width: int, height: int) -> int:
    tick = 0
    frames = 0
    for line in sys.stdin:
        verb, _, count = line.strip().partition(" ")
        if verb == "numeric":
            for _ in range(int(count)):
                writer.write(
                    "observations.joints",
                    _sample(tick),
                    tick=tick,
                    sim_time_s=tick / 1000,
                )
                tick += 1
        elif verb == "camera":
            for _ in range(int(count)):
                writer.write(
                    "sensors.front.camera.rgb",
                    _frame(frames, width, height),
                    tick=tick,
                    sim_time_s=tick / 1000,
                )
                frames += 1
        elif verb == "finish":
            result = writer.finish()
            print(f"published {result.path}", flush=True)
            return 0
        elif verb == "crash":
            print("crashing", flush=True)
            os._exit(3)
        print(f"ok {tick} {frames}", flush=True)
    writer.abort()
    return 0


def _timed(writer: FsrWriter, args: argparse.Namespace) -> int:
    start = time.perf_counter()
    period = 1.0 / args.rate
    camera_every = max(1, round(args.rate / args.camera_hz))
    tick = 0
    frames = 0
    while True:
        due = start + tick * period
        now = time.perf_counter()
        if due > now:
            time.sleep(due - now)
        if tick * period >= args.seconds:
            break
        writer.write(
            "observations.joints", _sample(tick), tick=tick, sim_time_s=tick * period
        )
        if tick % camera_every == 0:
            writer.write(
                "sensors.front.camera.rgb",
                _frame(frames, args.width, args.height),
                tick=tick,
                sim_time_s=tick * period,
            )
            frames += 1
        tick += 1
    writer.finish()
    elapsed = time.perf_counter() - start
    cpu = os.times()
    print(f"done {tick} {frames} {elapsed:.6f} {cpu.user + cpu.system:.6f}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the writer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--commands", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--camera-hz", type=float, default=30.0)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument(
        "--batch-s", type=float, default=0.05, help="sim seconds per batch"
    )
    parser.add_argument("--codec", choices=("rgb24", "jpeg", "png"), default="rgb24")
    parser.add_argument("--log-writes", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    ops = _LoggedOps() if args.log_writes else None
    writer = _open(args.path, args.width, args.height, args.batch_s, args.codec, ops)
    print(f"staging {writer.staging_path}", flush=True)
    if args.commands:
        return _commands(writer, args.width, args.height)
    code = _timed(writer, args)
    if ops is not None:
        args.log_writes.write_text(json.dumps(ops.writes), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
