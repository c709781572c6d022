"""The export half of ``fsr-viewer FILE... --export…``: option checks and runs.

:func:`check_options` refuses a bad export command line before any work (an
argparse usage error, exit 2); :func:`run_export` opens the recording(s),
checks what needs the recording (the play-time window, the camera) and
writes the video, the still or the channel CSV, with a progress bar on
stderr for videos. ``app.cli`` only parses and dispatches here.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from pathlib import Path

from app.headless.export.channels import export_channels
from app.headless.export.request import VideoRequest, export_request
from app.headless.export.still import STILL_FORMATS, check_play_time, export_frame
from app.headless.export.video import (
    CHOICES,
    EXPORT_FORMATS,
    check_view,
    ensure_gui_app,
    play_window,
)
from app.headless.options import open_options
from app.headless.terminal_progress import TerminalProgress
from fsr_core.errors import FsrError
from fsr_core.output_paths import check_output_path, prepare_output_folder
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording, recording_stem

__all__ = [
    "TerminalProgress",
    "check_options",
    "run_export",
    "stem",
    "video_request",
    "wants_export",
]

logger = logging.getLogger(__name__)


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def wants_export(args: argparse.Namespace) -> bool:
    """Say whether the command line asks for any export (and no window)."""
    asked = (args.export, args.export_dir, args.export_frame, args.export_channels)
    return any(item is not None for item in asked)


def check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse a bad export request through ``parser.error`` (exit 2).

    Turns ``args.export_frame`` into ``(play_time_s, Path)``.
    """
    if args.export_frame is not None:
        args.export_frame = _frame_request(parser, args.export_frame)
    channels = args.export_channels
    if channels is not None and channels.suffix.lower() != ".csv":
        parser.error(f"--export-channels {channels}: use a .csv name")
    _check_targets(parser, args)
    if args.export is not None and args.export.suffix.lower() not in EXPORT_FORMATS:
        parser.error(f"--export {args.export}: the extension must be {CHOICES}")
    if args.export is not None or args.export_dir is not None:
        if not (args.fps > 0 and args.speed > 0):
            parser.error("--fps and --speed must be positive")
        start, end = args.start, args.end
        if start is not None and end is not None and not start <= end:
            parser.error(f"--start {start:g} is after --end {end:g}")


