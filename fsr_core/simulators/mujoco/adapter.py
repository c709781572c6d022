"""MuJoCo as a registry adapter: record scenarios, re-render and re-simulate.

Its recordings open with the model they embed as their robot description
(:mod:`fsr_core.simulators.mujoco.profile`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fsr_core.simulation.model_files import ModelFiles
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import (
    RecordedRun,
    ReplayResult,
    ScenarioInput,
)
from fsr_core.simulation.replay_call import ReplayCall, ReplayCallAdapter
from fsr_core.simulation.simulator_defaults import SimulatorDefaults
from fsr_core.simulators.mujoco.profile import MujocoProfile
from fsr_core.simulators.mujoco.recorder import MujocoRunResult, record_mujoco_run
from fsr_core.simulators.mujoco.replay import can_replay, replay_recording
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME, unavailable_reason
from fsr_core.simulators.mujoco.scenario import MujocoScenario, load_mujoco_scenario

__all__ = ["MujocoAdapter"]


class MujocoAdapter(ReplayCallAdapter, SimulatorDefaults):
    """Available when the ``mujoco`` package imports (the ``mujoco`` extra)."""

    @property
    def name(self) -> str:
        """``mujoco``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None`` when MuJoCo is installed, else what to install."""
        return unavailable_reason()

    def recording_profile(self) -> RecordingProfile | None:
        """Return the profile that gives a recording the model it embeds."""
        return MujocoProfile()

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        """Recognise a scenario with ``simulator = "mujoco"``."""
        return document.get("simulator") == SIMULATOR_NAME

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        """Record a scenario file, or a resolved config with its model files.

        A resolved config (the ``config`` metadata of a recording) needs the
        model files too, passed as ``model_files=ModelFiles(...)``.
        """
        if isinstance(scenario, Path):
            loaded = load_mujoco_scenario(scenario)
            run = record_mujoco_run(loaded, output, where=scenario)
        else:
            files: ModelFiles = options.pop("model_files")
            loaded = MujocoScenario.from_json(dict(scenario), files)
            run = record_mujoco_run(loaded, output)
        what = f"{run.ticks} steps with {SIMULATOR_NAME}"
        return RecordedRun.of_published(run.published, what, run.wall_s, run)

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> MujocoRunResult:
        """Record a scenario: ``config`` holds ``scenario_path`` or a resolved config.

        A resolved config (the ``config`` metadata of a recording) needs the
        model files too, passed as ``model_files=ModelFiles(...)``.
        """
        path = config.get("scenario_path")
        scenario: ScenarioInput = config if path is None else Path(path)
        run: MujocoRunResult = self.record(scenario, Path(output), **options).result
        return run

    def can_replay(self, source: Path) -> str | None:
        """``None`` when ``source`` is a MuJoCo recording this adapter can replay."""
        return can_replay(source)

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Re-render or re-simulate, as ``call.options.mode`` asks."""
        return replay_recording(call)
