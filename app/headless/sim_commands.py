"""Handlers of the simulation subcommands: ``demo`` and ``simulate``.

Both go through the simulator registry: ``demo`` asks the default simulator
for its demo takes, ``simulate`` the simulator that recognises the scenario.
Opening the takes in the player is the dispatcher's part (:mod:`app.cli`):
nothing here imports the window.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.headless.options import add_output, set_runner
from fsr_core.output_paths import check_output_path, prepare_output_folder

__all__ = [
    "DemoRequest",
    "SimulateRequest",
    "add_parsers",
    "run_simulate",
    "write_demo_takes",
]

DEFAULT_DEMO_DIR = Path("fsr-demo")


_START_S = 60.0
"""Seconds ``simulate --live`` waits for the child's file to appear."""


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


@dataclass(frozen=True, kw_only=True)
class DemoRequest:
    """``demo [--out DIR] [--no-gui]``."""

    out: Path = DEFAULT_DEMO_DIR
    no_gui: bool = False


@dataclass(frozen=True, kw_only=True)
class SimulateRequest:
    """``simulate SCENARIO.toml -o OUT``."""

    scenario: Path
    output: Path
    live: bool = False
    """Show the run in the window while it is recorded (``--live``)."""


def add_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    *,
    run_demo: Callable[[DemoRequest], int],
    run_simulate_live: Callable[[SimulateRequest], int] | None = None,
) -> None:
    """Add ``demo`` and ``simulate`` to the command line.

    ``run_demo`` runs ``demo`` and ``run_simulate_live`` ``simulate --live``:
    the dispatcher's, as they open the window.
    """
    demo = commands.add_parser(
        "demo",
        help="record the built-in demo takes (a playlist) and open them",
        description=(
            "Simulate and record the demo session: reach, multi-target with switches, "
            "periodic curve, reference tracking, a pushed take, and a take with a "
            "generation reset and a camera calibration change. Each take's scenario "
            "is written beside it as TOML. Existing takes are kept."
        ),
    )
    demo.add_argument(
        "--out", type=Path, default=DEFAULT_DEMO_DIR, help="folder for the takes"
    )
    demo.add_argument(
        "--no-gui", action="store_true", help="only write the takes and print them"
    )
    set_runner(demo, DemoRequest, run_demo)
    simulate = commands.add_parser(
        "simulate",
        help="run a scenario TOML (planar arm or MuJoCo) and record it",
    )
    simulate.add_argument("scenario", type=Path)
    add_output(simulate, "new FSR file")
    simulate.add_argument(
        "--live",
        action="store_true",
        help="show the run in the player while it is recorded (the simulator "
        "runs in a child process; the window follows its file, LIVE)",
    )
    live = run_simulate_live

    def run(request: SimulateRequest) -> int:
        if request.live and live is not None:
            return live(request)
        return run_simulate(request)

    set_runner(simulate, SimulateRequest, run)


def write_demo_takes(request: DemoRequest) -> tuple[Path, ...]:
    """Write the demo takes into ``request.out``, print them, return the recordings."""
    # Imported here (as below): the command line builds this parser for every
    # command, and only these two need the simulators.
    from fsr_core.simulation.registry import DEFAULT_SIMULATOR, get_adapter

    def announce(name: str) -> None:
        sys.stderr.write(f"recording {name}...\n")

    _prepare_demo_folder(request.out)
    simulator = get_adapter(DEFAULT_SIMULATOR)
    files = simulator.write_demos(request.out, progress=announce)
    for item in files:
        state = "written" if item.written else "kept (already there)"
        _out(f"{item.recording}  ({state}; scenario {item.scenario.name})")
    return tuple(item.recording for item in files)


def _prepare_demo_folder(folder: Path) -> None:
    """Create ``demo --out`` if needed; refuse a file, a FIFO or a read-only folder.

    Raises
    ------
    WriteFailedError
        The folder cannot be created, is not a folder, or cannot be written.
    """
    prepare_output_folder(folder, what="demo")


def start_recording(request: SimulateRequest) -> subprocess.Popen[bytes]:
    """Start ``simulate SCENARIO -o OUT`` in a child process; return it.

    Returns once the writer's file exists (its staging file beside ``OUT``)
    or the child ended (it failed: its own message is on stderr).
    """
    from fsr_core.sources.live import follow_target

    check_output_path(request.output, (request.scenario,))
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "simulate",
            str(request.scenario),
            "-o",
            str(request.output),
        ]
    )
    deadline = time.monotonic() + _START_S
    while child.poll() is None and time.monotonic() < deadline:
        if follow_target(request.output).exists():
            break
        time.sleep(0.05)
    return child


def run_simulate(request: SimulateRequest) -> int:
    """Run one scenario file with the simulator that recognises it and record it."""
    from fsr_core.simulation.registry import scenario_simulator
    from fsr_core.simulation.scenario_document import read_scenario_document

    check_output_path(request.output, (request.scenario,))
    simulator = scenario_simulator(read_scenario_document(request.scenario))
    run = simulator.record(request.scenario, request.output)
    _out(f"{run.output}: {run.summary}")
    return 0
