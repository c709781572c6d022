"""Handlers of the simulation subcommands: ``demo`` and ``simulate``."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tomllib
from pathlib import Path

from fsr_core.simulation.registry import get_adapter
from fsr_core.simulators.planar_arm.demos import write_demos
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import load_scenario

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

    files = write_demos(args.out, progress=announce)
    for item in files:
        state = "written" if item.result is not None else "kept (already there)"
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


def _simulator_of(path: Path) -> str:
    """Return the scenario's ``simulator`` key (``planar_arm`` when absent)."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return "planar_arm"  # the planar-arm loader reports the problem
    return str(document.get("simulator", "planar_arm"))


def run_simulate(args: argparse.Namespace) -> int:
    """Run one scenario file with the simulator it names and record it."""
    simulator = _simulator_of(args.scenario)
    if simulator != "planar_arm":
        adapter = get_adapter(simulator)
        run = adapter.simulate({"scenario_path": str(args.scenario)}, args.output)
        _out(
            f"{run.published.path}: {run.ticks} steps with {simulator}, "
            f"{run.published.records} records, {run.published.size_bytes} bytes, "
            f"{run.wall_s:.2f} s"
        )
        return 0
    scenario = load_scenario(args.scenario)
    result = record_run(scenario, args.output)
    published = result.published
    _out(
        f"{published.path}: {result.ticks} ticks in "
        f"{result.generations} generation(s), "
        f"{published.records} records, {published.size_bytes} bytes, "
        f"{result.wall_s:.2f} s"
    )
    return 0
