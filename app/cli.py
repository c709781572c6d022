"""fsr-viewer: play, inspect, compare and convert robot-simulation recordings.

Every FILE may be any recording the viewer reads: an FSR file (*.fsr), a
skelarm state log (*.sklog.npz), an MCAP log, a Genesis trajectory, a LeRobot
dataset folder (a playlist of its episodes; --episode N picks one) or the
kind of an installed source plugin. The kind is told from the first bytes,
never from the name. --time-base log|publish|header (player, export,
screenshot, inspect, convert, compare, batch) places an MCAP log's messages at
their log time (default), publish time or header stamp; other kinds ignore it.

Player and export:
  FILE...                             open recordings in the player (a playlist)
       [--speed S] [--time-base log|publish|header] [OVERLAY FLAGS]
       [--plot CHANNELS]... [--inspector] [--dataset] [--environment NAME]
  FILE... --screenshot OUT.png [--at T] [--size WxH] [--plot CHANNELS]...
                                      draw the player window headlessly and exit
  --follow FILE                       a recording being written: it grows, LIVE
  FILE --export OUT.mp4|.webm|.gif    render a video headlessly
       [--panel] [--fps N] [--speed S] [OVERLAY FLAGS] [--size WxH]
       [--start T] [--end T] [--overwrite]
       [--view scene|camera|both] [--camera NAME] [--environment NAME]
  FILE... --export-dir DIR [--format mp4|gif|webm]
                                      each FILE to DIR/<stem>.<format> (same options)
  FILE --export-frame T OUT.png       one still at play time T (same options)
  FILE --export-channels OUT.csv      every numeric channel column, with units
  OVERLAY FLAGS flip what is drawn over the recording (window, screenshot and
  every export alike): --show-com, --hide-force, --hide-targets,
  --hide-reference, --hide-tip, --hide-body-frames, --hide-calibration

Subcommands:
  inspect FILE [--json] [--verify]   validation report, one JSON shape for every
       [--episode N] [--time-base B]  kind (exit 0 valid, 1 not); a dataset folder
                                      reports every episode, or episode N
  inspect --follow FILE               a recording being written: a line a second
                                      until its writer closes it (or Ctrl-C)
  recover DAMAGED OUT                 sealed copy of what can be trusted (FSR only)
  demo [--out DIR] [--no-gui]         record the built-in demo takes
  simulate SCENARIO.toml -o OUT [--live]   run a scenario (planar arm or MuJoCo),
                                      record it (--live: watch it in the player)
  compare REFERENCE CANDIDATE         compare channel by channel (exit 0 agree, 1 not)
       [--episode N] [--tolerance X] [--channels a,b] [--json] [--time-base B]
  convert FILE [-o OUT.fsr]           write a recording as FSR (skelarm, MCAP,
       [--episode N] [--time-base B]  Genesis, one LeRobot episode)
  resimulate LOG -o OUT.sklog.npz     re-run a skelarm log through skelarm (3.12+)
  replay FILE --mode render|resimulate -o OUT.fsr [--episode N]
       [--simulator NAME] [--timing recorded_sim_time|as_fast_as_valid]
       [--execution sequential|recorded_preemption] [--max-in-flight N]
       [--with-recorded-force] [--overwrite]
                                      re-render or re-simulate into a new FSR
  sample OUT                          write a small synthetic recording
  batch validate|export|convert|resimulate|index PATH...
       [--jobs N] [--engine local|ray] [--out DIR] [-o INDEX.json]
       [--report REPORT.jsonl] [--resume] [--timeout S] [--memory-limit SIZE]
       [--time-base B]                one verb over many recordings, in workers
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.util
import logging
import math
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from app.canvas.view_model import DEFAULT_WINDOW_SIZE, ViewModel
from app.headless import (
    compare_commands,
    fsr_file_commands,
    inspect_commands,
    replay_commands,
    sim_commands,
    skelarm_commands,
)
from app.headless.batch import command as batch_command
from app.headless.options import (
    DrawOptions,
    UsageError,
    add_episode,
    add_overlay_flags,
    add_robot_options,
    add_time_base,
    fps_option,
    open_options,
    plot_option,
    size_option,
    speed_option,
    time_option,
)
from app.headless.signals import (
    StopRequested,
    exit_code,
    stop_message,
    stop_on_signals,
)
from fsr_core.errors import FsrError
from fsr_core.output_paths import check_output_path
from fsr_core.sources import (
    episode_address,
    expand_recordings,
    split_episode_path,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from app.headless.export.command import ExportCommand

logger = logging.getLogger(__name__)

Request = TypeVar("Request", bound="DataclassInstance")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _base_parser() -> argparse.ArgumentParser:
    """Return a parser with this module's help text and ``--verbose``."""
    parser = argparse.ArgumentParser(
        prog="fsr-viewer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show tracebacks and debug logs"
    )
    # What came before --time-base: it sets FSR_VIEWER_MCAP_TIME, the default of
    # every command in this process; kept out of --help for the scripts using it.
    parser.add_argument(
        "--mcap-time", choices=("log", "publish", "header"), help=argparse.SUPPRESS
    )
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = _base_parser()
    commands = parser.add_subparsers(dest="command", required=True)
    inspect_commands.add_parsers(commands)
    fsr_file_commands.add_parsers(commands)
    sim_commands.add_parsers(commands, run_demo=_demo, run_simulate_live=_simulate_live)
    compare_commands.add_parsers(commands)
    skelarm_commands.add_parsers(commands)
    replay_commands.add_parsers(commands)
    batch_command.add_parsers(commands)
    return parser


