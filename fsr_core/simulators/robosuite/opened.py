"""Whether an HDF5 episode the viewer opened is one robosuite can replay.

The window asks before it offers Replay, on its GUI thread, so this reads
only what the HDF5 source put in the model (no file I/O): the layout, the
environment the file names and what the episode holds. It says no where
:func:`~.episode_file.find_episode` would: a file that is not in the
robomimic layout (an ALOHA/ACT or a ManiSkill file), one whose ``env_args``
describe no robosuite environment, or that names none (neither
``data@env_args`` nor robosuite's own ``data@env``), an episode without
``states`` or without its ``model_file``. The engine reads the file and
checks again before a replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fsr_core.recording import RecordingModel

__all__ = ["model_problem"]

ROBOMIMIC: Final = "robomimic"
_LAYOUT_NAMES: Final = {
    "aloha": "an ALOHA/ACT file",
    "maniskill": "a ManiSkill file (traj_N)",
}
_WHAT_REPLAYS: Final = (
    "robosuite replays robomimic-layout episodes (data/demo_N) of a robosuite "
    "environment"
)
_ROBOSUITE_ENV_TYPE: Final = 1
"""robomimic's ``EnvType.ROBOSUITE_TYPE``, the ``type`` of its ``env_args``."""


def _environment_problem(metadata: Mapping[str, Any]) -> str | None:
    args = metadata.get("env_args")
    if isinstance(args, Mapping):
        if args.get("type") != _ROBOSUITE_ENV_TYPE:
            return (
                "the file's env_args describe no robosuite environment "
                "(robomimic's env type 1); " + _WHAT_REPLAYS
            )
        return None
    attributes = metadata.get("data_attributes")
    if isinstance(attributes, Mapping) and attributes.get("env"):
        return None  # robosuite's own gather_demonstrations_as_hdf5 names it so
    return (
        "the file names no robosuite environment (neither data@env_args nor "
        "data@env); " + _WHAT_REPLAYS
    )


def model_problem(model: RecordingModel) -> str | None:
    """Return why robosuite cannot replay the opened episode ``model``, or ``None``."""
    metadata = model.metadata
    layout = metadata.get("layout")
    if layout != ROBOMIMIC:
        what = _LAYOUT_NAMES.get(str(layout), "not a robomimic-layout file")
        return f"{_WHAT_REPLAYS}; this is {what}"
    problem = _environment_problem(metadata)
    if problem is not None:
        return problem
    episode = str(metadata.get("episode", "the episode"))
    if "states" not in model.channels:
        return f"{episode} records no states to restore"
    if model.robot_description is None:
        return (
            f"{episode} has no model_file: robosuite rebuilds the episode's "
            "scene from it"
        )
    return None
