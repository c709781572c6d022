"""Handlers of the subcommands that write an FSR file of their own: recover, sample.

``fsr-viewer recover DAMAGED OUT`` writes a sealed copy of what can be
trusted of a damaged FSR file (recovery repairs FSR files only: a recording
of another kind is refused, ``convert`` writes it as FSR). ``fsr-viewer
sample OUT`` writes a small synthetic recording holding every stream kind.
Both refuse an existing output and print one line saying what was written.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from app.headless.options import MAX_TICKS, checked_number, set_runner
from fsr_core.errors import SourceUnavailableError, UnknownSourceError
from fsr_core.output_paths import check_output_path
from fsr_core.sources import source_for

__all__ = [
    "COMMANDS",
    "RecoverRequest",
    "SampleRequest",
    "add_parsers",
    "run_recover",
    "run_sample",
]

COMMANDS = frozenset({"recover", "sample"})
"""Subcommand names this module adds."""


@dataclass(frozen=True, kw_only=True)
class RecoverRequest:
    """``recover DAMAGED OUT``."""

    damaged: Path
    output: Path


@dataclass(frozen=True, kw_only=True)
class SampleRequest:
    """``sample OUT [--codec C] [--integrity I] [--ticks N]``."""

    output: Path
    codec: str = "jpeg"
    integrity: str = "structural"
    ticks: int = 240


def _ticks(text: str) -> int:
    return checked_number(
        text, int, lambda value: 1 <= value <= MAX_TICKS, f"1 to {MAX_TICKS} ticks"
    )


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``recover`` and ``sample`` to the command line."""
    recover = commands.add_parser(
        "recover",
        help="write a sealed copy of the trustworthy part of a damaged FSR file",
    )
    recover.add_argument("damaged", type=Path)
    recover.add_argument("output", type=Path)
    set_runner(recover, RecoverRequest, run_recover)
    sample = commands.add_parser(
        "sample", help="write a small synthetic recording (every stream kind)"
    )
    sample.add_argument("output", type=Path)
    sample.add_argument("--codec", choices=("jpeg", "png", "rgb24"), default="jpeg")
    sample.add_argument(
        "--integrity", choices=("structural", "fast", "strong"), default="structural"
    )
    sample.add_argument(
        "--ticks",
        type=_ticks,
        default=240,
        help=f"ticks per generation (1 to {MAX_TICKS:,})",
    )
    set_runner(sample, SampleRequest, run_sample)


def _refuse_other_kinds(path: Path) -> None:
    """Refuse a recording of another kind; let FSR (even damaged) through."""
    try:
        source = source_for(path)
    except UnknownSourceError:
        return  # a damaged FSR file may have lost its magic: recovery says more
    if source.name != "fsr":
        raise SourceUnavailableError(
            f"a {source.description}, not an FSR file: recover repairs FSR files "
            "only (convert writes this one as FSR)",
            path=path,
        )


def run_recover(request: RecoverRequest) -> int:
    """Write the trusted part of ``request.damaged``; print what was kept."""
    from fsr_core.format.recovery import recover_file  # only recover writes FSR

    _refuse_other_kinds(request.damaged)
    check_output_path(request.output, (request.damaged,))
    result = recover_file(request.damaged, request.output)
    state = "damaged" if result.was_damaged else "intact"
    sys.stdout.write(
        f"{result.output}: kept {result.records_kept} records in "
        f"{result.batches_kept} batches, {result.trusted_bytes} of "
        f"{result.source_bytes} bytes ({state} source: {result.reason})\n"
    )
    return 0


def run_sample(request: SampleRequest) -> int:
    """Write the synthetic recording ``request`` asks for; print its size."""
    from fsr_core.format.profiles import IntegrityProfile
    from fsr_core.synthetic import SyntheticRun, write_synthetic

    check_output_path(request.output)
    run = SyntheticRun(
        ticks=request.ticks,
        codec=request.codec,
        integrity=IntegrityProfile(request.integrity),
    )
    result = write_synthetic(request.output, run)
    sys.stdout.write(
        f"{result.path}: {result.records} records, {result.size_bytes} bytes\n"
    )
    return 0
