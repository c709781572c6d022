"""The FSR stream table of a planar-arm run, and the run's metadata."""

from __future__ import annotations

import platform
from importlib import metadata as package_metadata
from typing import Any

import numpy as np

from fsr_core.format.catalog import (
    camera_streams,
    geometry_streams,
    geometry_transform_stream,
    json_stream,
    lifecycle_stream,
    numeric_stream,
    render_state_stream,
)
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = [
    "APPLIED",
    "AUTHORED",
    "EVENTS",
    "MESHES",
    "OBSERVATIONS",
    "RENDER_STATE",
    "SIMULATOR_NAME",
    "TASK",
    "TRANSFORMS",
    "observation_channels",
    "run_metadata",
    "stream_table",
]

SIMULATOR_NAME = "planar_arm"
OBSERVATIONS = "observations.arm"
AUTHORED = "control.authored"
APPLIED = "control.applied"
EVENTS = "events"
TASK = "task.context"
RENDER_STATE = "render.state"
MESHES = "scene.geometry.meshes"
TRANSFORMS = "scene.geometry.transforms"


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
    channels = observation_channels(scenario.model.dof)
    specs = [
        lifecycle_stream(),
        numeric_stream(
            OBSERVATIONS,
            [name for name, _ in channels],
            [unit for _, unit in channels],
            attributes={"rate_hz": 1.0 / scenario.dt_s, "source": SIMULATOR_NAME},
        ),
    ]
    for camera in scenario.cameras:
        specs += camera_streams(
            camera.name,
            width=camera.width,
            height=camera.height,
            codec=camera.codec,
            rate_hz=camera.rate_hz,
        )
    specs += [
        json_stream(
            AUTHORED, StreamKind.CONTROL_AUTHORED, schema="fsr.control.authored/1"
        ),
        json_stream(
            APPLIED, StreamKind.CONTROL_APPLIED, schema="fsr.control.applied/1"
        ),
        json_stream(EVENTS, StreamKind.EVENT, schema="fsr.event/1"),
        json_stream(TASK, StreamKind.TASK, schema="fsr.task/1"),
        render_state_stream(RENDER_STATE),
        *geometry_streams(),
        geometry_transform_stream([f"link{i}" for i in range(scenario.model.dof)]),
    ]
    return specs


def _version(package: str) -> str:
    try:
        return package_metadata.version(package)
    except package_metadata.PackageNotFoundError:
        return "unknown"


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
        "run": {
            "name": scenario.name,
            "description": scenario.description,
            "simulator": SIMULATOR_NAME,
            "interactive": interactive,
            "reproducibility": reproducibility(interactive=interactive),
        },
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
        "versions": {
            "fsr_viewer": _version("fsr-viewer"),
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
    }
