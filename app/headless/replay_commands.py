"""Handler of the ``replay`` subcommand: re-render or re-simulate a recording.

``fsr-viewer replay FILE --mode render|resimulate -o OUT.fsr`` runs
:func:`fsr_core.replay.engine.replay_file` with a progress bar on stderr and
prints where the new file went. Exit 0 when the replay was written, 1 when a
check or the replay failed (one line naming the file and the problem), 2 on a
usage error, 130 when Ctrl-C cancelled it (nothing is left under OUT then).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from app.headless.options import (
    MAX_IN_FLIGHT,
    add_enum_option,
    add_episode,
    add_output,
    add_overwrite,
    set_runner,
    whole_number,
)
from app.headless.signals import StopRequested, exit_code
from app.headless.terminal_progress import TerminalProgress
from fsr_core.errors import FsrError, TargetExistsError
from fsr_core.simulation.protocol import (
    CancelToken,
    Execution,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
    Timing,
)

__all__ = ["COMMANDS", "EXIT_CANCELLED", "ReplayRequest", "add_parsers", "run_replay"]

logger = logging.getLogger(__name__)

COMMANDS = frozenset({"replay"})
"""Subcommand names this module adds."""

EXIT_FAILED = 1
EXIT_CANCELLED = 130
"""The shell's code for a command stopped by Ctrl-C (128 + SIGINT)."""


@dataclass(frozen=True, kw_only=True)
class ReplayRequest:
    """``replay FILE --mode render|resimulate -o OUT.fsr`` and its options.

    ``mode``, ``timing`` and ``execution`` are the values of
    :class:`~fsr_core.simulation.protocol.ReplayMode`, ``Timing`` and
    ``Execution``, as the command line spells them.
    """

    file: Path
    mode: str
    output: Path
    simulator: str | None = None
    """``None``: the simulator the recording names."""
    timing: str = Timing.RECORDED_SIM_TIME.value
    execution: str = Execution.RECORDED_PREEMPTION.value
    max_in_flight: int = ReplayOptions.max_in_flight
    with_recorded_force: bool = False
    settings: Sequence[tuple[str, str]] = ()
    """``--set NAME=VALUE``, in order."""
    overwrite: bool = False
    verbose: bool = False


def _window(text: str) -> int:
    return whole_number(
        text, 1, MAX_IN_FLIGHT, f"a whole number from 1 to {MAX_IN_FLIGHT}"
    )


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay`` to the command line."""
    replay = commands.add_parser(
        "replay",
        help="re-render or re-simulate a recording into a new FSR file",
        description=(
            "Replay FILE into a new FSR file. render applies the recorded render "
            "state on a paused clock and re-renders the cameras; resimulate "
            "submits the recorded authored control to a fresh control session and "
            "runs the physics again (compare the result with `fsr-viewer compare "
            "FILE OUT`). Every check runs before anything is submitted; the output "
            "appears only when complete. Exit 0 written, 1 failed, 2 usage error, "
            "130 cancelled with Ctrl-C."
        ),
    )
    replay.add_argument("file", type=Path, help="the recording to replay")
    add_episode(replay)
    replay.add_argument(
        "--mode",
        required=True,
        choices=[mode.value for mode in ReplayMode],
        help="render (needs recorded render state) or resimulate (needs authored "
        "control)",
    )
    add_output(replay, "the new FSR file")
    replay.add_argument(
        "--simulator",
        metavar="NAME",
        help="simulator to replay on (default: the one the recording names)",
    )
    add_enum_option(
        replay,
        "--timing",
        Timing.RECORDED_SIM_TIME,
        "resimulate: keep the recorded tail to the terminal cut (default), or "
        "stop once every chunk has its terminal result",
    )
    add_enum_option(
        replay,
        "--execution",
        Execution.RECORDED_PREEMPTION,
        "resimulate: keep recorded starts so later chunks preempt earlier "
        "ones (default), or wait for each chunk's terminal result",
    )
    replay.add_argument(
        "--max-in-flight",
        type=_window,
        default=ReplayOptions.max_in_flight,
        metavar="N",
        help="resimulate, recorded_preemption: chunks without a terminal result at "
        f"once (default {ReplayOptions.max_in_flight})",
    )
    replay.add_argument(
        "--with-recorded-force",
        action="store_true",
        help="resimulate: apply the recorded external force channel (pushes "
        "recorded only as evidence)",
    )
    replay.add_argument(
        "--set",
        dest="settings",
        action="append",
        type=_setting,
        default=[],
        metavar="NAME=VALUE",
        help="a setting of the simulator's own (repeatable); genesis takes "
        "camera='pos=x,y,z lookat=x,y,z fov=DEG size=WxH' and start_frame=N",
    )
    add_overwrite(replay)
    set_runner(replay, ReplayRequest, run_replay)


def _setting(text: str) -> tuple[str, str]:
    """Parse ``NAME=VALUE`` (argparse type: a bad one is a usage error)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text[:80]!r}")
    return name.strip(), value