SUBCOMMANDS = frozenset(
    {"demo", "simulate", "compare"}
    | inspect_commands.COMMANDS
    | fsr_file_commands.COMMANDS
    | skelarm_commands.COMMANDS
    | replay_commands.COMMANDS
    | batch_command.COMMANDS
)


def _player_parser() -> argparse.ArgumentParser:
    """Build the player/export form: ``fsr-viewer FILE... [--export OUT]``."""
    parser = _base_parser()
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    parser.add_argument(
        "--export",
        type=Path,
        metavar="OUT",
        help="render OUT.mp4, OUT.webm or OUT.gif headlessly and exit",
    )
    parser.add_argument(
        "--export-dir",
        type=Path,
        metavar="DIR",
        help="render every FILE to DIR/<stem>.<format> headlessly and exit",
    )
    parser.add_argument(
        "--format",
        choices=("mp4", "gif", "webm"),
        default="mp4",
        help="the video format of --export-dir (default mp4)",
    )
    parser.add_argument(
        "--export-frame",
        nargs=2,
        metavar=("T", "OUT.png"),
        help="draw one still at play time T (seconds) to OUT.png and exit",
    )
    parser.add_argument(
        "--export-channels",
        type=Path,
        metavar="OUT.csv",
        help="write every numeric channel column (with units) to OUT.csv and exit",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="OUT.png",
        help="draw the whole player window headlessly to OUT.png and exit",
    )
    parser.add_argument(
        "--at",
        type=time_option,
        metavar="SECONDS",
        help="play time of --screenshot (default: the start)",
    )
    parser.add_argument(
        "--plot",
        action="append",
        type=plot_option,
        default=[],
        metavar="CHANNELS",
        help="open a plot of these comma-separated channels or columns "
        "(e.g. q or observations.arm[q0],observations.arm[q1]); once per plot",
    )
    parser.add_argument(
        "--inspector",
        action="store_true",
        help="open the inspector dock (window and --screenshot)",
    )
    parser.add_argument(
        "--dataset",
        action="store_true",
        help="open the Dataset overview, the quality checks of every file "
        "(window and --screenshot: drawn once checked)",
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="the (first) recording is being written: follow it, LIVE (FSR, "
        "MCAP, Genesis; an FSR file's final name before it exists follows its "
        "writer's staging file)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing output (atomically, once the new one is complete)",
    )
    parser.add_argument(
        "--size",
        type=size_option,
        default=None,
        metavar="WxH",
        help="size of each exported view in pixels (default 800x800; --view both "
        "is 2W x H; the panel adds 304 px width); of the window for --screenshot "
        "(default 1280x800)",
    )
    parser.add_argument(
        "--start", type=time_option, metavar="T", help="first play time exported, s"
    )
    parser.add_argument(
        "--end", type=time_option, metavar="T", help="last play time exported, s"
    )
    parser.add_argument(
        "--panel", action="store_true", help="put the readout panel right of the arm"
    )
    parser.add_argument(
        "--fps",
        type=fps_option,
        help="frames per second of the video (0.1 to 1000, default 30); also "
        "the rate of an image-sequence folder without timestamps.csv",
    )
    parser.add_argument(
        "--speed",
        type=speed_option,
        default=1.0,
        help="play-time seconds per video second",
    )
    add_overlay_flags(parser)
    parser.add_argument(
        "--environment",
        metavar="NAME",
        default="",
        help="in a batched run's 3D scene, draw environment NAME (like env1) in "
        "full and fade the others (window: View > Environment)",
    )
    parser.add_argument(
        "--view",
        choices=("auto", "scene", "camera", "both"),
        default="auto",
        help="what is drawn: the scene, a camera's frames, or both side by side "
        "(each --size, so 2W x H; the panel still goes on the right); auto "
        "(default): the scene, or the first camera when there is no scene to draw",
    )
    parser.add_argument(
        "--camera",
        metavar="NAME",
        help="the camera of --view camera|both (default: the first camera)",
    )
    add_episode(parser)
    add_time_base(parser)
    add_robot_options(parser)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse a subcommand line, or else the player/export form."""
    words = list(sys.argv[1:] if argv is None else argv)
    valued = {i + 1 for i, word in enumerate(words) if word == "--mcap-time"}
    # The value of an option before the first word is not that word.
    taken = valued | {
        i + 1 for i, word in enumerate(words) if word in ("--time-base", "--fps")
    }
    first = next(
        (w for i, w in enumerate(words) if not w.startswith("-") and i not in taken),
        None,
    )
    if first in SUBCOMMANDS:
        # --mcap-time belongs to every command: take it wherever it was given.
        front = [w for i, w in enumerate(words) if i in valued or i + 1 in valued]
        rest = [
            w for i, w in enumerate(words) if i not in valued and i + 1 not in valued
        ]
        return _parser().parse_args(_options_after_command([*front, *rest], first))
    # Only the player and export forms load the export (PyAV, and Qt when drawing).
    from app.headless.export.command import usage_problem

    parser = _player_parser()
    args = parser.parse_args(words)
    args.command = "play"
    args.export_frame = _frame_request(parser, args.export_frame)
    args.export_command = _export_command(args)
    problem = usage_problem(args.export_command)
    if problem is not None:
        parser.error(problem)
    _check_screenshot(parser, args)
    if args.screenshot is None and not args.export_command.asked:
        _check_window_speed(parser, args.speed)
    return args


def _frame_request(
    parser: argparse.ArgumentParser, words: list[str] | None
) -> tuple[float, Path] | None:
    """Check ``--export-frame T OUT.png``: T is a time in seconds."""
    if words is None:
        return None
    try:
        play_time_s = float(words[0])
    except ValueError:
        play_time_s = math.nan
    if not (math.isfinite(play_time_s) and play_time_s >= 0):
        parser.error(f"--export-frame {words[0]!r}: T must be a time in seconds")
    return play_time_s, Path(words[1])


def _export_command(args: argparse.Namespace) -> ExportCommand:
    """Return the headless export the player form's options ask for."""
    from app.headless.export.command import ExportCommand

    return ExportCommand(
        files=tuple(args.files),
        shown=_typed(args, DrawOptions).view_model(tuple(args.plot)),
        video=args.export,
        export_dir=args.export_dir,
        format=args.format,
        still=args.export_frame,
        channels=args.export_channels,
        fps=args.fps or 30.0,
        start_s=args.start,
        end_s=args.end,
        overwrite=args.overwrite,
        verbose=args.verbose,
        opening=open_options(args),
    )


