"""The export half of ``fsr-viewer FILE... --export…``: its request, checks and runs.

:class:`ExportCommand` is what the command line parsed: the recordings, the
outputs asked for (video, still, channel CSV, or a video per file into a
folder) and the :class:`~app.canvas.view_model.ViewModel` they draw.
:func:`usage_problem` says what is wrong with a command before any work (the
command line turns it into a usage error, exit 2); :func:`run_export` opens
the recording(s), checks every output against it once (before writing any)
and writes them, with a progress bar on stderr for videos.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path

from app.canvas.view_model import ViewModel
from app.headless.export.channels import export_channels
from app.headless.export.request import StillRequest, VideoRequest
from app.headless.export.still import STILL_FORMATS, plan_still, write_still
from app.headless.export.video import (
    CHOICES,
    EXPORT_FORMATS,
    VideoPlan,
    ensure_gui_app,
    plan_video,
    write_video,
)
from app.headless.terminal_progress import TerminalProgress
from fsr_core.errors import FsrError
from fsr_core.output_paths import prepare_output_folder
from fsr_core.recording import RecordingModel
from fsr_core.sources import OpenOptions, open_recording, recording_stem

__all__ = ["ExportCommand", "TerminalProgress", "run_export", "stem", "usage_problem"]

logger = logging.getLogger(__name__)

_LISTED = 5
"""Channels left out of a CSV that its line names (the rest are counted)."""


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


@dataclass(frozen=True)
class ExportCommand:
    """A headless export the command line asked for."""

    files: tuple[Path, ...]
    shown: ViewModel = field(default_factory=ViewModel)
    video: Path | None = None
    """``--export``: one recording's video."""
    export_dir: Path | None = None
    """``--export-dir``: every recording's video, ``DIR/<stem>.<format>``."""
    format: str = "mp4"
    still: tuple[float, Path] | None = None
    """``--export-frame T OUT.png``."""
    channels: Path | None = None
    """``--export-channels OUT.csv``."""
    fps: float = 30.0
    start_s: float | None = None
    end_s: float | None = None
    overwrite: bool = False
    verbose: bool = False
    opening: OpenOptions = field(default_factory=OpenOptions)

    @property
    def asked(self) -> bool:
        """Whether any export is asked for (and so no window)."""
        outputs = (self.video, self.export_dir, self.still, self.channels)
        return any(item is not None for item in outputs)

    def video_request(self, source: Path, output: Path) -> VideoRequest:
        """Return the video export of ``source`` to ``output`` these options ask."""
        return VideoRequest(
            source,
            output,
            self.shown,
            fps=self.fps,
            start_s=self.start_s,
            end_s=self.end_s,
            overwrite=self.overwrite,
        )


def usage_problem(command: ExportCommand) -> str | None:
    """Return what makes ``command`` unusable (None when it can run).

    Checks what needs no recording: one recording per single output, the
    extensions, the rates and the play-time window's order.
    """
    singles = (command.video, command.still, command.channels)
    if command.export_dir is not None:
        if any(item is not None for item in singles):
            return (
                "--export-dir cannot be combined with --export, --export-frame "
                "or --export-channels"
            )
        if not command.files:
            return "--export-dir needs at least one recording"
    elif any(item is not None for item in singles) and len(command.files) != 1:
        return "--export takes a single recording (use --export-dir for several)"
    return _output_problem(command) or _timing_problem(command)


def _output_problem(command: ExportCommand) -> str | None:
    if command.still is not None:
        output = command.still[1]
        if output.suffix.lower() not in STILL_FORMATS:
            return f"--export-frame {output}: the still is written as .png"
    channels = command.channels
    if channels is not None and channels.suffix.lower() != ".csv":
        return f"--export-channels {channels}: use a .csv name"
    video = command.video
    if video is not None and video.suffix.lower() not in EXPORT_FORMATS:
        return f"--export {video}: the extension must be {CHOICES}"
    return None


