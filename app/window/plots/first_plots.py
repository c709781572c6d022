"""The plots a recording opens with, when the user has none open.

* A dataset's episode (LeRobot, EmbodiChain) with joints opens on a plot of
  its joint positions (``observation.state``) and one of its ``action``, each
  column named by its joint, as LeRobot's dataset visualizer shows an
  episode beside its videos.
* A recording with nothing else to show (no scene, no camera: a JSON or ROS
  2 log of numbers) opens on a plot of each of its first
  :data:`FIRST_CHANNELS` channels (every column of each), as ``--plot NAME``
  would give.
* Anything else opens on no plot.

Plain Python: no Qt.
"""

from __future__ import annotations

from typing import Final

from app.canvas.panel_rows.episode import episode_facts
from fsr_core.recording import RecordingModel

__all__ = ["ACTION_CHANNEL", "FIRST_CHANNELS", "first_plots", "plots_are_all"]

#: Plots opened for a recording that has only channels to show.
FIRST_CHANNELS: Final = 3
#: The channel of a dataset's commanded joint positions.
ACTION_CHANNEL: Final = "action"

Plots = tuple[tuple[str, ...], ...]


def _episode_plots(model: RecordingModel) -> Plots:
    """Return the joint positions' plot and the action's, for a dataset episode."""
    joints = model.joints
    if joints is None or joints.positions not in model.channels:
        return ()
    plots: list[tuple[str, ...]] = [(joints.positions,)]
    if ACTION_CHANNEL in model.channels and joints.positions != ACTION_CHANNEL:
        plots.append((ACTION_CHANNEL,))
    return tuple(plots)


def plots_are_all(model: RecordingModel) -> bool:
    """Say whether ``model`` has nothing to show but its channels."""
    return not (model.cameras or model.has_scene)


def first_plots(model: RecordingModel) -> Plots:
    """Return the plots ``model`` opens with (empty: none)."""
    if episode_facts(model) is not None:
        found = _episode_plots(model)
        if found:
            return found
    if not plots_are_all(model):
        return ()
    return tuple((name,) for name in list(model.channels)[:FIRST_CHANNELS])
