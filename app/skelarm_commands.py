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

from fsr_core.sources.skelarm.convert import convert_log

__all__ = ["COMMANDS", "HANDLERS", "add_parsers", "run_convert"]

COMMANDS = frozenset({"convert"})
"""Subcommand names this module adds."""


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``convert`` to the command line."""
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


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {"convert": run_convert}
"""Handler of each subcommand, for ``app.cli.main``'s table."""
