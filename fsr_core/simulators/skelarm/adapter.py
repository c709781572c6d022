"""skelarm (PyPI, Python >= 3.12) as a registry adapter that re-simulates its logs.

skelarm runs in a child interpreter (:mod:`.worker`), never in the viewer's
process. The adapter re-simulates a ``.sklog.npz`` log, or an FSR file
converted from one, from the log's embedded ``extra.source_config`` and
``extra.run`` through skelarm's own ``rerun_log`` (:mod:`.replay`), and runs a
scenario config through ``run_scenario`` (:mod:`.scenario_run`). It claims
those files from the replay engine (they are not FSR recordings of its own),
opens converted logs as the log opens (:mod:`.profile`), and has no render
mode: a skelarm log holds no render state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import FsrError, ReplayError
from fsr_core.logs.skelarm.convert import SIMULATOR_NAME
from fsr_core.logs.skelarm.converted import is_converted_log
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import (
    RecordedRun,
    ReplayMode,
    ReplayOptions,
    ReplayPlan,
    ReplayResult,
    ScenarioInput,
)
from fsr_core.simulation.replay_call import ReplayCall, ReplayCallAdapter
from fsr_core.simulation.scenario_document import read_scenario_document
from fsr_core.simulation.simulator_defaults import SimulatorDefaults
from fsr_core.simulators.skelarm.availability import unavailable_reason
from fsr_core.simulators.skelarm.profile import ConvertedLogProfile
from fsr_core.simulators.skelarm.replay import (
    is_skelarm_source,
    plan_for,
    resimulate_log,
)
from fsr_core.simulators.skelarm.reproducibility import Reproducibility
from fsr_core.simulators.skelarm.scenario_run import run_scenario

__all__ = ["LOG_SOURCE", "SkelarmAdapter"]

LOG_SOURCE: Final = "skelarm"
"""The ``RecordingModel.source`` of a ``.sklog.npz`` log (``fsr_core.sources``)."""


class SkelarmAdapter(ReplayCallAdapter, SimulatorDefaults):
    """Re-simulation through skelarm; available where skelarm imports."""

    @property
    def name(self) -> str:
        """``skelarm``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None`` where skelarm imports, else what to install (and where)."""
        return unavailable_reason()

    def capabilities(self) -> frozenset[ReplayMode]:
        """Return resimulate only: skelarm logs have no render state."""
        return frozenset({ReplayMode.RESIMULATE})

    def can_replay(self, source: Path) -> str | None:
        """Return why ``source`` cannot be re-simulated, or ``None`` if it can."""
        try:
            plan = plan_for(source)
        except FsrError as exc:
            return exc.reason
        if plan.tier is Reproducibility.IMPOSSIBLE:
            return plan.refusal
        return None

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Re-simulate ``call.source`` into the ``.sklog.npz`` ``call.output``.

        Raises
        ------
        ReplayError
            Render mode was asked for, or the log cannot be re-simulated.
        """
        options = call.options
        if options.mode is not ReplayMode.RESIMULATE:
            raise ReplayError(
                "skelarm logs can only be re-simulated (they hold no render state)",
                path=call.source,
            )
        return resimulate_log(
            call.source,
            call.output,
            with_recorded_force=options.with_recorded_force,
            overwrite=options.overwrite,
            pinned_sha256=options.pinned_sha256,
            progress=call.progress,
            cancel=call.cancel,
        )

    def recognises_recording(self, metadata: Mapping[str, Any]) -> bool:
        """Recognise an FSR file converted from a skelarm log."""
        return is_converted_log(metadata)

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        """Recognise skelarm's scenario: a ``[skeleton]`` table, no simulator name."""
        named = isinstance(document.get("simulator"), str)
        return isinstance(document.get("skeleton"), Mapping) and not named

    def claims_source(self, source: Path) -> bool:
        """Claim a skelarm log, or an FSR file converted from one (it reads it)."""
        return is_skelarm_source(source)

    def source_kinds(self) -> frozenset[str]:
        """Return the skelarm log's kind: a log opened in the player re-runs here."""
        return frozenset({LOG_SOURCE})

    def replay_suffix(self, source_kind: str) -> str:
        """Re-run a log into a new log (skelarm's own writer), never into FSR."""
        return ".sklog.npz" if source_kind == LOG_SOURCE else ".fsr"

    def recording_profile(self) -> RecordingProfile:
        """Open a converted log as the log opens."""
        return ConvertedLogProfile()

    def plan_replay(self, source: Path, options: ReplayOptions) -> ReplayPlan:
        """Say how faithful the re-run will be (skelarm's reproducibility tiers).

        Raises
        ------
        FsrError
            ``source`` is not a readable skelarm log.
        """
        plan = plan_for(source)
        return ReplayPlan(plan.tier.value, plan.notes_for(options.with_recorded_force))

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        """Run a skelarm scenario file or config and save its ``.sklog.npz`` log.

        ``duration`` (seconds) overrides the task's; ``overwrite`` replaces an
        existing ``output`` (see :func:`.scenario_run.run_scenario`).
        """
        config = (
            read_scenario_document(scenario) if isinstance(scenario, Path) else scenario
        )
        written = run_scenario(
            config,
            output,
            duration=options.get("duration"),
            overwrite=bool(options.get("overwrite", False)),
        )
        return RecordedRun(written, f"a log run by {SIMULATOR_NAME}", written)

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> Path:
        """Run a skelarm scenario config (its TOML tables) and save the log.

        Returns the written ``.sklog.npz``; the options are :meth:`record`'s.
        """
        return self.record(config, Path(output), **options).output
