"""The joints of an MCAP file: its ``sensor_msgs/JointState`` topic.

The joints are read from the topic's channel columns by
:mod:`fsr_core.sources.toolkit.joint_state_columns` (``position.<name>``,
with velocities and efforts); a file with several joint-state topics uses
``/joint_states``, else the one with the most joints. Nothing here reads a
message: the columns of a channel read later are those of its first message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fsr_core.joint_set import JointSet
from fsr_core.recording import Channel
from fsr_core.sources.mcap.container import TopicInfo
from fsr_core.sources.toolkit.joint_state_columns import (
    JOINT_STATE_SCHEMAS,
    preferred_joint_set,
)

__all__ = ["JOINT_STATE_SCHEMAS", "joint_states"]


def joint_states(
    topics: Iterable[TopicInfo], channels: Mapping[str, Channel]
) -> JointSet | None:
    """Return the joints of the file's joint-state topic (``None``: it has none)."""
    return preferred_joint_set(
        channels[info.topic]
        for info in topics
        if info.schema_name in JOINT_STATE_SCHEMAS and info.topic in channels
    )
