"""The robot description an MCAP file carries: ``/robot_description``.

``robot_state_publisher`` publishes the URDF it was started with on
``/robot_description`` (``std_msgs/String``, latched), so a bag recorded
beside it holds the robot's description as one small message, usually
logged at the start. The viewer draws that robot, posed by the file's joint
states, when the user names none (:func:`fsr_core.robots.with_carried_robot`).

A topic is a description when its name ends in ``robot_description`` (a
namespaced ``/arm/robot_description`` too) and its schema is a
``std_msgs/String`` in any encoding the source decodes (ROS 2 CDR, ROS 1,
JSON, protobuf): its ``data`` is the URDF text. No topic is made a channel.

Which message: the last one logged at or before the first joint state (the
description in force when the joints start moving), else the first one (a
recorder that subscribed late gets the latched message after a few joint
states). A file with several description topics uses ``/robot_description``,
else the first; the others are named in a note.

Only that message is read: its place comes from the message indexes of a
file opened from them (:mod:`fsr_core.sources.mcap.indexed_reading`), or
from the one pass over the blocks otherwise, and its size is checked against
the description budget (:data:`fsr_core.robots.urdf.MAX_DESCRIPTION_BYTES`)
before its bytes are copied or decoded. A description that cannot be used
(over the budget, unreadable, not text) is a note of the report, never a
failure to open.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from fsr_core.errors import CorruptRecordError, FsrError
from fsr_core.format.safe_open import open_source
from fsr_core.recording import RobotDescription
from fsr_core.robots.urdf import MAX_DESCRIPTION_BYTES
from fsr_core.sources.mcap.block_reading import chunk_record, each_block
from fsr_core.sources.mcap.container import (
    _PREFIX,
    _RECORD_PREFIX,
    Block,
    _chunk_records,
    _File,
)
from fsr_core.sources.mcap.joint_states import JOINT_STATE_SCHEMAS
from fsr_core.sources.mcap.message_index import indexed_messages
from fsr_core.sources.mcap.reading import Reading
from fsr_core.sources.mcap.topics import Topic
from fsr_core.sources.toolkit.message_kinds import TopicKind

__all__ = ["PREFERRED_TOPIC", "carried_description"]

PREFERRED_TOPIC: Final = "/robot_description"
_MESSAGE_FIELDS: Final = 22
"""A message record's fields before its data: channel, sequence, two times."""
_PREFERRED_JOINTS: Final = "/joint_states"


class _TooBigError(Exception):
    def __init__(self, size_bytes: int) -> None:
        super().__init__(size_bytes)
        self.size_bytes = size_bytes


def _message_places(reading: Reading, topic: Topic) -> tuple[np.ndarray, ...]:
    """Return the times, block numbers and ordinals of the topic's messages.

    Raises
    ------
    FsrError
        A message index cannot be read.
    """
    if topic.refs:  # read at open, one pass over the blocks
        pairs = np.asarray(topic.refs, dtype=np.int64).reshape(-1, 2)
        return np.asarray(topic.times_ns, dtype=np.int64), pairs[:, 0], pairs[:, 1]
    if not topic.held_in:
        return (np.zeros(0, dtype=np.int64),) * 3
    path = reading.contents.path
    source = open_source(path)
    try:
        found = indexed_messages(source, path, topic.held_in, topic.info.channel_id)
    finally:
        source.close()
    return found.times_ns, found.blocks, found.ordinals


def _joints_start_ns(reading: Reading) -> int | None:
    """Return when the joint states start (``/joint_states`` first, else any)."""
    starts = {
        topic.info.topic: topic.first_ns
        for topic in reading.topics.values()
        if topic.info.schema_name in JOINT_STATE_SCHEMAS and topic.first_ns is not None
    }
    if _PREFERRED_JOINTS in starts:
        return starts[_PREFERRED_JOINTS]
    return min((start for start in starts.values() if start is not None), default=None)


def _chosen(times_ns: np.ndarray, joints_start_ns: int | None) -> int:
    """Return the index of the message in force when the joints start."""
    order = np.argsort(times_ns, kind="stable")
    if joints_start_ns is None:
        return int(order[-1])
    before = order[times_ns[order] <= joints_start_ns]
    return int(before[-1]) if before.size else int(order[0])


def _missing(file: _File, block: Block) -> CorruptRecordError:
    return CorruptRecordError(
        "the block holds fewer description messages than its index says",
        path=file.path,
        offset=block.offset,
    )


