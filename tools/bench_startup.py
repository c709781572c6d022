"""Benchmark what each file costs before any work: ``inspect`` start-up and the open.

Batch work over thousands of small files is dominated by these two figures
(issue 26), each printed beside its target:

- **inspect start-up**: the wall time of ``fsr-viewer inspect FILE`` on a
  small FSR file (the synthetic sample, about 0.5 MB), from the start of the
  process to its exit, median of ``--runs`` runs after two warm-up runs;
  beside it the floor, ``python -c pass`` timed the same way. The console
  script of this interpreter's environment is run (``python -m app.cli``
  where it is not installed). The runs use a bytecode cache of their own
  (``PYTHONPYCACHEPREFIX`` in the work folder, ``PYTHONDONTWRITEBYTECODE``
  dropped), filled by the warm-up: an installed viewer starts from compiled
  bytecode, and recompiling every module on every run is not its cost.
  Target: <= 0.2 s.
- **open of a ~1 GB file**: the same camera frames (640x480 JPEG, q92,
  4:4:4, about 180 KB each, 30 Hz, after one intrinsics record) written as
  an FSR file (``FsrWriter.write_encoded``, default batches) and as an MCAP
  file (``mcap`` Writer, chunked, default chunk size, zstd when
  ``zstandard`` imports, else lz4, else none; one channel per stream).
  FSR: ``FsrReader.open`` (the whole validation: footer, CRCs, every batch
  header, budgets), the close not timed; MCAP: opening the file,
  ``make_reader`` and ``get_summary``. Median of ``--opens`` opens each,
  the formats alternating, warm (page cache). Target: FSR <= MCAP.

Times come from ``time.perf_counter``. MB and GB mean 10^6 and 10^9 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from mcap.reader import make_reader
from mcap.writer import CompressionType

import bench_common as bench
from bench_common import CAMERA, CAMERA_HZ, HEIGHT, JPEG_QUALITY, WIDTH, BenchError
from fsr_core.format.catalog import camera_streams
from fsr_core.format.reader import FsrReader
from fsr_core.media import RGBFrame, encode_frame
from fsr_core.synthetic import SyntheticRun, write_synthetic

TARGET_STARTUP_S = 0.2
TARGET_OPEN_RATIO = 1.0
WARMUP_RUNS = 2
WARMUP_OPENS = 3

DISTINCT_FRAMES = 30
SEED = 20261205
BIG_BYTES = 1 << 30
FREE_FACTOR = 2.5  # two files of --bytes, and room to spare
GB = 1e9


@dataclass(frozen=True)
class Options:
    """What ``main`` parsed."""

    runs: int
    opens: int
    size_bytes: int
    open_files: bool


def _log(message: str) -> None:
    print(f"[bench_startup] {message}", file=sys.stderr, flush=True)


# -------------------------------------------------------------------- start-up
def inspect_command() -> list[str]:
    """Return the command that runs ``fsr-viewer`` from this environment."""
    script = Path(sysconfig.get_path("scripts")) / "fsr-viewer"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "app.cli"]


def _child_env(directory: Path) -> dict[str, str]:
    """Return this environment with a bytecode cache of the benchmark's own."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(directory / "pycache")
    return env


def _wall_seconds(command: list[str], env: dict[str, str]) -> float:
    """Run ``command`` to its end; return its wall time (it must exit 0)."""
    start = time.perf_counter()
    completed = subprocess.run(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
    )
    elapsed = time.perf_counter() - start
    if completed.returncode != 0:
        raise BenchError(
            f"{' '.join(command)} exited {completed.returncode}: "
            f"{completed.stderr.decode(errors='replace').strip()}"
        )
    return elapsed


