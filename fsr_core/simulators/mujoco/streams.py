"""The FSR stream table and metadata of a MuJoCo run."""

from __future__ import annotations

from typing import Any, Final

from fsr_core.format.catalog import json_stream
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.simulation.recorded_streams import (
    observation_stream,
    run_section,
    run_versions,
    scene_streams,
    simulator_streams,
)
from fsr_core.simulators.mujoco.geometry import body_names
from fsr_core.simulators.mujoco.model_files import MODEL_FILE_SCHEMA
from fsr_core.simulators.mujoco.model_session import LoadedModel, simulation_contract
from fsr_core.simulators.mujoco.observations import observation_channels
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = [
    "MODEL_FILES",
    "OBSERVATIONS",
    "run_metadata",
    "stream_table",
]

OBSERVATIONS: Final = "observations.mujoco"
MODEL_FILES: Final = "model.files"
_REPRODUCIBILITY: Final = (
    "deterministic on one machine: re-simulation from the embedded "
    "model and authored control reproduces every channel bit for bit"
)


def scene_table(loaded: LoadedModel) -> list[StreamSpec]:
    """Return the model files, render state and geometry streams."""
    return [
        json_stream(MODEL_FILES, StreamKind.JSON, schema=MODEL_FILE_SCHEMA),
        *scene_streams(body_names(loaded)),
    ]


def stream_table(scenario: MujocoScenario, loaded: LoadedModel) -> list[StreamSpec]:
    """Every stream a recording of ``scenario`` has."""
    observations = observation_stream(
        OBSERVATIONS,
        observation_channels(loaded),
        rate_hz=1.0 / float(loaded.model.opt.timestep),
        source=SIMULATOR_NAME,
    )
    return simulator_streams(observations, scenario.cameras, scene_table(loaded))


def run_metadata(scenario: MujocoScenario, loaded: LoadedModel) -> dict[str, Any]:
    """Return the metadata: run, scenario summary, config, model, contract, versions."""
    model = loaded.model
    return {
        "run": run_section(
            scenario.name, scenario.description, SIMULATOR_NAME, _REPRODUCIBILITY
        ),
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
        "versions": run_versions(mujoco=str(loaded.mujoco.__version__)),
    }
