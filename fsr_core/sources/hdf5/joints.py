"""The robot's joints of an HDF5 episode: which channel, and the joints' names.

* robosuite/robomimic: ``obs/robot0_joint_pos`` (velocities
  ``obs/robot0_joint_vel``), the joints named as the episode's ``model_file``
  names them (``robot0_joint1`` ...) when it has as many;
* ALOHA/ACT: ``observations/qpos`` (``observations/qvel``), named as ACT names
  its two 7-joint arms when it has 14 columns;
* ManiSkill: ``obs/agent/qpos`` (``obs/agent/qvel``).

Values are radians, as those simulators record them.

A robosuite/robomimic episode's ``states`` (robosuite's flattened MuJoCo
state per step, ``[time, qpos, qvel]``) is named as the set's
:attr:`~fsr_core.joint_set.JointSet.mujoco_state`: posing the episode's MJCF
with it poses every joint of the scene (the fingers, the objects), when its
width is that model's ``1 + nq + nv``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Final

from fsr_core.joint_set import JointSet
from fsr_core.recording import Channel

__all__ = ["POSITION_KEYS", "STATE_KEY", "episode_joints", "mjcf_joint_names"]

POSITION_KEYS: Final = (
    ("obs/robot0_joint_pos", "obs/robot0_joint_vel"),
    ("observations/qpos", "observations/qvel"),
    ("obs/agent/qpos", "obs/agent/qvel"),
)
"""Joint position channels, each with its velocity channel, first found wins."""
STATE_KEY: Final = "states"
"""robosuite's flattened MuJoCo state per step in a robomimic-layout episode."""

_ACT_ARM: Final = (
    "waist",
    "shoulder",
    "elbow",
    "forearm_roll",
    "wrist_angle",
    "wrist_rotate",
    "gripper",
)
ACT_NAMES: Final = tuple(
    f"{side}_{name}" for side in ("left", "right") for name in _ACT_ARM
)
"""What ACT's ``record_sim_episodes`` calls the 14 columns of ``qpos``."""

_JOINT_NAME: Final = re.compile(rb"<joint\b[^>]*?\bname=\"(robot0_[^\"]+)\"")


def mjcf_joint_names(model_file: bytes) -> tuple[str, ...]:
    """Return the names of ``robot0_`` joints an MJCF text declares, in order."""
    return tuple(
        match.decode("utf-8", "replace") for match in _JOINT_NAME.findall(model_file)
    )


def _names(key: str, width: int, model_joints: tuple[str, ...]) -> tuple[str, ...]:
    if key.startswith("obs/robot0") and len(model_joints) >= width:
        return model_joints[:width]
    if key == "observations/qpos" and width == len(ACT_NAMES):
        return ACT_NAMES
    return tuple(f"joint{i}" for i in range(width))


def episode_joints(
    channels: Mapping[str, Channel],
    model_joints: tuple[str, ...] = (),
    *,
    mujoco_state: bool = False,
) -> JointSet | None:
    """Return the episode's joints (``None`` when it records none of them).

    With ``mujoco_state`` (a robosuite episode), its ``states`` channel, when
    it has one, is the set's MuJoCo state.
    """
    for positions, velocities in POSITION_KEYS:
        channel = channels.get(positions)
        if channel is None:
            continue
        speeds = channels.get(velocities)
        found = JointSet.of_channel(
            positions,
            _names(positions, channel.width, model_joints),
            velocities=velocities
            if speeds is not None and speeds.width == channel.width
            else None,
        )
        if mujoco_state and STATE_KEY in channels:
            return dataclasses.replace(found, mujoco_state=STATE_KEY)
        return found
    return None
