"""The joints of an FSR recording that records generalized positions (MuJoCo).

A simulator that records its state as ``qpos.<joint>`` columns of a numeric
stream, with a unit per column (MuJoCo's observation record), names its
joints there: each ``qpos.<name>`` in ``rad`` is a revolute joint (a hinge),
each in ``m`` a prismatic one (a slide), named as the model names it. The
model gets a ``q`` channel of those columns (what the side panel reads and a
plot shows) and a :class:`~fsr_core.joint_set.JointSet` over it, with the
rates (``qvel.<name>``) and actuator forces (``force.<name>``, an actuator
named as its joint) of the same stream when it records one for every joint.

A free joint (``qpos.<name>.x y z qw qx qy qz``) recorded first, ahead of
the other joints, is the robot's floating base: its columns are the
``base_pose`` channel. Other free joints (loose bodies) and ball joints are
no joints of the panel: their coordinates are not angles.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from fsr_core.errors import SchemaError
from fsr_core.joint_set import JointKind, JointSet, JointSpec
from fsr_core.recording import Channel, picked_channel

__all__ = ["BASE_POSE_CHANNEL", "JOINT_CHANNEL", "converted_joints", "recorded_joints"]

JOINT_CHANNEL: Final = "q"
BASE_POSE_CHANNEL: Final = "base_pose"
_POSITION: Final = "qpos."
_KINDS: Final = {"rad": JointKind.REVOLUTE, "m": JointKind.PRISMATIC}
_FREE: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")


def _joint_columns(
    channel: Channel, units: tuple[str, ...]
) -> list[tuple[int, JointSpec]]:
    """Return the column and spec of each hinge and slide ``qpos.<name>``."""
    found = []
    for index, column in enumerate(channel.columns):
        name = column.removeprefix(_POSITION)
        if name == column or "." in name or index >= len(units):
            continue
        kind = _KINDS.get(units[index])
        if kind is not None:
            found.append((index, JointSpec(name, kind, units[index])))
    return found


def _same_columns(
    channel: Channel, prefix: str, joints: list[tuple[int, JointSpec]]
) -> tuple[str | None, tuple[int, ...]]:
    """Return the channel's name and its ``<prefix><joint>`` columns, if all exist."""
    wanted = [f"{prefix}{joint.name}" for _, joint in joints]
    if not all(column in channel.columns for column in wanted):
        return None, ()
    return channel.name, tuple(channel.columns.index(column) for column in wanted)


def _base_columns(channel: Channel) -> list[int] | None:
    """Return the columns of a free joint recorded first, when there is one."""
    columns = channel.columns
    first = next((c for c in columns if c.startswith(_POSITION)), None)
    if first is None or not first.endswith(".x"):
        return None
    stem = first.removesuffix(".x")
    wanted = [f"{stem}.{part}" for part in _FREE]
    if not all(column in columns for column in wanted):
        return None
    return [columns.index(column) for column in wanted]


def recorded_joints(
    channels: dict[str, Channel], units: Mapping[str, tuple[str, ...]]
) -> JointSet | None:
    """Add the ``q`` (and ``base_pose``) channel of the recorded joints; return them.

    ``units`` gives each channel's unit per column. Returns ``None`` (adding
    nothing) when no channel records a hinge or slide as ``qpos.<name>``, or
    a channel is named ``q`` already.
    """
    if JOINT_CHANNEL in channels:
        return None
    for channel in list(channels.values()):
        joints = _joint_columns(channel, units.get(channel.name, ()))
        if joints:
            return _joint_set(channels, channel, joints)
    return None


def _joint_set(
    channels: dict[str, Channel],
    channel: Channel,
    joints: list[tuple[int, JointSpec]],
) -> JointSet:
    kinds = {joint.unit for _, joint in joints}
    channels[JOINT_CHANNEL] = picked_channel(
        channel,
        JOINT_CHANNEL,
        [index for index, _ in joints],
        columns=tuple(joint.name for _, joint in joints),
        unit=kinds.pop() if len(kinds) == 1 else "",
        label="joint position",
    )
    velocities, velocity_columns = _same_columns(channel, "qvel.", joints)
    efforts, effort_columns = _same_columns(channel, "force.", joints)
    base = _base_columns(channel)
    if base is not None and BASE_POSE_CHANNEL not in channels:
        channels[BASE_POSE_CHANNEL] = picked_channel(
            channel,
            BASE_POSE_CHANNEL,
            base,
            columns=_FREE,
            label="floating base pose",
        )
    return JointSet(
        joints=tuple(joint for _, joint in joints),
        positions=JOINT_CHANNEL,
        position_columns=tuple(range(len(joints))),
        velocities=velocities,
        velocity_columns=velocity_columns,
        efforts=efforts,
        effort_columns=effort_columns,
        base_pose=BASE_POSE_CHANNEL if base is not None else None,
    )


def converted_joints(
    channels: Mapping[str, Channel], metadata: Mapping[str, Any]
) -> JointSet | None:
    """Return the joints a converted file names in its metadata, if usable.

    ``convert`` writes the source's joint set as ``joints`` in the metadata
    (:meth:`~fsr_core.joint_set.JointSet.plain`). It is used when it reads
    channels the file holds, within their columns; otherwise (a file edited
    or written by hand) ``None``: the file shows the joints its columns name,
    if any.
    """
    plain = metadata.get("joints")
    if plain is None:
        return None
    try:
        joints = JointSet.from_plain(plain)
    except SchemaError:
        return None
    reads = (
        (joints.positions, joints.position_columns),
        (joints.velocities, joints.velocity_columns),
        (joints.efforts, joints.effort_columns),
        (joints.base_pose, tuple(range(len(_FREE)))),
    )
    for name, columns in reads:
        if name is None:
            continue
        channel = channels.get(name)
        if channel is None:
            return None
        if any(not 0 <= column < channel.width for column in columns):
            return None
    if joints.mujoco_state is not None and joints.mujoco_state not in channels:
        # The joints still pose the robot; only its other bodies rest.
        return dataclasses.replace(joints, mujoco_state=None)
    return joints
