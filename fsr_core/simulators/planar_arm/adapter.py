"""The built-in planar-arm simulator as a registry adapter that can replay.

It simulates scenarios, and replays its own recordings in both modes:
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
from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
    TargetContract,
)
from fsr_core.simulators.planar_arm.chunk_playback import REVOLUTE_UNITS
from fsr_core.simulators.planar_arm.controllers import controller_from_json
from fsr_core.simulators.planar_arm.planning import CHUNK_TARGET
from fsr_core.simulators.planar_arm.recorder import (
    ExternalPush,
    RunResult,
    _generation_plan,
    record_run,
)
from fsr_core.simulators.planar_arm.recording_streams import SIMULATOR_NAME
from fsr_core.simulators.planar_arm.rerender import rerender
from fsr_core.simulators.planar_arm.resimulation import resimulate, source_scenario
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = ["PlanarArmAdapter"]


class PlanarArmAdapter:
    """numpy only, so always available."""

    @property
    def name(self) -> str:
        """``planar_arm``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None``: the simulator needs nothing beyond numpy."""
        return None

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> RunResult:
        """Run a resolved (or hand-written) scenario config and record it."""
        pushes: tuple[ExternalPush, ...] = tuple(options.pop("external_pushes", ()))
        return record_run(
            Scenario.from_json(config), output, external_pushes=pushes, **options
        )

    def capabilities(self) -> frozenset[ReplayMode]:
        """Return both modes: render and resimulate."""
        return frozenset({ReplayMode.RENDER, ReplayMode.RESIMULATE})

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

    def replay(
        self,
        source: Path,
        output: Path,
        options: ReplayOptions,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
    ) -> ReplayResult:
        """Replay ``source`` into ``output`` in ``options.mode``.

        Call it through :func:`fsr_core.replay.engine.replay_file`, which runs
        the preflight first and pins the digest it checked.
        """
        if options.mode is ReplayMode.RENDER:
            return rerender(source, output, options, progress=progress, cancel=cancel)
        return resimulate(source, output, options, progress=progress, cancel=cancel)
