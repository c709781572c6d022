"""The options of ``fsr-viewer batch``, as a request, and the checks of several.

The video options are those of ``--export``, with the same types and limits
(:mod:`app.headless.options`); the per-recording checks (play-time window,
camera) run in the worker, as ``--export-dir`` runs them. A
:class:`BatchRequest` refuses options that do not go together
(:func:`usage_problem`) with a :class:`~app.headless.options.UsageError`.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.headless.batch.items import Verb
from app.headless.options import (
    DrawOptions,
    RobotOptions,
    UsageError,
    add_overlay_flags,
    add_overwrite,
    add_robot_options,
    add_time_base,
    checked_number,
    fps_option,
    size_option,
    speed_option,
    time_option,
    whole_number,
)
from fsr_core.budgets import parse_amount

__all__ = ["BatchRequest", "add_batch_arguments", "usage_problem"]

#: Worker processes (or Ray CPUs) one run may ask for.
MAX_JOBS = 1024
#: ``--jobs`` when not given: one worker per CPU.
DEFAULT_JOBS = os.cpu_count() or 1
#: The choices of ``--format`` and ``--view``, as the player form spells them
#: (importing the export's own lists would load PyAV for every command).
_FORMATS = ("mp4", "gif", "webm")
_VIEWS = ("auto", "scene", "camera", "both")


def _jobs(text: str) -> int:
    return whole_number(text, 1, MAX_JOBS, f"1 to {MAX_JOBS} workers")


def _seconds(text: str) -> float:
    return checked_number(
        text,
        float,
        lambda value: math.isfinite(value) and value > 0,
        "a time in seconds above 0, e.g. 600",
    )


def _cpus(text: str) -> float:
    return checked_number(
        text,
        float,
        lambda value: math.isfinite(value) and 0 < value <= MAX_JOBS,
        "a CPU count above 0, e.g. 1 or 0.5",
    )


def _amount(text: str) -> int:
    return checked_number(
        text,
        parse_amount,
        lambda value: value >= 16 << 20,
        "an amount of memory of at least 16MiB, e.g. 2GiB or 512M",
    )


@dataclass(frozen=True, kw_only=True)
class BatchRequest(DrawOptions, RobotOptions):
    """``batch VERB PATH...`` and every option of it (:func:`add_batch_arguments`).

    The drawing options of ``export`` are those of :class:`DrawOptions`.

    Raises
    ------
    UsageError
        Options that do not go together (:func:`usage_problem`).
    """

    verb: str
    """A :class:`~app.headless.batch.items.Verb` value (see :attr:`verb_kind`)."""
    paths: Sequence[Path]
    out: Path | None = None
    output: Path | None = None
    """``index``: the index written (``-o INDEX.json``)."""
    report: Path | None = None
    resume: bool = False
    # The engine.
    jobs: int = DEFAULT_JOBS
    engine: str = "local"
    address: str | None = None
    cpus_per_task: float = 1.0
    inputs: str = "shared"
    timeout: float | None = None
    """Seconds one file's work may take (``None``: no limit)."""
    memory_limit: int | None = None
    """Bytes a worker may hold (``None``: no limit)."""
    # export: the options of ``--export`` besides the drawing ones.
    format: str = "mp4"
    fps: float = 30.0
    start: float | None = None
    end: float | None = None
    time_base: str | None = None
    # check.
    checks: Path | None = None
    """``check``: a TOML file overriding the thresholds (docs/checks.md)."""
    html: Path | None = None
    """``check``: the self-contained HTML report written."""
    # resimulate.
    with_recorded_force: bool = False
    overwrite: bool = False
    wait: bool = False
    """Wait for recordings still being written instead of refusing them."""

    def __post_init__(self) -> None:
        """Refuse options that do not go together."""
        problem = usage_problem(self)
        if problem is not None:
            raise UsageError(problem)

    @property
    def verb_kind(self) -> Verb:
        """The verb, as a member of :class:`~app.headless.batch.items.Verb`."""
        return Verb(self.verb)


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the verb, the paths and every option of ``batch`` to ``parser``."""
    parser.add_argument("verb", choices=[verb.value for verb in Verb])
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="recordings, folders (searched) or playlist index files",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="export, convert, resimulate: outputs"
    )
    parser.add_argument(
        "-o", "--output", type=Path, metavar="INDEX.json", help="index: the index"
    )
    parser.add_argument(
        "--report", type=Path, metavar="REPORT.jsonl", help="one JSON line per file"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip what --report says is done (output complete, input unchanged)",
    )
    parser.add_argument(
        "--checks",
        type=Path,
        metavar="FILE.toml",
        help="check: thresholds overriding the defaults (docs/checks.md)",
    )
    parser.add_argument(
        "--html", type=Path, metavar="FILE.html", help="check: a one-page report"
    )
    _add_engine_options(parser)
    _add_video_options(parser)
    parser.add_argument(
        "--with-recorded-force",
        action="store_true",
        help="resimulate: apply the recorded external force channel",
    )
    add_overwrite(parser)


def _add_engine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=DEFAULT_JOBS,
        metavar="N",
        help="worker processes (default: one per CPU); with Ray, the CPUs of a "
        "local instance",
    )
    parser.add_argument(
        "--wait",
        action="store_true",
        help="wait for recordings still being written (an FSR staging file, or "
        "no end written and changed in the last 5 s) instead of refusing them",
    )
    parser.add_argument("--engine", choices=("local", "ray"), default="local")
    parser.add_argument(
        "--address", metavar="ADDR", help="ray: the cluster (default: a local one)"
    )
    parser.add_argument(
        "--cpus-per-task", type=_cpus, default=1.0, metavar="N", help="ray: CPUs"
    )
    parser.add_argument(
        "--inputs",
        choices=("shared", "object-store"),
        default="shared",
        help="ray: workers read inputs from shared storage (default), or get "
        "each file through the object store and send outputs back",
    )
    parser.add_argument(
        "--timeout", type=_seconds, metavar="S", help="end a file's work after S s"
    )
    parser.add_argument(
        "--memory-limit",
        type=_amount,
        metavar="SIZE",
        help="end a worker that holds more memory (e.g. 2GiB)",
    )


def _add_video_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=_FORMATS, default="mp4", help="export: the video kind"
    )
    parser.add_argument("--panel", action="store_true", help="export: readout panel")
    parser.add_argument("--fps", type=fps_option, default=30.0, help="export: rate")
    parser.add_argument(
        "--speed", type=speed_option, default=1.0, help="export: play-time speed"
    )
    parser.add_argument(
        "--size", type=size_option, metavar="WxH", help="export: each view's size"
    )
    parser.add_argument("--view", choices=_VIEWS, default="auto")
    parser.add_argument("--camera", metavar="NAME", help="export: the camera shown")
    add_overlay_flags(parser)
    parser.add_argument(
        "--environment", metavar="NAME", default="", help="export: env drawn in full"
    )
    parser.add_argument("--start", type=time_option, metavar="T")
    parser.add_argument("--end", type=time_option, metavar="T")
    add_time_base(parser)
    add_robot_options(parser)


def usage_problem(request: BatchRequest) -> str | None:
    """Return the first of ``request``'s options that do not go together, or None.

    The text is the usage error the command line prints (exit 2).
    """
    problems = (
        _output_problem(request),
        _check_problem(request),
        _resume_problem(request),
        _engine_problem(request),
        _window_problem(request.start, request.end),
    )
    return next((problem for problem in problems if problem is not None), None)


def _output_problem(request: BatchRequest) -> str | None:
    verb = request.verb_kind
    if verb.writes_files and request.out is None:
        return f"batch {verb.value} needs --out DIR for its outputs"
    if verb is not Verb.INDEX:
        return None
    if request.output is None:
        return "batch index needs -o INDEX.json"
    if request.output.suffix.lower() != ".json":
        return f"-o {request.output}: an index is written as .json"
    return None


def _check_problem(request: BatchRequest) -> str | None:
    if request.verb_kind is Verb.CHECK:
        if request.html is not None and request.html.suffix.lower() not in (
            ".html",
            ".htm",
        ):
            return f"--html {request.html}: the report is written as .html"
        return None
    for flag, given in (("--checks", request.checks), ("--html", request.html)):
        if given is not None:
            return f"{flag} goes with batch check"
    return None


def _resume_problem(request: BatchRequest) -> str | None:
    if request.resume and request.report is None:
        return "--resume reads what --report REPORT.jsonl says is done"
    return None


def _engine_problem(request: BatchRequest) -> str | None:
    if request.engine == "ray":
        return None
    for flag, given in (
        ("--address", request.address is not None),
        ("--cpus-per-task", request.cpus_per_task != 1.0),
        ("--inputs", request.inputs != "shared"),
    ):
        if given:
            return f"{flag} goes with --engine ray"
    return None


def _window_problem(start: float | None, end: float | None) -> str | None:
    if start is not None and end is not None and not start <= end:
        return f"--start {start:g} is after --end {end:g}"
    return None
