"""Handlers of the subcommands that take a skelarm log: ``convert``, ``resimulate``.

``convert`` is generic (:mod:`app.headless.convert_commands`: any kind of
recording whose source converts, skelarm logs today); it is added here with
``resimulate``, which re-runs a log through skelarm itself.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from app.headless.convert_commands import (
    ConvertRequest,
    add_convert_parser,
    run_convert,
)
from app.headless.options import add_output, add_overwrite, set_runner
from fsr_core.errors import FsrError
from fsr_core.output_paths import check_output_path
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions, ReplayOutcome

__all__ = [
    "COMMANDS",
    "ConvertRequest",
    "ResimulateRequest",
    "add_parsers",
    "run_convert",
    "run_resimulate",
]

COMMANDS = frozenset({"convert", "resimulate"})
"""Subcommand names this module adds."""


@dataclass(frozen=True, kw_only=True)
class ResimulateRequest:
    """``resimulate LOG -o OUT.sklog.npz [--with-recorded-inputs] [--overwrite]``."""

    log: Path
    output: Path
    with_recorded_inputs: bool = False
    overwrite: bool = False


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``convert`` and ``resimulate`` to the command line."""
    add_convert_parser(commands)
    _add_resimulate(commands)


def _add_resimulate(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    resimulate = commands.add_parser(
        "resimulate",
        help="re-run a skelarm log through skelarm (Python >= 3.12)",
        description=(
            "Re-run a skelarm log from its embedded configuration through "
            "skelarm's own re-simulation, into a new .sklog.npz; compare it with "
            "`fsr-viewer compare LOG OUT`. A headless scenario log re-runs bit for "
            "bit; a log recorded in skelarm's interactive simulator re-runs as "
            "the unperturbed scenario unless --with-recorded-inputs; a log "
            "without a configuration cannot be re-run. What the re-run will be "
            "is said before it starts."
        ),
    )
    resimulate.add_argument(
        "log", type=Path, help="a skelarm .sklog.npz log or its converted FSR file"
    )
    add_output(resimulate, "the re-run (.sklog.npz)")
    resimulate.add_argument(
        "--with-recorded-inputs",
        action="store_true",
        help="interactive logs: replay the recorded pushes (ext_force), friction "
        "and target switches",
    )
    add_overwrite(resimulate)
    set_runner(resimulate, ResimulateRequest, run_resimulate)


def run_resimulate(request: ResimulateRequest) -> int:
    """Say what the re-run will be, run it, and print where it went."""
    # Imported here: the command line builds this parser for every command.
    from fsr_core.simulation.registry import get_adapter

    options = ReplayOptions(
        ReplayMode.RESIMULATE,
        with_recorded_force=request.with_recorded_inputs,
        overwrite=request.overwrite,
    )
    log, output = request.log, request.output
    try:
        check_output_path(
            output, (log,), overwrite=request.overwrite, hint=" (--overwrite)"
        )
        simulator = get_adapter("skelarm", require_available=False)
        plan = simulator.plan_replay(log, options)
        replayed = (
            " (its recorded inputs replayed)" if request.with_recorded_inputs else ""
        )
        sys.stdout.write(f"{log}: {plan.fidelity}{replayed}\n")
        for note in plan.notes:
            sys.stdout.write(f"  - {note}\n")
        sys.stdout.flush()
        result = simulator.replay(log, output, options)
    except FsrError as exc:
        sys.stderr.write(f"fsr-viewer resimulate: {exc}\n")
        return 1
    if result.outcome is not ReplayOutcome.SUCCEEDED:
        sys.stderr.write(f"fsr-viewer resimulate: {log}: {result.message}\n")
        return 1
    sys.stdout.write(
        f"{result.output}: re-run by skelarm in {result.wall_s:.1f} s; compare "
        f"with: fsr-viewer compare {log} {result.output}\n"
    )
    return 0