def _in_chunk(
    file: _File, records: Any, block: Block, channel: int, ordinal: int
) -> bytes:
    chunk = chunk_record(file, block, records)
    seen = 0
    for opcode, body in _chunk_records(file, block.offset, chunk, verify=True):
        if opcode != 0x05 or len(body) < _MESSAGE_FIELDS:
            continue
        if body[0] | body[1] << 8 != channel:
            continue
        if seen == ordinal:
            if len(body) - _MESSAGE_FIELDS > MAX_DESCRIPTION_BYTES:
                raise _TooBigError(len(body) - _MESSAGE_FIELDS)
            return bytes(body[_MESSAGE_FIELDS:])
        seen += 1
    raise _missing(file, block)


def _loose(
    file: _File, records: Any, block: Block, channel: int, ordinal: int
) -> bytes:
    offset, end, seen = block.offset, block.offset + block.length, 0
    while offset < end:
        opcode, length = _PREFIX.unpack(file.read(offset, _RECORD_PREFIX, "a record"))
        if opcode == 0x05 and length >= _MESSAGE_FIELDS:
            head = file.read(offset + _RECORD_PREFIX, 2, "a message")
            if int.from_bytes(head, "little") == channel:
                if seen == ordinal:
                    if length - _MESSAGE_FIELDS > MAX_DESCRIPTION_BYTES:
                        raise _TooBigError(length - _MESSAGE_FIELDS)
                    _, _, record = file.record_at(offset, records, "a message")
                    return bytes(record.data)
                seen += 1
        offset += _RECORD_PREFIX + length
    raise _missing(file, block)


def _message_data(reading: Reading, topic: Topic, number: int, ordinal: int) -> bytes:
    """Return the chosen message's data, its size checked before it is copied.

    Raises
    ------
    FsrError
        Its block cannot be read.
    _TooBigError
        The message is over the description budget.
    """
    channel = topic.info.channel_id

    def read(file: _File, records: Any, block: Block, ordinal: int) -> bytes:
        found = _in_chunk if block.chunk else _loose
        return found(file, records, block, channel, ordinal)

    plan = [(number, reading.contents.blocks[number], ordinal)]
    for _, _, found in each_block(reading.contents.path, plan, read):
        if isinstance(found, FsrError):
            raise found
        return found
    raise AssertionError("one block planned, none read")  # pragma: no cover


def _text_of(topic: Topic, data: bytes) -> bytes:
    """Return the ``data`` text of a decoded ``std_msgs/String``.

    Raises
    ------
    ValueError
        It does not decode, or its ``data`` is not text.
    """
    decode = topic.decoder.decode
    if decode is None:
        raise ValueError(topic.decoder.problem or "no decoder")
    try:
        tree = decode(data)
    except Exception as exc:  # noqa: BLE001 - a library's decode error
        raise ValueError(f"it does not decode: {str(exc)[:160]}") from None
    text = tree.get("data") if isinstance(tree, dict) else None
    if isinstance(text, str):
        return text.encode("utf-8")
    raise ValueError("its data is not text")


def _description_topics(reading: Reading) -> list[Topic]:
    found = [
        topic
        for topic in reading.topics.values()
        if topic.kind is TopicKind.ROBOT_DESCRIPTION
    ]
    found.sort(key=lambda topic: topic.info.topic != PREFERRED_TOPIC)
    return found


def carried_description(reading: Reading) -> tuple[RobotDescription | None, list[str]]:
    """Return the robot description the file carries (``None``: none) and notes.

    Reads the one chosen message (a block, once the file's topics are read
    or indexed); never raises for the description itself: what is wrong
    with it is a note.
    """
    topics = _description_topics(reading)
    if not topics:
        return None, []
    topic = topics[0]
    name = topic.info.topic
    notes = []
    if len(topics) > 1:
        others = ", ".join(other.info.topic[:80] for other in topics[1:5])
        notes.append(f"robot description topics not drawn (one robot is): {others}")
    path = reading.contents.path
    try:
        times_ns, blocks, ordinals = _message_places(reading, topic)
        if not times_ns.size:
            return None, [*notes, f"robot description on {name[:80]}: no message read"]
        index = _chosen(times_ns, _joints_start_ns(reading))
        data = _message_data(reading, topic, int(blocks[index]), int(ordinals[index]))
        text = _text_of(topic, data)
    except _TooBigError as big:
        problem = (
            f"is {big.size_bytes:,} bytes, over the {MAX_DESCRIPTION_BYTES:,} "
            "budget; not read"
        )
    except (FsrError, ValueError) as exc:
        problem = f"cannot be read ({getattr(exc, 'reason', None) or exc})"
    else:
        where = f"{path} {name}"
        return RobotDescription.of_text(text, where, "urdf"), notes
    return None, [*notes, f"robot description on {name[:80]} {problem}"]