def _check_targets(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One recording per single output; ``--export-dir`` for several."""
    exporting = (args.export, args.export_frame, args.export_channels)
    if args.export_dir is not None:
        if any(item is not None for item in exporting):
            parser.error(
                "--export-dir cannot be combined with --export, --export-frame "
                "or --export-channels"
            )
        if not args.files:
            parser.error("--export-dir needs at least one recording")
    elif any(item is not None for item in exporting) and len(args.files) != 1:
        parser.error("--export takes a single recording (use --export-dir for several)")


def _frame_request(
    parser: argparse.ArgumentParser, words: list[str]
) -> tuple[float, Path]:
    """Check ``--export-frame T OUT.png``."""
    try:
        play_time_s = float(words[0])
    except ValueError:
        play_time_s = math.nan
    if not (math.isfinite(play_time_s) and play_time_s >= 0):
        parser.error(f"--export-frame {words[0]!r}: T must be a time in seconds")
    output = Path(words[1])
    if output.suffix.lower() not in STILL_FORMATS:
        parser.error(f"--export-frame {output}: the still is written as .png")
    return play_time_s, output


def stem(path: Path) -> str:
    """Return ``path``'s name without its recording ending (``run.fsr``: ``run``)."""
    return recording_stem(path)


def run_export(args: argparse.Namespace) -> int:
    """Run the checked export request; return the exit code.

    A data problem of a single export raises its :class:`FsrError` (the CLI
    prints it); ``--export-dir`` reports each failed file and goes on.
    """
    if args.export_dir is not None:
        _prepare_folder(args.export_dir)
        return _export_dir(args)
    for output in _outputs(args):
        check_output_path(
            output, args.files, overwrite=args.overwrite, hint=" (use --overwrite)"
        )
    return _export_one(args)


def _outputs(args: argparse.Namespace) -> list[Path]:
    """Every file a single export writes (video, still, channel CSV)."""
    frame = args.export_frame[1] if args.export_frame is not None else None
    asked = (args.export, frame, args.export_channels)
    return [path for path in asked if path is not None]


def _prepare_folder(folder: Path) -> None:
    """Create ``--export-dir`` if needed; refuse one that is not a writable folder.

    Raises
    ------
    WriteFailedError
        The folder cannot be created, is not a folder, or is read-only.
    """
    prepare_output_folder(folder, what="export")


def _export_dir(args: argparse.Namespace) -> int:
    """Export every FILE to ``DIR/<stem>.<format>``; a failure skips that file."""
    failed = 0
    for source in args.files:
        output = args.export_dir / f"{stem(source)}.{args.format}"
        try:
            check_output_path(
                output, args.files, overwrite=args.overwrite, hint=" (use --overwrite)"
            )
            model = open_recording(source, options=open_options(args))
            play_window(model.duration_s, args.start, args.end)
            check_view(model, args.view, args.camera)
            _export_video(args, model, output)
        except (FsrError, ValueError, OSError) as exc:
            if args.verbose:
                logger.exception("export of %s failed", source)
            text = str(exc)
            _err(f"fsr-viewer: {text if str(source) in text else f'{source}: {text}'}")
            failed += 1
    if failed:
        _err(f"fsr-viewer: {failed} of {len(args.files)} exports failed")
    return 1 if failed else 0


def _export_one(args: argparse.Namespace) -> int:
    model = open_recording(args.files[0], options=open_options(args))
    try:
        play_window(model.duration_s, args.start, args.end)
        if args.export_frame is not None:
            check_play_time(model.duration_s, args.export_frame[0])
    except ValueError as exc:
        _err(f"fsr-viewer: {args.files[0]}: {exc}")
        return 1
    if args.export is not None or args.export_frame is not None:
        try:
            check_view(model, args.view, args.camera)
        except ValueError as exc:  # the message names the file
            _err(f"fsr-viewer: {exc}")
            return 1
    if args.export_channels is not None:
        _export_channels(args, model)
    if args.export_frame is not None:
        _export_frame(args, model)
    if args.export is not None:
        _export_video(args, model, args.export)
    return 0


def _export_channels(args: argparse.Namespace, model: RecordingModel) -> None:
    table = export_channels(model, args.export_channels, overwrite=args.overwrite)
    _out(
        f"{table.path}: {table.rows} rows, {table.columns} columns "
        f"(one row per sample of {table.primary})"
    )


def _export_frame(args: argparse.Namespace, model: RecordingModel) -> None:
    ensure_gui_app()
    play_time_s, output = args.export_frame
    still = export_frame(
        model,
        play_time_s,
        output,
        panel=args.panel,
        show_com=args.show_com,
        environment=args.environment,
        size=args.size,
        view=args.view,
        camera=args.camera,
        overwrite=args.overwrite,
    )
    _out(f"{still.path}: {still.width}x{still.height} at t = {play_time_s:g} s")


def video_request(
    args: argparse.Namespace, source: Path, output: Path, *, overwrite: bool = False
) -> VideoRequest:
    """Return the video export the ``--export`` options ask for (batch too)."""
    return VideoRequest(
        source=source,
        output=output,
        fps=args.fps,
        speed=args.speed,
        size=args.size or (800, 800),
        view=args.view,
        camera=args.camera,
        panel=args.panel,
        show_com=args.show_com,
        environment=args.environment,
        start_s=args.start,
        end_s=args.end,
        overwrite=overwrite,
    )


def _export_video(
    args: argparse.Namespace, model: RecordingModel, output: Path
) -> None:
    ensure_gui_app()
    request = video_request(args, model.path, output, overwrite=args.overwrite)
    bar = TerminalProgress()
    try:  # the export File → Export… runs too
        result = export_request(model, request, progress=bar)
    finally:
        bar.close()
    _out(
        f"{result.path}: {result.frames} frames, {result.width}x{result.height}, "
        f"{result.frames / args.fps:.2f} s at {args.fps:g} fps "
        f"(exported in {result.seconds:.1f} s)"
    )