def _options(request: ReplayRequest) -> ReplayOptions:
    return ReplayOptions(
        mode=ReplayMode(request.mode),
        timing=Timing(request.timing),
        execution=Execution(request.execution),
        max_in_flight=request.max_in_flight,
        with_recorded_force=request.with_recorded_force,
        overwrite=request.overwrite,
        settings=tuple(request.settings),
    )


class _Stop:
    """The signal that cancelled the replay (0 while none did)."""

    signum = 0


@contextmanager
def _signals_cancel(cancel: CancelToken, stop: _Stop) -> Iterator[None]:
    """While inside, the first Ctrl-C or SIGTERM cancels the replay cooperatively.

    A second one aborts at once (:class:`~app.headless.signals.StopRequested`;
    the writer still removes its staging file on the way out).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if cancel.cancelled:
            for other in (signal.SIGINT, signal.SIGTERM):
                signal.signal(other, signal.SIG_IGN)
            raise StopRequested(signum)
        stop.signum = signum
        if signum == signal.SIGINT:
            sys.stderr.write("\ncancelling the replay (Ctrl-C again to abort)...\n")
        cancel.cancel()

    previous: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}
    for signum in (int(signal.SIGINT), int(signal.SIGTERM)):
        previous[signum] = signal.signal(signum, on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_replay(request: ReplayRequest) -> int:
    """Replay one file; print where the new file went (see the module docstring)."""
    # Imported here: the command line builds this parser for every command.
    from fsr_core.replay.engine import replay_file

    options = _options(request)
    cancel = CancelToken()
    stop = _Stop()
    bar = TerminalProgress("frames" if options.mode is ReplayMode.RENDER else "ticks")
    try:
        with _signals_cancel(cancel, stop):
            result = replay_file(
                request.file,
                request.output,
                options,
                simulator=request.simulator,
                progress=bar,
                cancel=cancel,
            )
    except TargetExistsError as exc:
        bar.close()
        sys.stderr.write(
            f"fsr-viewer replay: {exc.path}: file already exists; pass --overwrite "
            "to replace it\n"
        )
        return EXIT_FAILED
    except FsrError as exc:
        bar.close()
        if request.verbose:
            logger.exception("replay failed")
        sys.stderr.write(f"fsr-viewer replay: {exc}\n")
        return EXIT_FAILED
    bar.close()
    return _report(request.file, result, stop.signum)


def _unit(result: ReplayResult) -> str:
    return "frames" if result.mode is ReplayMode.RENDER else "ticks"


def _report(source: Path, result: ReplayResult, signum: int = 0) -> int:
    if result.outcome is ReplayOutcome.CANCELLED:
        sys.stderr.write(f"fsr-viewer replay: {source}: {result.message}\n")
        return exit_code(signum) if signum else EXIT_CANCELLED
    if result.outcome is ReplayOutcome.FAILED:
        sys.stderr.write(f"fsr-viewer replay: {result.message}\n")
        return EXIT_FAILED
    sys.stdout.write(
        f"{result.output}: {result.mode.value} replay of {source} on "
        f"{result.simulator} ({result.reason_code}, {result.steps} {_unit(result)} in "
        f"{result.wall_s:.1f} s; source SHA-256 {result.source_sha256})\n"
    )
    for note in result.notes:
        sys.stdout.write(f"note: {note}\n")
    if result.mode is ReplayMode.RESIMULATE:
        sys.stdout.write(f"compare it: fsr-viewer compare {source} {result.output}\n")
    return 0
