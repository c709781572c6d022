"""Handler of the ``inspect`` subcommand: validate a recording and print its report.

``fsr-viewer inspect FILE [--json] [--verify] [--episode N] [--time-base B]
[--robot FILE ...]``
asks the source registry for FILE's inspection report (one JSON shape for
every kind, :mod:`fsr_core.sources.inspection`) and prints it as text or
JSON. Exit 0 when the recording is valid, 1 when not (with one line naming
the file and its first problem on stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.headless.options import (
    RobotOptions,
    add_episode,
    add_fps,
    add_robot_options,
    add_time_base,
    checked_number,
    open_options,
    set_runner,
)
from app.headless.report_text import format_report
from fsr_core.sources import inspect_recording

__all__ = ["COMMANDS", "InspectRequest", "add_parsers", "run_inspect"]

COMMANDS = frozenset({"inspect"})
"""Subcommand names this module adds."""


@dataclass(frozen=True, kw_only=True)
class InspectRequest(RobotOptions):
    """``inspect FILE [--json] [--verify] [--time-base B] [--robot FILE ...]``.

    ``--episode N`` is resolved before: ``file`` is then the episode's address.
    """

    file: Path
    json: bool = False
    verify: bool = False
    time_base: str | None = None
    fps: float | None = None
    follow: bool = False
    interval: float = 1.0


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``inspect`` to the command line."""
    inspect = commands.add_parser(
        "inspect",
        help="validate a recording (any kind) and print its report",
        description=(
            "Validate a recording and print its report: for an FSR file the "
            "container (profile, streams, calibration epochs, lifecycle, gaps, "
            "provenance), for another kind what its source knows; --json prints "
            "the same top-level keys for every kind (source, path, size_bytes, "
            "valid, integrity, duration_s, channels, cameras, metadata, "
            "provenance, notes) and the source's own section. Exit 0 when "
            "valid, 1 when not."
        ),
    )
    inspect.add_argument("file", type=Path)
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument(
        "--verify", action="store_true", help="also read and check every record"
    )
    inspect.add_argument(
        "--follow",
        action="store_true",
        help="the recording is being written: print one line a second (records, "
        "time span, rate) until its writer closes it or Ctrl-C, then inspect it",
    )
    inspect.add_argument(
        "--interval",
        type=_interval,
        default=1.0,
        metavar="S",
        help="--follow: seconds between two lines (default 1)",
    )
    add_episode(inspect)
    add_time_base(inspect)
    add_fps(inspect)
    add_robot_options(inspect)
    set_runner(inspect, InspectRequest, run_inspect)


def _interval(text: str) -> float:
    return checked_number(
        text,
        float,
        lambda value: math.isfinite(value) and 0.01 <= value <= 3600,
        "seconds between 0.01 and 3600",
    )


def run_inspect(request: InspectRequest) -> int:
    """Print the report of ``request.file``; return 0 when valid, 1 when not.

    With ``--follow``, follow the recording first (:mod:`app.headless.follow_report`)
    and inspect the finished file.
    """
    if request.follow:
        from app.headless.follow_report import run_follow

        return run_follow(
            request.file,
            interval_s=request.interval,
            inspect=lambda published: _inspect(
                dataclasses.replace(request, file=published, follow=False)
            ),
        )
    return _inspect(request)


def _inspect(request: InspectRequest) -> int:
    if request.verify:
        from app.headless.verified_report import verified_report

        report = verified_report(request.file, open_options(request))
    else:
        report = inspect_recording(request.file, options=open_options(request))
    if request.json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=True) + "\n")
    else:
        sys.stdout.write(format_report(report) + "\n")
    if report["valid"]:
        return 0
    sys.stderr.write(f"fsr-viewer: {_first_problem(request.file, report)}\n")
    return 1


def _first_problem(path: Path, report: dict[str, Any]) -> str:
    """Return the first problem of an invalid ``report``, naming ``path`` once."""
    verification = report.get("verification") or {}
    integrity = report.get("integrity") or {}
    problems = verification.get("problems") or [integrity.get("reason", "invalid")]
    problem = str(problems[0])
    return problem if problem.startswith(f"{path}: ") else f"{path}: {problem}"
