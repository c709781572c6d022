"""MuJoCo as a registry adapter: record scenarios, re-render and re-simulate."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
)
from fsr_core.simulators.mujoco.model_files import ModelFiles
from fsr_core.simulators.mujoco.recorder import MujocoRunResult, record_mujoco_run
from fsr_core.simulators.mujoco.replay import can_replay, replay_recording
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME, unavailable_reason
from fsr_core.simulators.mujoco.scenario import MujocoScenario, load_mujoco_scenario

__all__ = ["MujocoAdapter"]


class MujocoAdapter:
    """Available when the ``mujoco`` package imports (the ``mujoco`` extra)."""

    @property
    def name(self) -> str:
        """``mujoco``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None`` when MuJoCo is installed, else what to install."""
        return unavailable_reason()

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> MujocoRunResult:
        """Record a scenario: ``config`` holds ``scenario_path`` or a resolved config.

        A resolved config (the ``config`` metadata of a recording) needs the
        model files too, passed as ``model_files=ModelFiles(...)``.
        """
        path = config.get("scenario_path")
        if path is not None:
            scenario = load_mujoco_scenario(path)
            return record_mujoco_run(scenario, output, where=Path(path))
        files: ModelFiles = options.pop("model_files")
        return record_mujoco_run(MujocoScenario.from_json(config, files), output)

    def capabilities(self) -> frozenset[ReplayMode]:
        """Both modes: render and resimulate."""
        return frozenset({ReplayMode.RENDER, ReplayMode.RESIMULATE})

    def can_replay(self, source: Path) -> str | None:
        """``None`` when ``source`` is a MuJoCo recording this adapter can replay."""
        return can_replay(source)

    def replay(
        self,
        source: Path,
        output: Path,
        options: ReplayOptions,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
    ) -> ReplayResult:
        """Re-render or re-simulate ``source`` into ``output``, published atomically."""
        return replay_recording(
            source, output, options, progress=progress, cancel=cancel
        )
