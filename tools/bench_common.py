"""What the FSR-against-MCAP benchmarks share: camera, files, timing and ``main``.

``tools/bench_format.py`` and ``tools/bench_startup.py`` write the same camera
(640x480 JPEG, q92, 30 Hz, one intrinsics record first) as FSR and as MCAP,
time ``FsrReader.open``, parse the same options and print their figures the
same way; this module is that common part. A script's own folder is on
``sys.path`` when it runs, so the scripts import it as ``bench_common``
(``tests/tool_scripts.py`` puts ``tools/`` there for the tests).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsr_core.calibration import CalibrationProfile
from fsr_core.errors import FsrError
from fsr_core.format.catalog import camera_streams
from fsr_core.format.reader import FsrReader
from fsr_core.format.writer import FsrWriter

if TYPE_CHECKING:
    from mcap.writer import CompressionType
    from mcap.writer import Writer as McapWriter

__all__ = [
    "CAMERA",
    "CAMERA_HZ",
    "HEIGHT",
    "JPEG_QUALITY",
    "WIDTH",
    "BenchError",
    "add_counts",
    "argument_parser",
    "camera_profile",
    "fsr_open_seconds",
    "mcap_compression",
    "mcap_writer",
    "median",
    "median_time",
    "numbers_parser",
    "positive",
    "report",
    "time_once",
    "times",
    "write_camera_fsr",
    "write_jpeg",
]

WIDTH = 640
HEIGHT = 480
CAMERA = "bench"
CAMERA_HZ = 30
JPEG_QUALITY = 92


class BenchError(Exception):
    """The benchmark cannot run or produced inconsistent data."""


def median(values: Sequence[float]) -> float:
    """Return the median of ``values`` as a float."""
    return float(statistics.median(values))


def time_once(run: Callable[[], object]) -> float:
    """Return the wall seconds one call of ``run`` takes."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def times(run: Callable[[], object], rounds: int) -> list[float]:
    """Call ``run`` ``rounds`` times in a row; return the wall seconds of each."""
    return [time_once(run) for _ in range(rounds)]


def median_time(run: Callable[[], object], rounds: int) -> float:
    """Return the median wall seconds of ``rounds`` calls of ``run``."""
    return median(times(run, rounds))


# ------------------------------------------------------------------ the files
def camera_profile(width: int = WIDTH, height: int = HEIGHT) -> CalibrationProfile:
    """Return a bench camera's intrinsics (focal length 0.9 of the width)."""
    focal = 0.9 * width
    return CalibrationProfile(width, height, focal, focal, width / 2, height / 2)


def write_jpeg(
    out: FsrWriter,
    stream: str,
    jpegs: Sequence[bytes],
    number: int,
    *,
    tick: int,
    sim_time_s: float,
) -> None:
    """Write camera frame ``number`` as it is: the JPEGs cycle, encoded once."""
    payload = jpegs[number % len(jpegs)]
    out.write_encoded(
        stream, payload, raw_length=len(payload), tick=tick, sim_time_s=sim_time_s
    )


def write_camera_fsr(
    path: Path, jpegs: Sequence[bytes], frames: int, *, run_name: str
) -> None:
    """Write the intrinsics record, then ``frames`` camera frames cycling ``jpegs``."""
    rgb, intrinsics = camera_streams(
        CAMERA, width=WIDTH, height=HEIGHT, rate_hz=CAMERA_HZ
    )[:2]
    metadata = {"run": {"name": run_name}}
    with FsrWriter(path, [rgb, intrinsics], metadata=metadata) as out:
        out.write(intrinsics.name, camera_profile(), tick=0, sim_time_s=0.0)
        for i in range(frames):
            write_jpeg(out, rgb.name, jpegs, i, tick=i, sim_time_s=i / CAMERA_HZ)


def mcap_compression() -> tuple[CompressionType, str]:
    """Zstd when ``zstandard`` imports, else lz4, else uncompressed chunks."""
    from mcap.writer import CompressionType

    for module, kind, name in (
        ("zstandard", CompressionType.ZSTD, "zstd"),
        ("lz4", CompressionType.LZ4, "lz4"),
    ):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        return kind, name
    return CompressionType.NONE, "none"


@contextmanager
def mcap_writer(
    path: Path, compression: CompressionType, *, library: str
) -> Iterator[McapWriter]:
    """Create the MCAP file ``path`` (never over one); finish and fsync it after."""
    from mcap.writer import Writer as McapWriter

    with path.open("xb") as handle:
        writer = McapWriter(handle, compression=compression)
        writer.start(profile="", library=library)
        yield writer
        writer.finish()  # type: ignore[no-untyped-call]  # mcap leaves it unannotated
        handle.flush()
        os.fsync(handle.fileno())


# ------------------------------------------------------------------- the open
def fsr_open_seconds(path: Path) -> float:
    """Time ``FsrReader.open`` (the whole validation), not the close."""
    start = time.perf_counter()
    reader = FsrReader.open(path)
    elapsed = time.perf_counter() - start
    reader.close()
    return elapsed


# ---------------------------------------------------------------------- main
def positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    """Return an argparse type that parses a positive ``kind``."""
    what = "whole number" if kind is int else "number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {what}: {text}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def argument_parser(description: str | None) -> argparse.ArgumentParser:
    """Return a parser showing ``description`` as is, with ``--out DIR`` and ``--json``.

    ``--out`` keeps the files in ``DIR``; without it :func:`report` works in a
    temporary folder and removes it.
    """
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write and keep the files in DIR (default: a temporary folder, removed)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def numbers_parser(
    doc: str | None, numbers: Mapping[str, int | float]
) -> argparse.ArgumentParser:
    """Return a parser, described by ``doc``'s first line, with these number options.

    One option per ``flag: default``, parsed as its default's type (``int`` or
    ``float``); a script adds its other options itself.
    """
    parser = argparse.ArgumentParser(description=(doc or "").partition("\n")[0])
    for flag, default in numbers.items():
        parser.add_argument(flag, type=type(default), default=default)
    return parser


def add_counts(
    parser: argparse.ArgumentParser, counts: Mapping[str, tuple[int, str]]
) -> None:
    """Add a positive whole-number option per ``flag: (default, what it counts)``."""
    for flag, (default, what) in counts.items():
        parser.add_argument(
            flag,
            type=positive(int),
            default=default,
            help=f"{what} (default {default})",
        )


@contextmanager
def _workdir(out: Path | None) -> Iterator[Path]:
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="fsr-bench-") as name:
        yield Path(name)


def report(
    tool: str,
    args: argparse.Namespace,
    run: Callable[[Path], dict[str, Any]],
    render_text: Callable[[dict[str, Any]], str],
    failures: tuple[type[BaseException], ...] = (),
) -> int:
    """Run ``run`` in ``--out`` (or a temporary folder); print and return the code.

    The figures go to stdout, as JSON with ``--json``; a :class:`BenchError`,
    an ``FsrError``, an ``OSError`` or one of ``failures`` is one line on stderr
    and exit code 1.
    """
    caught: tuple[type[BaseException], ...] = (BenchError, FsrError, OSError)
    try:
        with _workdir(args.out) as directory:
            result = run(directory)
    except (*caught, *failures) as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else render_text(result))
    return 0
