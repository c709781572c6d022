"""The answers of a simulator that does not do something.

A simulator class derives from :class:`SimulatorDefaults` and overrides what it
does: a simulator without demos, without a recording profile, that replays FSR
files only, needs none of those methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsr_core.format.reader import FsrReader
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import (
    DemoProgress,
    ReplayOptions,
    ReplayPlan,
    WrittenDemo,
)

if TYPE_CHECKING:
    from fsr_core.recording import RecordingModel

__all__ = ["SimulatorDefaults", "contract_simulator"]

_UNSTATED = "not stated by the recording"


def contract_simulator(metadata: Mapping[str, Any]) -> str | None:
    """Return the simulator a recording names (``simulation_contract.simulator``)."""
    contract = metadata.get("simulation_contract")
    if not isinstance(contract, Mapping):
        return None
    name = contract.get("simulator")
    return name if isinstance(name, str) and name else None


class SimulatorDefaults:
    """The optional parts of :class:`~fsr_core.simulation.protocol.Simulator`."""

    @property
    def name(self) -> str:
        """Registry name; every simulator gives its own."""
        raise NotImplementedError

    @property
    def replay_settings(self) -> tuple[str, ...]:
        """Take no simulator-specific replay setting (``replay --set``)."""
        return ()

    def recognises_recording(self, metadata: Mapping[str, Any]) -> bool:
        """Recognise the recordings whose simulation contract names this simulator."""
        return contract_simulator(metadata) == self.name

    def claims_source(self, source: Path) -> bool:
        """Claim nothing: every file it replays is an FSR recording."""
        return False

    def source_kinds(self) -> frozenset[str]:
        """Replay no recording kind but FSR."""
        return frozenset()

    def can_replay_model(self, model: RecordingModel) -> str | None:
        """Object to no opened recording: the engine checks the file itself."""
        del model  # nothing to judge beyond the file checks
        return None

    def replay_suffix(self, source_kind: str) -> str:
        """Write every replay as FSR."""
        del source_kind  # the same for every kind
        return ".fsr"

    def recording_profile(self) -> RecordingProfile | None:
        """Keep the model every FSR file gets."""
        return None

    def demos(self) -> tuple[str, ...]:
        """Have no demo takes."""
        return ()

    def write_demos(
        self,
        folder: Path,
        *,
        names: Sequence[str] | None = None,
        progress: DemoProgress | None = None,
    ) -> tuple[WrittenDemo, ...]:
        """Record the takes ``names`` (all of :meth:`demos` by default) into ``folder``.

        A simulator with demo takes overrides :meth:`record_demos`.
        """
        wanted = self.demos() if names is None else tuple(names)
        return self.record_demos(folder, wanted, progress)

    def record_demos(
        self, folder: Path, names: tuple[str, ...], progress: DemoProgress | None
    ) -> tuple[WrittenDemo, ...]:
        """Write nothing: there are no demo takes."""
        return ()

    def plan_replay(self, source: Path, options: ReplayOptions) -> ReplayPlan:
        """Say what the recording says a re-run gives (``run.reproducibility``).

        Raises
        ------
        FsrError
            ``source`` is not a readable FSR file.
        """
        with FsrReader.open(source) as reader:
            run = reader.metadata.get("run")
        said = run.get("reproducibility") if isinstance(run, dict) else None
        return ReplayPlan(said if isinstance(said, str) and said else _UNSTATED)
