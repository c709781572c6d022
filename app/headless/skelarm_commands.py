"""Handlers of the skelarm subcommands: ``convert``.

``fsr-viewer convert LOG.sklog.npz -o LOG.fsr [--overwrite]`` writes a skelarm
state log as an FSR file (channels with units and labels, the arm, the task,
the embedded config and provenance) that opens in the player like the log.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from fsr_core.errors import FsrError
from fsr_core.simulation.protocol import ReplayOutcome
from fsr_core.simulators.skelarm.replay import plan_for, resimulate_log
from fsr_core.sources.skelarm.convert import convert_log

__all__ = ["COMMANDS", "HANDLERS", "add_parsers", "run_convert", "run_resimulate"]

COMMANDS = frozenset({"convert", "resimulate"})
"""Subcommand names this module adds."""


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``convert`` and ``resimulate`` to the command line."""
    convert = commands.add_parser(
        "convert",
        help="write a skelarm .sklog.npz log as an FSR file",
        description=(
            "Write a skelarm state log as FSR: every channel with its unit, label "
            "and columns, the arm, the task and its overlay, the embedded scenario "
            "config and provenance. The FSR file opens with the same channels, "
            "overlays and readouts as the log. The output appears only when "
            "complete and an existing file is kept unless --overwrite."
        ),
    )
    convert.add_argument("log", type=Path, help="a skelarm .sklog.npz log")
    convert.add_argument(
        "-o", "--output", type=Path, default=None, help="FSR file (default LOG.fsr)"
    )
    convert.add_argument(
        "--overwrite", action="store_true", help="replace an existing output"
    )
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
    resimulate.add_argument(
        "-o", "--output", type=Path, required=True, help="the re-run (.sklog.npz)"
    )
    resimulate.add_argument(
        "--with-recorded-inputs",
        action="store_true",
        help="interactive logs: replay the recorded pushes (ext_force), friction "
        "and target switches",
    )
    resimulate.add_argument(
        "--overwrite", action="store_true", help="replace an existing output"
    )


def _default_output(log: Path) -> Path:
    name = log.name
    for suffix in (".sklog.npz", ".npz"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return log.with_name(name[: -len(suffix)] + ".fsr")
    return log.with_name(name + ".fsr")


def run_convert(args: argparse.Namespace) -> int:
    """Convert one log; print what was written."""
    output = args.output if args.output is not None else _default_output(args.log)
    result = convert_log(args.log, output, overwrite=args.overwrite)
    published = result.published
    sys.stdout.write(
        f"{published.path}: {result.frames} frames, "
        f"{len(result.channels)} channels ({', '.join(result.channels)}), "
        f"{published.records} records, {published.size_bytes} bytes\n"
    )
    return 0


def run_resimulate(args: argparse.Namespace) -> int:
    """Say what the re-run will be, run it, and print where it went."""
    try:
        plan = plan_for(args.log)
        replayed = (
            " (its recorded inputs replayed)" if args.with_recorded_inputs else ""
        )
        sys.stdout.write(f"{args.log}: {plan.tier.value}{replayed}\n")
        for note in plan.notes_for(args.with_recorded_inputs):
            sys.stdout.write(f"  - {note}\n")
        sys.stdout.flush()
        result = resimulate_log(
            args.log,
            args.output,
            with_recorded_force=args.with_recorded_inputs,
            overwrite=args.overwrite,
        )
    except FsrError as exc:
        sys.stderr.write(f"fsr-viewer resimulate: {exc}\n")
        return 1
    if result.outcome is not ReplayOutcome.SUCCEEDED:
        sys.stderr.write(f"fsr-viewer resimulate: {args.log}: {result.message}\n")
        return 1
    sys.stdout.write(
        f"{result.output}: re-run by skelarm in {result.wall_s:.1f} s; compare "
        f"with: fsr-viewer compare {args.log} {result.output}\n"
    )
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "convert": run_convert,
    "resimulate": run_resimulate,
}
"""Handler of each subcommand, for ``app.cli.main``'s table."""
