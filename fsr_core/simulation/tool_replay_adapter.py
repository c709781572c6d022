"""The base of the simulators that replay files their own tool recorded.

Genesis's trajectories and robosuite's HDF5 episodes are recorded by the tool
itself, not here: such an adapter replays the recordings of one source kind
(the kind the viewer opens them as), recognises no scenario and refuses to
record, saying how the tool records. A subclass declares its name, source
kind, settings and that sentence, and implements what is its own:
``unavailable_reason``, ``can_replay``, ``claims_source``, ``plan_replay`` and
``_replay``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from fsr_core.errors import ReplayError
from fsr_core.simulation.protocol import RecordedRun, ScenarioInput
from fsr_core.simulation.replay_call import ReplayCallAdapter
from fsr_core.simulation.simulator_defaults import SimulatorDefaults

__all__ = ["ToolReplayAdapter"]


class ToolReplayAdapter(ReplayCallAdapter, SimulatorDefaults):
    """Replays the files of one source kind in both modes; records nothing."""

    simulator_name: ClassVar[str]
    """The registry name."""
    source_kind: ClassVar[str]
    """The ``RecordingModel.source`` of a recording open in the viewer."""
    settings: ClassVar[tuple[str, ...]] = ()
    """The ``replay --set`` settings the simulator takes."""
    recorded_by: ClassVar[str]
    """Why :meth:`record` refuses: how the tool records, and what to open."""

    @property
    def name(self) -> str:
        """The registry name (:attr:`simulator_name`)."""
        return self.simulator_name

    @property
    def replay_settings(self) -> tuple[str, ...]:
        """Return the simulator's own replay settings (:attr:`settings`)."""
        return self.settings

    def source_kinds(self) -> frozenset[str]:
        """Return the source kind whose recordings open in the player replay."""
        return frozenset({self.source_kind})

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        """Recognise no scenario: the tool's runs are authored in the tool."""
        return False

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        """Refuse: the tool records its own runs (:attr:`recorded_by`).

        Raises
        ------
        ReplayError
            Always.
        """
        raise ReplayError(self.recorded_by, path=output)
