"""The built-in planar-arm simulator as a registry adapter that can replay.

It is the default simulator: it records scenario files that name no other
simulator, writes the demo takes, and shapes the model of its recordings
(:mod:`~fsr_core.simulators.planar_arm.profile`). It replays its own
recordings in both modes:
*render* (:mod:`~fsr_core.simulators.planar_arm.rerender`) and *resimulate*
(:mod:`~fsr_core.simulators.planar_arm.resimulation`). Its target contract is
the arm the recording's config describes: the resource ``arm``, the joints
``q0, q1, ...`` in order, the revolute unit of each command space the
configured controller takes, every interpolation and terminal policy, and the
configured controller; its generations are the ones the config's scripted
resets make.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fsr_core.control import CommandSpace, Interpolation, TerminalPolicy
from fsr_core.errors import FsrError, ReplayError
from fsr_core.format.reader import FsrReader
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import (
    DemoProgress,
    RecordedRun,
    ReplayMode,
    ReplayResult,
    ScenarioInput,
    TargetContract,
    WrittenDemo,
)
from fsr_core.simulation.replay_call import ReplayCall, ReplayCallAdapter
from fsr_core.simulation.simulator_defaults import SimulatorDefaults
from fsr_core.simulators.planar_arm.chunk_playback import REVOLUTE_UNITS
from fsr_core.simulators.planar_arm.controllers import controller_from_json
from fsr_core.simulators.planar_arm.demos import DEMO_NAMES, write_demos
from fsr_core.simulators.planar_arm.observations import SIMULATOR_NAME
from fsr_core.simulators.planar_arm.planning import CHUNK_TARGET
from fsr_core.simulators.planar_arm.profile import PlanarArmProfile
from fsr_core.simulators.planar_arm.recorder import (
    ExternalPush,
    RunResult,
    _generation_plan,
    record_run,
)
from fsr_core.simulators.planar_arm.rerender import rerender
from fsr_core.simulators.planar_arm.resimulation import resimulate, source_scenario
from fsr_core.simulators.planar_arm.scenario import Scenario, load_scenario

__all__ = ["PlanarArmAdapter"]


class PlanarArmAdapter(ReplayCallAdapter, SimulatorDefaults):
    """numpy only, so always available."""

    @property
    def name(self) -> str:
        """``planar_arm``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None``: the simulator needs nothing beyond numpy."""
        return None

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        """Recognise a scenario that names no simulator, or this one."""
        return bool(document.get("simulator", SIMULATOR_NAME) == SIMULATOR_NAME)

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        """Run a scenario file or config and record it (see :func:`record_run`).

        ``external_pushes`` (a sequence of :class:`ExternalPush`) and the
        other options of :func:`record_run` are passed on.
        """
        loaded = (
            load_scenario(scenario)
            if isinstance(scenario, Path)
            else Scenario.from_json(dict(scenario))
        )
        pushes: tuple[ExternalPush, ...] = tuple(options.pop("external_pushes", ()))
        result = record_run(loaded, output, external_pushes=pushes, **options)
        what = f"{result.ticks} ticks in {result.generations} generation(s)"
        return RecordedRun.of_published(result.published, what, result.wall_s, result)

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> RunResult:
        """Run a resolved (or hand-written) scenario config and record it."""
        run: RunResult = self.record(config, Path(output), **options).result
        return run

    def recording_profile(self) -> RecordingProfile:
        """Add the arm's joint angles, readouts and kinematics to the model."""
        return PlanarArmProfile()

    def demos(self) -> tuple[str, ...]:
        """Return the names of the demo takes."""
        return DEMO_NAMES

    def record_demos(
        self, folder: Path, names: tuple[str, ...], progress: DemoProgress | None
    ) -> tuple[WrittenDemo, ...]:
        """Record the demo takes (each with its scenario TOML) into ``folder``."""
        files = write_demos(folder, names=names, progress=progress)
        return tuple(
            WrittenDemo(item.recording, item.scenario, item.result is not None)
            for item in files
        )

    def can_replay(self, source: Path) -> str | None:
        """Return why ``source`` cannot be rebuilt here, or ``None`` if it can."""
        try:
            with FsrReader.open(source) as reader:
                source_scenario(reader)
        except FsrError as exc:
            return exc.reason
        return None

    def target_contract(self, metadata: Mapping[str, Any]) -> TargetContract:
        """Return what the arm of the recording's config accepts.

        Raises
        ------
        ReplayError
            The metadata has no valid planar-arm config.
        """
        config = metadata.get("config")
        try:
            if not isinstance(config, dict):
                raise ReplayError("the source has no resolved config")
            scenario = Scenario.from_json(config)
            controller = controller_from_json(scenario.controller)
        except FsrError as exc:
            raise ReplayError(
                f"the source's config is not a planar-arm scenario: {exc.reason}"
            ) from exc
        spaces: tuple[CommandSpace, ...] = getattr(controller, "spaces", ())
        return TargetContract(
            simulator=SIMULATOR_NAME,
            resources=frozenset({CHUNK_TARGET}),
            axes=scenario.model.joint_names,
            units={space: REVOLUTE_UNITS[space] for space in spaces},
            interpolations=frozenset(Interpolation),
            terminal_policies=frozenset(TerminalPolicy),
            controllers=frozenset({controller.name}),
            dt_s=scenario.dt_s,
            generation_ticks=tuple(ticks for ticks, _ in _generation_plan(scenario)),
        )

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Re-render or resimulate, as ``call.options.mode`` asks."""
        if call.options.mode is ReplayMode.RENDER:
            return rerender(call)
        return resimulate(call)
