"""The FSR stream table of a planar-arm run, and the run's metadata."""

from __future__ import annotations

from typing import Any

from fsr_core.format.streams import StreamSpec
from fsr_core.simulation.recorded_streams import (
    observation_stream,
    run_section,
    run_versions,
    scene_streams,
    simulator_streams,
)
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = [
    "OBSERVATIONS",
    "SIMULATOR_NAME",
    "observation_channels",
    "run_metadata",
    "stream_table",
]

SIMULATOR_NAME = "planar_arm"
OBSERVATIONS = "observations.arm"
"""The arm's atomic per-tick record (:func:`observation_channels`)."""


def observation_channels(dof: int) -> list[tuple[str, str]]:
    """Names and units of the atomic per-tick observation record, in order."""
    channels: list[tuple[str, str]] = []
    for prefix, unit in (("q", "rad"), ("dq", "rad/s"), ("tau", "N*m")):
        channels += [(f"{prefix}{i}", unit) for i in range(dof)]
    channels += [("tip_x", "m"), ("tip_y", "m"), ("tip_speed", "m/s")]
    channels += [("ref_x", "m"), ("ref_y", "m")]
    channels += [(f"q_ref{i}", "rad") for i in range(dof)]
    channels += [(f"error{i}", "rad") for i in range(dof)]
    channels += [("active_target", "1"), ("ext_fx", "N"), ("ext_fy", "N")]
    channels += [("friction", "N*m*s/rad")]
    return channels


def stream_table(scenario: Scenario) -> list[StreamSpec]:
    """Every stream a run of ``scenario`` records."""
    dof, rate_hz = scenario.model.dof, 1.0 / scenario.dt_s
    observations = observation_stream(
        OBSERVATIONS, observation_channels(dof), rate_hz=rate_hz, source=SIMULATOR_NAME
    )
    scene = scene_streams([f"link{i}" for i in range(dof)])
    return simulator_streams(observations, scenario.cameras, scene)


def reproducibility(*, interactive: bool) -> str:
    """Say what a re-run of a run, pushed from outside its config or not, gives."""
    if interactive:
        return (
            "interactive: pushed from outside its config; replay plays it back, "
            "re-simulation gives the unperturbed scenario"
        )
    return "deterministic: re-simulation reproduces every channel bit for bit"


def run_metadata(scenario: Scenario, *, interactive: bool) -> dict[str, Any]:
    """Return the metadata: run, scenario summary, config, contract, versions."""
    model = scenario.model
    return {
        "run": run_section(
            scenario.name,
            scenario.description,
            SIMULATOR_NAME,
            reproducibility(interactive=interactive),
            interactive=interactive,
        ),
        "scenario": {
            "task": scenario.task.get("kind"),
            "controller": scenario.controller.get("kind"),
            "dof": model.dof,
            "duration_s": scenario.duration_s,
            "generations": len(scenario.resets) + 1,
        },
        "config": scenario.resolved(),
        "simulation_contract": {
            "simulator": SIMULATOR_NAME,
            "dof": model.dof,
            "axes": list(model.joint_names),
            "dt_s": scenario.dt_s,
            "command_spaces": ["joint_position", "joint_velocity", "joint_torque"],
            "units": {
                "joint_position": "rad",
                "joint_velocity": "rad/s",
                "joint_torque": "N*m",
            },
        },
        "versions": run_versions(),
    }