def _timing_problem(command: ExportCommand) -> str | None:
    if command.video is None and command.export_dir is None:
        return None
    if not (command.fps > 0 and command.shown.speed > 0):
        return "--fps and --speed must be positive"
    start, end = command.start_s, command.end_s
    if start is not None and end is not None and not start <= end:
        return f"--start {start:g} is after --end {end:g}"
    return None


def stem(path: Path) -> str:
    """Return ``path``'s name without its recording ending (``run.fsr``: ``run``)."""
    return recording_stem(path)


def run_export(command: ExportCommand) -> int:
    """Run a checked export command; return the exit code.

    A data problem of a single export raises its :class:`FsrError` (the CLI
    prints it); ``--export-dir`` reports each failed file and goes on.
    """
    if command.export_dir is not None:
        prepare_output_folder(command.export_dir, what="export")
        return _export_dir(command, command.export_dir)
    return _export_one(command)


def _export_dir(command: ExportCommand, folder: Path) -> int:
    """Export every FILE to ``DIR/<stem>.<format>``; a failure skips that file."""
    failed = 0
    for source in command.files:
        output = folder / f"{stem(source)}.{command.format}"
        try:
            model = open_recording(source, options=command.opening)
            _export_video(model, command.video_request(model.path, output))
        except (FsrError, ValueError, OSError) as exc:
            if command.verbose:
                logger.exception("export of %s failed", source)
            text = str(exc)
            _err(f"fsr-viewer: {text if str(source) in text else f'{source}: {text}'}")
            failed += 1
    if failed:
        _err(f"fsr-viewer: {failed} of {len(command.files)} exports failed")
    return 1 if failed else 0


def _export_one(command: ExportCommand) -> int:
    """Check every output of the one recording, then write them all."""
    model = open_recording(command.files[0], options=command.opening)
    try:
        video = None
        if command.video is not None:
            request = command.video_request(model.path, command.video)
            video = plan_video(model, request)
        still = None
        if command.still is not None:
            play_time_s, output = command.still
            shown, overwrite = command.shown, command.overwrite
            request_still = StillRequest(
                model.path, output, play_time_s, shown, overwrite
            )
            still = plan_still(model, request_still)
    except ValueError as exc:
        text = str(exc)
        named = text if str(model.path) in text else f"{command.files[0]}: {text}"
        _err(f"fsr-viewer: {named}")
        return 1
    if command.channels is not None:
        _export_channels(model, command.channels, command.overwrite)
    if still is not None:
        ensure_gui_app()
        done = write_still(still)
        at = still.request.play_time_s
        _out(f"{done.path}: {done.width}x{done.height} at t = {at:g} s")
    if video is not None:
        _write_video(video)
    return 0


def _export_channels(model: RecordingModel, output: Path, overwrite: bool) -> None:
    table = export_channels(model, output, overwrite=overwrite)
    left_out = ""
    if table.left_out:
        named = ", ".join(name[:80] for name in table.left_out[:_LISTED])
        more = len(table.left_out) - _LISTED
        rest = f" and {more} more" if more > 0 else ""
        left_out = (
            f"; {len(table.left_out)} channel(s) without numbers left out: "
            f"{named}{rest}"
        )
    _out(
        f"{table.path}: {table.rows} rows, {table.columns} columns "
        f"(one row per sample of {table.primary}){left_out}"
    )


def _export_video(model: RecordingModel, request: VideoRequest) -> None:
    """Check and export one video, with a progress bar."""
    _write_video(plan_video(model, request))


def _write_video(plan: VideoPlan) -> None:
    """Write a checked video with a progress bar on stderr; say what was written."""
    ensure_gui_app()
    bar = TerminalProgress()
    try:  # the export File → Export… runs too
        result = write_video(plan, progress=bar)
    finally:
        bar.close()
    fps = plan.request.fps
    _out(
        f"{result.path}: {result.frames} frames, {result.width}x{result.height}, "
        f"{result.frames / fps:.2f} s at {fps:g} fps "
        f"(exported in {result.seconds:.1f} s)"
    )
