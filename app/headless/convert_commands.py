"""Handler of the ``convert`` subcommand: write a recording of another kind as FSR.

``fsr-viewer convert FILE [-o OUT.fsr] [--overwrite]`` asks the source
registry which kind FILE is and has that source write it as FSR (a skelarm log
becomes channels with units and labels, the arm, the task, the embedded config
and provenance, and opens in the player like the log). A kind that cannot
convert, FSR included, is refused with one line.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from app.headless.options import (
    RobotOptions,
    add_episode,
    add_fps,
    add_output,
    add_overwrite,
    add_robot_options,
    add_time_base,
    open_options,
    set_runner,
)
from fsr_core.sources import (
    convert_recording,
    recording_stem,
    source_for,
    split_episode_path,
)

__all__ = ["ConvertRequest", "add_convert_parser", "default_output", "run_convert"]


@dataclass(frozen=True, kw_only=True)
class ConvertRequest(RobotOptions):
    """``convert FILE [-o OUT.fsr] [--overwrite] [--time-base B] [--robot FILE ...]``.

    ``--episode N`` is resolved before: ``log`` is then the episode's address.
    """

    log: Path
    output: Path | None = None
    """``None``: beside ``log`` (an episode: in the working folder), as FSR."""
    overwrite: bool = False
    time_base: str | None = None
    fps: float | None = None


def add_convert_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add ``convert`` to the command line."""
    convert = commands.add_parser(
        "convert",
        help="write a recording (a skelarm .sklog.npz log) as an FSR file",
        description=(
            "Write a recording of another kind as FSR. A skelarm state log gives "
            "every channel with its unit, label and columns, the arm, the task "
            "and its overlay, the embedded scenario config and provenance; the "
            "FSR file opens with the same channels, overlays and readouts as the "
            "log. The output appears only when complete and an existing file is "
            "kept unless --overwrite. An FSR file needs no conversion."
        ),
    )
    convert.add_argument(
        "log", type=Path, help="the recording to convert, e.g. a skelarm .sklog.npz"
    )
    add_output(
        convert,
        "FSR file (default: the log's name with .fsr for its extension)",
        required=False,
    )
    add_overwrite(convert)
    add_episode(convert)
    add_time_base(convert)
    add_fps(convert)
    add_robot_options(convert)
    set_runner(convert, ConvertRequest, run_convert)


def default_output(path: Path, patterns: tuple[str, ...]) -> Path:
    """Return ``path`` with the longest matching ``*.ext`` pattern made ``.fsr``.

    ``run.sklog.npz`` (patterns ``*.sklog.npz``, ``*.npz``) gives ``run.fsr``;
    a name no pattern matches gets ``.fsr`` appended.
    """
    name = path.name
    suffixes = sorted(
        (pattern[1:] for pattern in patterns if pattern.startswith("*.")),
        key=len,
        reverse=True,
    )
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix):
            return path.with_name(name[: -len(suffix)] + ".fsr")
    return path.with_name(name + ".fsr")


def run_convert(request: ConvertRequest) -> int:
    """Convert one recording; print what was written."""
    output = request.output
    if output is None and split_episode_path(request.log) is not None:
        # Never into the dataset: <dataset>_episode_000003.fsr here.
        output = Path(f"{recording_stem(request.log)}.fsr")
    if output is None:
        output = default_output(request.log, source_for(request.log).patterns)
    result = convert_recording(
        request.log, output, overwrite=request.overwrite, options=open_options(request)
    )
    sys.stdout.write(
        f"{result.output}: {result.summary}, {result.records} records, "
        f"{result.size_bytes} bytes\n"
    )
    return 0
