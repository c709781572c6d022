"""What a robosuite replay's FSR file adds to the model every FSR file gets: its robot.

The replay embeds the episode's ``model_file`` (the MJCF robosuite rebuilt
the scene from) as a MuJoCo recording embeds its model (``model.files``,
listed in the ``model`` metadata; read back by
:mod:`fsr_core.simulation.embedded_model`). Opened, the file carries it as
its robot description, and its joints are the robot's hinge and slide
joints of the replayed ``states`` (``qpos.robot0_joint1`` ... as
``metadata.robosuite.state_names`` names the columns): channel ``q``, with
``qvel`` their rates. The player then poses the model and draws it in the
scene view, as it draws the HDF5 episode's: the whole ``states`` (``time``,
then ``qpos.*`` and ``qvel.*``: robosuite's flattened MuJoCo state) is the
joint set's MuJoCo state, so every joint of the scene is posed from it, the
fingers and the cube too (the episode's ``obs/robot0_joint_pos`` are the arm's
``states`` columns).

The file records no scene geometry of its own, so the robot's meshes are
the scene: the replay embeds them beside the MJCF (:mod:`.portable_model`),
so it draws on a machine without robosuite. An older replay that embeds the
MJCF alone has its meshes found in a robosuite here
(:mod:`fsr_core.robots.robosuite_assets`), else a note says why not.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Final

from fsr_core.joint_set import JointSet
from fsr_core.recording import RecordingModel, picked_channel
from fsr_core.robots.urdf import MAX_DESCRIPTION_BYTES
from fsr_core.simulation.embedded_model import with_embedded_robot
from fsr_core.simulation.profile import FsrOpening

__all__ = ["JOINT_CHANNEL", "RATE_CHANNEL", "RobosuiteProfile", "is_replay"]

JOINT_CHANNEL: Final = "q"
RATE_CHANNEL: Final = "qvel"
_STATES: Final = "states"
_TIME: Final = "time"
"""The first of robosuite's state names: its state is ``[time, qpos, qvel]``."""
_ROBOT_JOINT: Final = re.compile(r"^qpos\.(robot[0-9]+_[^.]+)$")
"""A robot's hinge or slide in the state names (a free or ball joint has parts)."""


def is_replay(metadata: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` is a robosuite replay's (its ``run`` names robosuite)."""
    run = metadata.get("run")
    return (
        isinstance(run, Mapping)
        and run.get("simulator") == "robosuite"
        and isinstance(metadata.get("robosuite"), Mapping)
    )


def _state_names(metadata: Mapping[str, Any]) -> list[str]:
    section = metadata.get("robosuite")
    names = section.get("state_names") if isinstance(section, Mapping) else None
    return [str(name) for name in names] if isinstance(names, list) else []


def _with_joints(model: RecordingModel) -> RecordingModel:
    """Return ``model`` with the robot's joints picked out of ``states``."""
    states = model.channels.get(_STATES)
    names = _state_names(model.metadata)
    if states is None or len(names) != states.width or model.joints is not None:
        return model
    joints = [
        (index, match.group(1))
        for index, name in enumerate(names)
        if (match := _ROBOT_JOINT.match(name)) is not None
    ]
    if not joints:
        return model
    joint_names = tuple(name for _, name in joints)
    channels = dict(model.channels)
    channels[JOINT_CHANNEL] = picked_channel(
        states,
        JOINT_CHANNEL,
        [index for index, _ in joints],
        columns=joint_names,
        unit="rad",
        label="joint position",
    )
    rates = [
        names.index(f"qvel.{name}") for name in joint_names if f"qvel.{name}" in names
    ]
    if len(rates) == len(joint_names):
        channels[RATE_CHANNEL] = picked_channel(
            states,
            RATE_CHANNEL,
            rates,
            columns=joint_names,
            unit="rad/s",
            label="joint velocity",
        )
    velocities = RATE_CHANNEL if RATE_CHANNEL in channels else None
    joint_set = JointSet.of_channel(JOINT_CHANNEL, joint_names, velocities=velocities)
    if names[0] == _TIME:
        # robosuite's flattened state, [time, qpos, qvel]: it poses every joint.
        joint_set = dataclasses.replace(joint_set, mujoco_state=_STATES)
    return dataclasses.replace(model, channels=channels, joints=joint_set)


class RobosuiteProfile:
    """The model of a robosuite replay: the generic one, with its robot."""

    def build(self, opening: FsrOpening) -> RecordingModel:
        """Return the model every FSR file gets, with its joints and embedded model."""
        return with_embedded_robot(
            _with_joints(opening.generic_model()),
            opening.reader,
            opening.path,
            scene_recorded=False,
            budget_bytes=MAX_DESCRIPTION_BYTES,
        )
