"""The joints of a dataset episode: ``observation.state``, named by ``info.json``.

LeRobot (and EmbodiChain, which records through it) keeps the robot's joint
positions in the ``observation.state`` feature, its columns named by the
feature's ``names`` in ``meta/info.json`` (``shoulder_pan``, ``gripper``...).
Velocities and efforts, where a dataset records them, are features of the
same width beside it: ``observation.velocity`` and ``observation.effort``
(ALOHA-style datasets), ``observation.qvel`` and ``observation.qf``
(EmbodiChain). Datasets say nothing of units; values are taken as radians,
as LeRobot's robot models give them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from fsr_core.joint_set import JointSet
from fsr_core.recording import Channel

__all__ = ["EFFORT_KEYS", "STATE_KEY", "VELOCITY_KEYS", "dataset_joints"]

STATE_KEY: Final = "observation.state"
VELOCITY_KEYS: Final = ("observation.velocity", "observation.qvel")
EFFORT_KEYS: Final = ("observation.effort", "observation.qf")


def _beside(
    channels: Mapping[str, Channel], keys: tuple[str, ...], state: Channel
) -> str | None:
    """Return the first of ``keys`` holding as many columns as ``state``."""
    for key in keys:
        channel = channels.get(key)
        if channel is not None and channel.width == state.width:
            return key
    return None


def dataset_joints(channels: Mapping[str, Channel]) -> JointSet | None:
    """Return the episode's joints (``None`` without ``observation.state``)."""
    state = channels.get(STATE_KEY)
    if state is None or not state.columns:
        return None
    return JointSet.of_channel(
        STATE_KEY,
        state.columns,
        velocities=_beside(channels, VELOCITY_KEYS, state),
        efforts=_beside(channels, EFFORT_KEYS, state),
    )
