"""Handler of the ``compare`` subcommand: does one recording reproduce another.

``fsr-viewer compare A B [--json] [--tolerance X] [--channels a,b]
[--pixel-tolerance N] [--cameras a,b]`` compares B (the candidate) with A (the
reference) channel by channel and camera by camera, and prints the tables or
JSON. Exit 0 when within tolerance, 1 when not, 2 when the files cannot be
compared (unreadable, no channel, camera or time in common, an unknown name).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.headless.options import (
    add_episode,
    add_time_base,
    checked_number,
    finite_non_negative,
    open_options,
    set_runner,
    whole_number,
)
from fsr_core.errors import FsrError
from fsr_core.sources import open_recording

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_DIVERGES",
    "CompareRequest",
    "add_parsers",
    "run_compare",
]

logger = logging.getLogger(__name__)

EXIT_DIVERGES = 1
EXIT_BAD_INPUT = 2
_MAX_LEVEL = 255


@dataclass(frozen=True, kw_only=True)
class CompareRequest:
    """``compare REFERENCE CANDIDATE`` and its options."""

    reference: Path
    candidate: Path
    json: bool = False
    tolerance: float = 0.0
    channels: Sequence[str] | None = None
    """Only these channels (``None``: every channel, unless ``cameras`` is set)."""
    pixel_tolerance: int = 0
    cameras: Sequence[str] | None = None
    """Only these cameras (``None``: every camera, unless ``channels`` is set)."""
    time_base: str | None = None
    verbose: bool = False


def _tolerance(text: str) -> float:
    return checked_number(
        text,
        float,
        finite_non_negative,
        "a finite number >= 0, e.g. 1e-9",
    )


def _pixel_tolerance(text: str) -> int:
    return whole_number(
        text, 0, _MAX_LEVEL, f"whole levels from 0 to {_MAX_LEVEL}, e.g. 2"
    )


def _names(text: str, what: str, example: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected {what} names separated by commas, e.g. {example}"
        )
    return names


def _channel_names(text: str) -> list[str]:
    return _names(text, "channel", "q,ext_force")


def _camera_names(text: str) -> list[str]:
    return _names(text, "camera", "front,side")


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``compare`` to the command line."""
    compare = commands.add_parser(
        "compare",
        help="compare two recordings' channels and camera frames (exit 0: agree)",
        description=(
            "Compare CANDIDATE with REFERENCE channel by channel on the reference's "
            "sample times: per channel the maximum and RMS absolute error, the first "
            "time it exceeds the tolerance, and a verdict. Cameras on both sides are "
            "compared frame by frame on the reference's frame times: the largest and "
            "mean pixel error in 8-bit levels, the worst PSNR, the first frame that "
            "differs by more than the pixel tolerance. Exit 0 when everything is "
            "within its tolerance, 1 when not, 2 when the files cannot be compared."
        ),
    )
    compare.add_argument("reference", type=Path, help="the recording to match")
    add_episode(compare)
    compare.add_argument("candidate", type=Path, help="the recording to judge")
    compare.add_argument("--json", action="store_true", help="machine-readable output")
    compare.add_argument(
        "--tolerance",
        type=_tolerance,
        default=0.0,
        metavar="X",
        help="largest absolute error accepted, in each channel's unit (default 0)",
    )
    compare.add_argument(
        "--channels",
        type=_channel_names,
        metavar="A,B",
        help="compare only these channels (comma-separated names; no camera "
        "unless --cameras names some)",
    )
    compare.add_argument(
        "--pixel-tolerance",
        type=_pixel_tolerance,
        default=0,
        metavar="N",
        help="largest pixel error accepted in camera frames, in 8-bit levels "
        "(default 0: identical frames)",
    )
    compare.add_argument(
        "--cameras",
        type=_camera_names,
        metavar="A,B",
        help="compare only these cameras (comma-separated names; no channel "
        "unless --channels names some)",
    )
    add_time_base(compare)
    set_runner(compare, CompareRequest, run_compare)


def run_compare(request: CompareRequest) -> int:
    """Compare the two files; return 0 within tolerance, 1 not, 2 on bad input."""
    # Imported here: the command line builds this parser for every command.
    from app.headless.compare_report import format_comparison
    from fsr_core.compare import compare_recordings

    try:
        options = open_options(request)
        reference = open_recording(request.reference, options=options)
        candidate = open_recording(request.candidate, options=options)
        comparison = compare_recordings(
            reference,
            candidate,
            tolerance=request.tolerance,
            channels=request.channels,
            cameras=request.cameras,
            pixel_tolerance=request.pixel_tolerance,
        )
    except FsrError as exc:
        if request.verbose:
            logger.exception("compare failed")
        sys.stderr.write(f"fsr-viewer compare: {exc}\n")
        return EXIT_BAD_INPUT
    if request.json:
        text = json.dumps(comparison.to_json(), indent=2, allow_nan=False)
    else:
        text = format_comparison(comparison)
    sys.stdout.write(text + "\n")
    return 0 if comparison.within_tolerance else EXIT_DIVERGES
