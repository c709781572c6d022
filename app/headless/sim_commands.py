"""Handlers of the simulation subcommands: ``demo`` and ``simulate``.

Both go through the simulator registry: ``demo`` asks the default simulator
for its demo takes, ``simulate`` the simulator that recognises the scenario.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from fsr_core.simulation.registry import (
    DEFAULT_SIMULATOR,
    get_adapter,
    scenario_simulator,
)
from fsr_core.simulation.scenario_document import read_scenario_document

__all__ = ["add_parsers", "run_demo", "run_simulate"]

DEFAULT_DEMO_DIR = Path("fsr-demo")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``demo`` and ``simulate`` to the command line."""
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
    simulate = commands.add_parser(
        "simulate",
        help="run a scenario TOML (planar arm or MuJoCo) and record it",
    )
    simulate.add_argument("scenario", type=Path)
    simulate.add_argument(
        "-o", "--output", type=Path, required=True, help="new FSR file"
    )


def run_demo(args: argparse.Namespace) -> int:
    """Write the demo takes; open them in the player when it is installed."""

    def announce(name: str) -> None:
        sys.stderr.write(f"recording {name}...\n")

    simulator = get_adapter(DEFAULT_SIMULATOR)
    files = simulator.write_demos(args.out, progress=announce)
    for item in files:
        state = "written" if item.written else "kept (already there)"
        _out(f"{item.recording}  ({state}; scenario {item.scenario.name})")
    if args.no_gui:
        return 0
    if importlib.util.find_spec("app.window.main_window") is None:
        _out(
            "the player window is not part of this build yet; open the takes with "
            "'fsr-viewer inspect FILE' meanwhile"
        )
        return 0
    from app.window.main_window import open_player  # type: ignore[import-not-found, unused-ignore]

    return int(open_player([item.recording for item in files]))


def run_simulate(args: argparse.Namespace) -> int:
    """Run one scenario file with the simulator that recognises it and record it."""
    simulator = scenario_simulator(read_scenario_document(args.scenario))
    run = simulator.record(args.scenario, args.output)
    _out(f"{run.output}: {run.summary}")
    return 0
