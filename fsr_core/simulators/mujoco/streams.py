"""The FSR stream table and metadata of a MuJoCo run."""

from __future__ import annotations

import platform
from importlib import metadata as package_metadata
from typing import Any, Final

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
from fsr_core.simulators.mujoco.geometry import body_names
from fsr_core.simulators.mujoco.model_files import MODEL_FILE_SCHEMA
from fsr_core.simulators.mujoco.model_session import LoadedModel, simulation_contract
from fsr_core.simulators.mujoco.observations import observation_channels
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = [
    "APPLIED",
    "AUTHORED",
    "EVENTS",
    "MESHES",
    "MODEL_FILES",
    "OBSERVATIONS",
    "RENDER_STATE",
    "TASK",
    "TRANSFORMS",
    "camera_prefix",
    "run_metadata",
    "stream_table",
]

OBSERVATIONS: Final = "observations.mujoco"
AUTHORED: Final = "control.authored"
APPLIED: Final = "control.applied"
EVENTS: Final = "events"
TASK: Final = "task.context"
RENDER_STATE: Final = "render.state"
MODEL_FILES: Final = "model.files"
MESHES: Final = "scene.geometry.meshes"
TRANSFORMS: Final = "scene.geometry.transforms"


def camera_prefix(camera: str) -> str:
    """Return the stream-name prefix of a camera's four streams."""
    return f"sensors.{camera}.camera"


def camera_table(scenario: MujocoScenario) -> list[StreamSpec]:
    """Return the four streams of every camera."""
    specs: list[StreamSpec] = []
    for camera in scenario.cameras:
        specs += camera_streams(
            camera.name,
            width=camera.width,
            height=camera.height,
            codec=camera.codec,
            rate_hz=camera.rate_hz,
        )
    return specs


def scene_table(loaded: LoadedModel) -> list[StreamSpec]:
    """Return the model files, render state and geometry streams."""
    return [
        json_stream(MODEL_FILES, StreamKind.JSON, schema=MODEL_FILE_SCHEMA),
        render_state_stream(RENDER_STATE),
        *geometry_streams(),
        geometry_transform_stream(body_names(loaded)),
    ]


def stream_table(scenario: MujocoScenario, loaded: LoadedModel) -> list[StreamSpec]:
    """Every stream a recording of ``scenario`` has."""
    channels = observation_channels(loaded)
    rate_hz = 1.0 / float(loaded.model.opt.timestep)
    return [
        lifecycle_stream(),
        numeric_stream(
            OBSERVATIONS,
            [name for name, _ in channels],
            [unit for _, unit in channels],
            attributes={"rate_hz": rate_hz, "source": SIMULATOR_NAME},
        ),
        *camera_table(scenario),
        json_stream(
            AUTHORED, StreamKind.CONTROL_AUTHORED, schema="fsr.control.authored/1"
        ),
        json_stream(
            APPLIED, StreamKind.CONTROL_APPLIED, schema="fsr.control.applied/1"
        ),
        json_stream(EVENTS, StreamKind.EVENT, schema="fsr.event/1"),
        json_stream(TASK, StreamKind.TASK, schema="fsr.task/1"),
        *scene_table(loaded),
    ]


def _version(package: str) -> str:
    try:
        return package_metadata.version(package)
    except package_metadata.PackageNotFoundError:
        return "unknown"


def run_metadata(scenario: MujocoScenario, loaded: LoadedModel) -> dict[str, Any]:
    """Return the metadata: run, scenario summary, config, model, contract, versions."""
    model = loaded.model
    return {
        "run": {
            "name": scenario.name,
            "description": scenario.description,
            "simulator": SIMULATOR_NAME,
            "interactive": False,
            "reproducibility": (
                "deterministic on one machine: re-simulation from the embedded "
                "model and authored control reproduces every channel bit for bit"
            ),
        },
        "scenario": {
            "model": scenario.model.entry,
            "duration_s": scenario.duration_s,
            "actuators": model.nu,
            "cameras": [camera.name for camera in scenario.cameras],
            "generations": 1,
        },
        "config": scenario.to_json(),
        "model": scenario.model.metadata(),
        "simulation_contract": simulation_contract(loaded),
        "versions": {
            "fsr_viewer": _version("fsr-viewer"),
            "mujoco": str(loaded.mujoco.__version__),
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
    }