def measure_startup(directory: Path, runs: int) -> dict[str, Any]:
    """Median wall time of ``inspect`` on a small file, and of ``python -c pass``."""
    sample = directory / "sample.fsr"
    write_synthetic(sample, SyntheticRun())
    env = _child_env(directory)
    commands = {
        "inspect": [*inspect_command(), "inspect", str(sample)],
        "floor": [sys.executable, "-c", "pass"],
    }
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():
        for _ in range(WARMUP_RUNS):
            _wall_seconds(command, env)
    order = list(commands.items())
    for i in range(runs):  # interleaved, so drift in the machine's load cancels
        for name, command in order if i % 2 == 0 else order[::-1]:
            samples[name].append(_wall_seconds(command, env))
    inspect_s = bench.median(samples["inspect"])
    return {
        "command": " ".join([Path(commands["inspect"][0]).name, "inspect", "FILE"]),
        "file_bytes": sample.stat().st_size,
        "runs": runs,
        "inspect_s": inspect_s,
        "inspect_min_s": min(samples["inspect"]),
        "floor_s": bench.median(samples["floor"]),
        "target_s": TARGET_STARTUP_S,
        "met": inspect_s <= TARGET_STARTUP_S,
    }


# ------------------------------------------------------------------ the files
def jpeg_frames(count: int, seed: int) -> list[bytes]:
    """Encode ``count`` distinct noisy 640x480 frames as JPEG (about 180 KB each)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    base = np.stack(
        [x * 255 // (WIDTH - 1), y * 255 // (HEIGHT - 1), (x + y) % 256], axis=-1
    )
    frames = []
    for _ in range(count):
        noisy = np.clip(base + rng.integers(0, 24, base.shape), 0, 255)
        frame = RGBFrame(noisy.astype(np.uint8))
        frames.append(encode_frame("jpeg", frame, quality=JPEG_QUALITY))
    return frames


def write_mcap(
    path: Path, jpegs: list[bytes], frames: int, compression: CompressionType
) -> None:
    """Write the same records as :func:`bench_common.write_camera_fsr` as MCAP."""
    rgb, intrinsics = camera_streams(
        CAMERA, width=WIDTH, height=HEIGHT, rate_hz=CAMERA_HZ
    )[:2]
    library = "fsr-viewer tools/bench_startup.py"
    with bench.mcap_writer(path, compression, library=library) as writer:
        channels = {}
        for spec, encoding in ((intrinsics, "json"), (rgb, "jpeg")):
            schema = writer.register_schema(spec.name, "fsr.stream", b"")
            channels[spec.name] = writer.register_channel(spec.name, encoding, schema)
        profile = json.dumps(bench.camera_profile().to_json(), sort_keys=True).encode()
        writer.add_message(
            channels[intrinsics.name], log_time=0, data=profile, publish_time=0
        )
        for i in range(frames):
            log_time = i * 10**9 // CAMERA_HZ
            writer.add_message(
                channels[rgb.name],
                log_time=log_time,
                data=jpegs[i % len(jpegs)],
                publish_time=log_time,
                sequence=i,
            )


# ------------------------------------------------------------------- the open
def mcap_open_seconds(path: Path) -> float:
    """Time opening the file, ``make_reader`` and ``get_summary``."""
    start = time.perf_counter()
    with path.open("rb") as handle:
        summary = make_reader(handle).get_summary()
        elapsed = time.perf_counter() - start
    if summary is None:
        raise BenchError(f"{path} has no MCAP summary")
    return elapsed


def _alternating(runs: dict[str, Callable[[], float]], count: int) -> dict[str, float]:
    """Median of ``count`` timed calls each, the order flipping every round."""
    for run in runs.values():
        for _ in range(WARMUP_OPENS):
            run()
    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for i in range(count):
        for name in names if i % 2 == 0 else names[::-1]:
            samples[name].append(runs[name]())
    return {name: bench.median(values) for name, values in samples.items()}


def measure_open(directory: Path, size_bytes: int, opens: int) -> dict[str, Any]:
    """Write the FSR and the MCAP file of ~``size_bytes``; time their opens."""
    free = shutil.disk_usage(directory).free
    if free < FREE_FACTOR * size_bytes:
        raise BenchError(
            f"the open needs {FREE_FACTOR * size_bytes / GB:.1f} GB free in "
            f"{directory}, only {free / GB:.1f} GB are (or use --bytes, --no-open)"
        )
    jpegs = jpeg_frames(DISTINCT_FRAMES, SEED)
    mean = sum(map(len, jpegs)) / len(jpegs)
    frames = max(1, round(size_bytes / mean))
    fsr, mcap = directory / "bench-open.fsr", directory / "bench-open.mcap"
    compression, compression_name = bench.mcap_compression()
    _log(f"writing {frames} frames as FSR and as MCAP ({compression_name})")
    bench.write_camera_fsr(fsr, jpegs, frames, run_name="bench")
    write_mcap(mcap, jpegs, frames, compression)
    with FsrReader.open(fsr) as reader:
        records = reader.record_count
        footer = reader.footer.raw if reader.footer is not None else {}
        batches = sum(int(item["batches"]) for item in footer.get("inventory", []))
    _log(f"opening each {opens} times")
    opened = _alternating(
        {
            "fsr": lambda: bench.fsr_open_seconds(fsr),
            "mcap": lambda: mcap_open_seconds(mcap),
        },
        opens,
    )
    ratio = opened["fsr"] / opened["mcap"]
    return {
        "frames": frames,
        "fsr_records": records,
        "fsr_batches": batches,
        "fsr_bytes": fsr.stat().st_size,
        "mcap_bytes": mcap.stat().st_size,
        "mcap_compression": compression_name,
        "opens": opens,
        "fsr_ms": opened["fsr"] * 1e3,
        "mcap_ms": opened["mcap"] * 1e3,
        "ratio": ratio,
        "target_ratio": TARGET_OPEN_RATIO,
        "met": ratio <= TARGET_OPEN_RATIO,
    }


# ---------------------------------------------------------------------- run
def run(directory: Path, options: Options) -> dict[str, Any]:
    """Run the benchmark in ``directory``; return the figures."""
    _log(f"timing inspect start-up ({options.runs} runs)")
    startup = measure_startup(directory, options.runs)
    opened = None
    if options.open_files:
        opened = measure_open(directory, options.size_bytes, options.opens)
    return {
        "config": {
            "runs": options.runs,
            "opens": options.opens,
            "size_bytes": options.size_bytes,
            "python": sys.version.split()[0],
        },
        "startup": startup,
        "open": opened,
    }


def _met(met: bool) -> str:
    return "met" if met else "NOT met"


def render_text(result: dict[str, Any]) -> str:
    """Return the figures as the printed report."""
    startup = result["startup"]
    lines = [
        "Per-file cost (issue 26)",
        "",
        f"inspect start-up ({startup['command']}, "
        f"{startup['file_bytes'] / 1e6:.1f} MB FSR), median of {startup['runs']}:",
        f"  {startup['inspect_s']:.3f} s (fastest {startup['inspect_min_s']:.3f} s)"
        f"   target <= {startup['target_s']:g} s: {_met(startup['met'])}",
        f"  floor, python -c pass: {startup['floor_s']:.3f} s",
        "",
    ]
    opened = result["open"]
    if opened is None:
        lines.append("open: not measured (--no-open)")
        return "\n".join(lines)
    lines += [
        f"open of the same {opened['frames']} camera frames, median of "
        f"{opened['opens']}:",
        f"  FSR  {opened['fsr_bytes'] / GB:.2f} GB ({opened['fsr_batches']} batches):"
        f" FsrReader.open {opened['fsr_ms']:.2f} ms",
        f"  MCAP {opened['mcap_bytes'] / GB:.2f} GB ({opened['mcap_compression']}):"
        f" make_reader + get_summary {opened['mcap_ms']:.2f} ms",
        f"  FSR/MCAP {opened['ratio']:.2f}   target <= "
        f"{opened['target_ratio']:g}: {_met(opened['met'])}",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------- main
def _parser() -> argparse.ArgumentParser:
    parser = bench.argument_parser(__doc__)
    add = parser.add_argument
    bench.add_counts(
        parser,
        {
            "--runs": (21, "inspect (and python -c pass) runs, median reported"),
            "--opens": (50, "opens per format, median reported"),
        },
    )
    add(
        "--bytes",
        type=bench.positive(int),
        default=BIG_BYTES,
        metavar="N",
        help=f"payload bytes of each file of the open (default {BIG_BYTES}, 1 GiB)",
    )
    add("--no-open", action="store_true", help="time the start-up only")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the report (or JSON); return the exit code."""
    args = _parser().parse_args(argv)
    options = Options(args.runs, args.opens, args.bytes, not args.no_open)
    return bench.report(
        "bench_startup",
        args,
        lambda directory: run(directory, options),
        render_text,
        (subprocess.TimeoutExpired,),
    )


if __name__ == "__main__":
    raise SystemExit(main())
