"""Genesis (PyPI ``genesis-world``) as a registry adapter replaying ``.gstraj`` files.

It claims Genesis trajectories from the replay engine (they are not FSR
recordings: :meth:`GenesisAdapter.claims_source` looks at the magic) and
replays the trajectories the viewer opens (source kind ``genesis``) in both
modes, into FSR (:mod:`.replay`). Genesis runs in this process when it is
installed here, else in the Python ``FSR_VIEWER_GENESIS_PYTHON`` names
(:mod:`.availability`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from fsr_core.simulation.protocol import ReplayOptions, ReplayPlan, ReplayResult
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.tool_replay_adapter import ToolReplayAdapter
from fsr_core.simulators.genesis.availability import unavailable_reason
from fsr_core.simulators.genesis.output import SIMULATOR_NAME
from fsr_core.simulators.genesis.replay import (
    plan,
    replay_trajectory,
    trajectory_problem,
)
from fsr_core.simulators.genesis.request import SETTINGS
from fsr_core.simulators.genesis.trajectory_file import MAGIC_PREFIX

__all__ = ["SOURCE_KIND", "GenesisAdapter"]

SOURCE_KIND: Final = "genesis"
"""The ``RecordingModel.source`` of a trajectory opened in the viewer."""


class GenesisAdapter(ToolReplayAdapter):
    """Re-render (seek every frame) and re-simulate (step on) Genesis trajectories.

    Available where Genesis runs. Takes ``camera`` (pos, lookat, fov, size) and
    ``start_frame``; Genesis scenes are authored in Python, not here.
    """

    simulator_name = SIMULATOR_NAME
    source_kind = SOURCE_KIND
    settings = SETTINGS
    recorded_by = (
        "Genesis scenes are recorded by Genesis itself "
        "(scene.start_recording(gs.recorders.TrajectoryFile(...))); open or "
        "replay the .gstraj file it writes"
    )

    def unavailable_reason(self) -> str | None:
        """Return ``None`` where Genesis runs, else what to install (the extra)."""
        return unavailable_reason()

    def can_replay(self, source: Path) -> str | None:
        """Return why ``source`` cannot be replayed here, or ``None`` if it can."""
        return trajectory_problem(source)

    def claims_source(self, source: Path) -> bool:
        """Claim a file that starts with the ``GSTRAJ`` magic (reads six bytes)."""
        try:
            with source.open("rb") as handle:
                return handle.read(len(MAGIC_PREFIX)) == MAGIC_PREFIX
        except OSError:
            return False

    def plan_replay(self, source: Path, options: ReplayOptions) -> ReplayPlan:
        """Say how faithful the replay will be, and what it puts back.

        Raises
        ------
        ReplayError
            ``source`` is not a readable trajectory.
        """
        return plan(source, options)

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Re-render or re-simulate ``call.source`` into the FSR ``call.output``."""
        return replay_trajectory(call)
