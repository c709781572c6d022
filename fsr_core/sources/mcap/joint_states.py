"""The joints of an MCAP file: its ``sensor_msgs/JointState`` topic.

A ``JointState`` message lists joint ``name``s beside its ``position``,
``velocity`` and ``effort`` arrays; its channel's columns are named by them
(``position.joint_1``, :mod:`fsr_core.sources.mcap.numeric_leaves`). The
joints are the ``position.<name>`` columns, in order, with the velocities
and efforts of the same names when the message fills them for every joint.
ROS gives radians for revolute joints and metres for prismatic ones, and the
message does not say which a joint is: every joint is taken as revolute.

A file with several joint-state topics uses ``/joint_states`` (the name
``robot_state_publisher`` reads), else the one with the most joints.
Nothing here reads a message: the columns of a channel read later are those
of its first message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from fsr_core.joint_set import JointSet, JointSpec
from fsr_core.recording import Channel
from fsr_core.sources.mcap.container import TopicInfo

__all__ = ["JOINT_STATE_SCHEMAS", "joint_states"]

JOINT_STATE_SCHEMAS: Final = frozenset(
    {"sensor_msgs/msg/JointState", "sensor_msgs/JointState"}
)
_PREFERRED: Final = "/joint_states"


def _columns(
    channel: Channel, prefix: str, names: list[str]
) -> tuple[str | None, tuple[int, ...]]:
    columns = channel.columns
    wanted = [f"{prefix}.{name}" for name in names]
    if not all(column in columns for column in wanted):
        return None, ()
    return channel.name, tuple(columns.index(column) for column in wanted)


def _joint_set(channel: Channel) -> JointSet | None:
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


def joint_states(
    topics: Iterable[TopicInfo], channels: Mapping[str, Channel]
) -> JointSet | None:
    """Return the joints of the file's joint-state topic (``None``: it has none)."""
    found = [
        joint_set
        for info in topics
        if info.schema_name in JOINT_STATE_SCHEMAS and info.topic in channels
        for joint_set in [_joint_set(channels[info.topic])]
        if joint_set is not None
    ]
    preferred = [joints for joints in found if joints.positions == _PREFERRED]
    if preferred:
        return preferred[0]
    return max(found, key=lambda joints: len(joints.joints), default=None)
