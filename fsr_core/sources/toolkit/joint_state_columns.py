"""The joints of a ``sensor_msgs/JointState`` channel, from its column names.

A ``JointState`` message lists joint ``name``s beside its ``position``,
``velocity`` and ``effort`` arrays; its channel's columns are named by them
(``position.joint_1``, :mod:`fsr_core.sources.toolkit.numeric_leaves`). The
joints are the ``position.<name>`` columns, in order, with the velocities
and efforts of the same names when the message fills them for every joint.
ROS gives radians for revolute joints and metres for prismatic ones, and the
message does not say which a joint is: every joint is taken as revolute.

Of several joint-state channels, ``/joint_states`` (the topic
``robot_state_publisher`` reads) is preferred, else the one with the most
joints. Nothing here reads a message: a channel read later has the columns
of its first message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from fsr_core.joint_set import JointSet, JointSpec
from fsr_core.recording import Channel

__all__ = ["JOINT_STATE_SCHEMAS", "joint_set_of", "preferred_joint_set"]

JOINT_STATE_SCHEMAS: Final = frozenset(
    {"sensor_msgs/msg/JointState", "sensor_msgs/JointState"}
)
PREFERRED_TOPIC: Final = "/joint_states"


def _columns(
    channel: Channel, prefix: str, names: list[str]
) -> tuple[str | None, tuple[int, ...]]:
    columns = channel.columns
    wanted = [f"{prefix}.{name}" for name in names]
    if not all(column in columns for column in wanted):
        return None, ()
    return channel.name, tuple(columns.index(column) for column in wanted)


def joint_set_of(channel: Channel) -> JointSet | None:
    """Return the joints of one joint-state channel (``None``: no positions)."""
    positions = [
        (index, column.removeprefix("position."))
        for index, column in enumerate(channel.columns)
        if column.startswith("position.")
    ]
    if not positions:
        return None
    names = [name for _, name in positions]
    velocities, velocity_columns = _columns(channel, "velocity", names)
    efforts, effort_columns = _columns(channel, "effort", names)
    return JointSet(
        joints=tuple(JointSpec(name) for name in names),
        positions=channel.name,
        position_columns=tuple(index for index, _ in positions),
        velocities=velocities,
        velocity_columns=velocity_columns,
        efforts=efforts,
        effort_columns=effort_columns,
    )


def preferred_joint_set(channels: Iterable[Channel]) -> JointSet | None:
    """Return the joints of the preferred joint-state channel of ``channels``."""
    found = [
        joint_set
        for channel in channels
        for joint_set in [joint_set_of(channel)]
        if joint_set is not None
    ]
    preferred = [joints for joints in found if joints.positions == PREFERRED_TOPIC]
    if preferred:
        return preferred[0]
    return max(found, key=lambda joints: len(joints.joints), default=None)