def _options_after_command(words: list[str], command: str) -> list[str]:
    """Move a ``--time-base B`` given before the subcommand word to after it.

    It is an option of the subcommands that open recordings (``inspect``,
    ``convert``, ``compare``); any other refuses it as an unknown argument.
    """
    at = words.index(command)
    moved: set[int] = set()
    for index, word in enumerate(words[:at]):
        if word.startswith("--time-base="):
            moved.add(index)
        elif word == "--time-base":
            moved.update(i for i in (index, index + 1) if i < at)
    before = [word for index, word in enumerate(words[:at]) if index not in moved]
    options = [words[index] for index in sorted(moved)]
    return [*before, command, *options, *words[at + 1 :]]


def _check_window_speed(parser: argparse.ArgumentParser, speed: float) -> None:
    """Refuse a speed the window cannot play (its clock's range, 0.1 to 10x)."""
    from app.window.state.playback_clock import MAX_SPEED, MIN_SPEED

    if not MIN_SPEED <= speed <= MAX_SPEED:
        parser.error(
            f"--speed {speed:g}: the player plays at {MIN_SPEED:g} to {MAX_SPEED:g}x"
        )


def _check_screenshot(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> None:
    if args.screenshot is None:
        return
    if not args.files:
        parser.error("--screenshot needs at least one recording")
    if args.screenshot.suffix.lower() != ".png":
        parser.error(f"--screenshot {args.screenshot}: the image is written as .png")


def _play(args: argparse.Namespace) -> int:
    from app.headless.export.command import run_export

    if args.export_dir is not None or args.screenshot is not None:
        # A folder (a dataset's root too) stands for the recordings in it.
        args.files = expand_recordings(args.files)
    # --episode may have named the files anew since the command was parsed.
    command: ExportCommand = replace(args.export_command, files=tuple(args.files))
    if args.screenshot is not None and args.export_dir is None:
        with stop_on_signals():
            return _screenshot(args, command.shown)
    if command.asked:
        with stop_on_signals():
            return run_export(command)
    return _window(args, command.shown)


def _window(args: argparse.Namespace, shown: ViewModel) -> int:
    from app.window.main_window import open_player

    missing = [
        path
        for path in args.files
        if not path.exists()
        and split_episode_path(path) is None
        and not (args.follow and path is args.files[0] and _staged(path))
    ]
    if missing:
        _err(f"fsr-viewer: {missing[0]}: no such file")
        return 2
    if args.follow:
        return open_player(
            args.files,
            shown=shown,
            inspector=args.inspector,
            open_options=open_options(args),
            follow=True,
        )
    try:
        files = expand_recordings(args.files)
    except FsrError as exc:
        _err(f"fsr-viewer: {exc}")
        return 1
    if args.files and not files:
        _err(f"fsr-viewer: {args.files[0]}: no recordings found in the folder")
        return 1
    return open_player(
        args.files,  # the window expands them itself, and checks an index's digests
        shown=shown,
        inspector=args.inspector,
        open_options=open_options(args),
        dataset=args.dataset,
    )


def _simulate_live(request: sim_commands.SimulateRequest) -> int:
    """Record a scenario in a child process and follow its file in the window.

    Closing the window lets the run finish recording; Ctrl-C stops both.
    """
    child = sim_commands.start_recording(request)
    if child.poll() is not None and child.returncode != 0:
        return 1
    from app.window.main_window import open_player

    shown = open_player([request.output], follow=True)
    if child.poll() is None:
        _err(f"fsr-viewer: the run goes on recording to {request.output}")
    return 1 if child.wait() != 0 else shown


def _staged(path: Path) -> bool:
    """Whether ``path`` is an FSR recording's final name with a writer at work."""
    from fsr_core.sources.live import follow_target

    return follow_target(path) != path


def _demo(request: sim_commands.DemoRequest) -> int:
    """Write the demo takes; open them in the player when it is installed."""
    with stop_on_signals():
        recordings = sim_commands.write_demo_takes(request)
    if request.no_gui:
        return 0
    if importlib.util.find_spec("app.window.main_window") is None:
        _out(
            "the player window is not part of this build yet; open the takes with "
            "'fsr-viewer inspect FILE' meanwhile"
        )
        return 0
    from app.window.main_window import open_player

    return int(open_player(list(recordings)))


def _screenshot(args: argparse.Namespace, shown: ViewModel) -> int:
    from app.window.screenshot import take_screenshot

    check_output_path(
        args.screenshot, args.files, overwrite=args.overwrite, hint=" (use --overwrite)"
    )
    shot = take_screenshot(
        args.files,
        args.screenshot,
        at_s=args.at,
        size=args.size or DEFAULT_WINDOW_SIZE,
        overwrite=args.overwrite,
        shown=shown,
        inspector=args.inspector,
        open_options=open_options(args),
        dataset=args.dataset,
    )
    _out(
        f"{shot.path}: {shot.width}x{shot.height} window at "
        f"t = {shot.play_time_s:.3f} s"
    )
    return 0


#: The argument of each command that ``--episode`` narrows to one episode.
_EPISODE_TARGETS = {
    "inspect": "file",
    "convert": "log",
    "replay": "file",
    "compare": "reference",
}


def _choose_episode(args: argparse.Namespace) -> None:
    """Replace a dataset folder by the address of its ``--episode N``.

    Raises
    ------
    FsrError
        The folder is not a dataset, or has no such episode.
    """
    index = getattr(args, "episode", None)
    if index is None:
        return
    if args.command == "play":
        args.files = [episode_address(path, index) for path in args.files]
        return
    target = _EPISODE_TARGETS[args.command]
    setattr(args, target, episode_address(getattr(args, target), index))


def _command(args: argparse.Namespace) -> Callable[[], int]:
    """Return the parsed command: its runner, given its typed request."""
    if args.command == "play":
        return functools.partial(_play, args)
    run: Callable[[Any], int] = args.run
    return functools.partial(run, request_from(args))


def request_from(args: argparse.Namespace) -> object:
    """Return the typed request of a parsed subcommand (the one conversion).

    Its parser named the request type (``set_runner``); each field takes the
    parsed value of the same name, a field nothing parsed keeps its default.
    Options that do not go together exit as a usage error of that parser.
    """
    try:
        return _typed(args, args.request_type)
    except UsageError as exc:
        parser: argparse.ArgumentParser = args.command_parser
        parser.error(str(exc))


def _typed(args: argparse.Namespace, request_type: type[Request]) -> Request:
    """Return ``request_type`` made of the parsed values named as its fields.

    A field nothing parsed keeps its default.
    """
    values = vars(args)
    names = [field.name for field in dataclasses.fields(request_type)]
    return request_type(**{name: values[name] for name in names if name in values})


#: Commands that install their signal handling where it belongs: the player
#: form (only its headless exports stop on a signal, never the window) and
#: demo (which may open the window after writing).
_OWN_SIGNALS = frozenset({"play", "demo"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 data problem, 2 usage)."""
    args = _parse(argv)
    if getattr(args, "mcap_time", None):
        # Read by the MCAP source when it opens a file (in this process only).
        os.environ["FSR_VIEWER_MCAP_TIME"] = args.mcap_time
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        _choose_episode(args)
        run = _command(args)
        if args.command in _OWN_SIGNALS:
            return run()
        with stop_on_signals():
            return run()
    except (StopRequested, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, StopRequested) else signal.SIGINT
        _err(f"fsr-viewer: {stop_message(signum)}")
        return exit_code(signum)
    except FsrError as exc:
        if args.verbose:
            logger.exception("failed")
        _err(f"fsr-viewer: {exc}")
        return 1
    except Exception as exc:
        if args.verbose:
            logger.exception("unexpected error")
        _err(
            f"fsr-viewer: internal error ({type(exc).__name__}: {exc}); "
            "rerun with --verbose and report it"
        )
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
