"""robosuite as a registry adapter replaying robosuite-layout HDF5 episodes.

It claims robosuite episodes from the replay engine (they are not FSR
recordings: :meth:`RobosuiteAdapter.claims_source` looks for the HDF5 magic;
:meth:`~RobosuiteAdapter.can_replay` then for a robosuite environment in the
``data`` group) and replays the
episodes the viewer opens (source kind ``hdf5``) in both modes, into FSR
(:mod:`.replay`); of those, the window offers Replay for the robomimic-layout
episodes of a robosuite environment alone (:mod:`.opened`). robosuite runs
in this process when it is installed here, else in the Python
``FSR_VIEWER_ROBOSUITE_PYTHON`` names (:mod:`.availability`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from fsr_core.recording import RecordingModel
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import ReplayOptions, ReplayPlan, ReplayResult
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.tool_replay_adapter import ToolReplayAdapter
from fsr_core.simulators.robosuite.availability import unavailable_reason
from fsr_core.simulators.robosuite.episode_file import is_hdf5_file
from fsr_core.simulators.robosuite.opened import model_problem
from fsr_core.simulators.robosuite.output import SIMULATOR_NAME
from fsr_core.simulators.robosuite.profile import RobosuiteProfile, is_replay
from fsr_core.simulators.robosuite.replay import episode_problem, plan, replay_episode
from fsr_core.simulators.robosuite.request import SETTINGS

__all__ = ["SOURCE_KIND", "RobosuiteAdapter"]

SOURCE_KIND: Final = "hdf5"
"""The ``RecordingModel.source`` of an HDF5 episode opened in the viewer."""


class RobosuiteAdapter(ToolReplayAdapter):
    """Re-render (restore every state) and re-simulate (step the actions) episodes.

    Available where robosuite runs. Takes ``cameras`` (names, or ``all``) and
    ``size`` (``WIDTHxHEIGHT``); robosuite episodes are recorded by robosuite.
    """

    simulator_name = SIMULATOR_NAME
    source_kind = SOURCE_KIND
    settings = SETTINGS
    recorded_by = (
        "robosuite episodes are recorded by robosuite itself (its "
        "DataCollectionWrapper and gather_demonstrations_as_hdf5); open or "
        "replay the HDF5 file it writes"
    )

    def unavailable_reason(self) -> str | None:
        """Return ``None`` where robosuite runs, else what to install (the extra)."""
        return unavailable_reason()

    def can_replay(self, source: Path) -> str | None:
        """Return why ``source`` cannot be replayed here, or ``None`` if it can."""
        return episode_problem(source)

    def recognises_recording(self, metadata: Mapping[str, Any]) -> bool:
        """Recognise the FSR files a robosuite replay wrote (``run.simulator``)."""
        return is_replay(metadata)

    def recording_profile(self) -> RecordingProfile | None:
        """Return the profile that gives a replay's file its robot and joints."""
        return RobosuiteProfile()

    def can_replay_model(self, model: RecordingModel) -> str | None:
        """Return why the opened HDF5 episode ``model`` cannot be replayed here.

        From what the HDF5 source put in the model (:mod:`.opened`): the
        window offers Replay only for episodes robosuite can rebuild.
        """
        return model_problem(model)

    def claims_source(self, source: Path) -> bool:
        """Claim an HDF5 file or an episode of one (reads its first eight bytes).

        Every HDF5 file the engine is handed is a dataset, never an FSR
        recording: :meth:`can_replay` says why one that is no robosuite file
        cannot be replayed. A file named ``.fsr`` is left to the FSR checks
        (which name HDF5 as the format found).
        """
        if source.suffix.lower() == ".fsr":  # an FSR name: the FSR checks say
            return False
        return is_hdf5_file(source)

    def plan_replay(self, source: Path, options: ReplayOptions) -> ReplayPlan:
        """Say what the replay puts back and compares.

        Raises
        ------
        ReplayError
            ``source`` is not a readable robosuite episode.
        """
        return plan(source, options)

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Re-render or re-simulate ``call.source`` into the FSR ``call.output``."""
        return replay_episode(call)
