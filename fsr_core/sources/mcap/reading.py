"""Reading an MCAP file's blocks and decoding what the model shows at open.

:class:`Reading` holds one :class:`~fsr_core.sources.mcap.topics.Topic` per
channel and what reading gathered: the transform tree, the blocks that could
not be read and the messages counted. :meth:`Reading.read_everything` is the
one pass over every block that decodes every topic (a file without an index,
a time base other than log time, ``inspect --verify``); the file opened from
its indexes reads only some blocks and hands their messages to
:meth:`Reading.take` (:mod:`fsr_core.sources.mcap.indexed_reading`).

With the ``header`` time base a message sits at its own stamp (``header.stamp``,
or a Foxglove ``timestamp``; each transform at its own); a message without one,
or with the unset stamp 0, stays at its log time and its topic counts it
(:attr:`Topic.at_log_time`) for the report to say so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from fsr_core.errors import FsrError, SourceUnavailableError
from fsr_core.sources.mcap.block_reading import read_blocks
from fsr_core.sources.mcap.container import Block, BlockMessage, McapContents
from fsr_core.sources.mcap.decoding import PlainTree, decoder_for
from fsr_core.sources.mcap.known_types import (
    TopicKind,
    calibration_of,
    frame_id_of,
    stamp_ns,
    transforms_of,
)
from fsr_core.sources.mcap.numeric_leaves import NumericTable
from fsr_core.sources.mcap.topics import IMAGE_KINDS, Topic, kind_of
from fsr_core.sources.mcap.transform_tree import TransformTree

__all__ = ["Reading", "ordinals"]

_STATIC_TOPICS: Final = ("/tf_static",)


class Reading:
    """The topics of one file, and what reading its blocks collected."""

    def __init__(self, contents: McapContents, base: str) -> None:
        self.contents = contents
        self.base = base
        self.topics: dict[int, Topic] = {}
        for channel_id, info in contents.topics.items():
            kind = kind_of(info)
            topic = Topic(info, kind, decoder_for(info))
            if kind is TopicKind.NUMERIC:
                topic.table = NumericTable(info.topic)
            self.topics[channel_id] = topic
        self.tree = TransformTree()
        self.skipped: list[tuple[Block, str]] = []
        self.counts: dict[int, int] = {}
        self.every_block_read = False

    def read_everything(self) -> None:
        """Read every block and decode every message of every topic."""
        plan = [
            (index, block, None) for index, block in enumerate(self.contents.blocks)
        ]
        for index, messages in self.read(plan):
            for ordinal, message in ordinals(messages):
                self.take(index, ordinal, message)
        self.every_block_read = True

    def read(
        self, plan: Iterable[tuple[int, Block, frozenset[int] | None]]
    ) -> Iterable[tuple[int, list[BlockMessage]]]:
        """Yield ``(block number, messages)`` of the planned blocks that read.

        A block that cannot be read is noted in :attr:`skipped`; a missing
        package (a compression's) stops the reading.
        """
        for index, block, found in read_blocks(self.contents.path, plan):
            if isinstance(found, SourceUnavailableError):
                raise found
            if isinstance(found, FsrError):
                self.skipped.append((block, found.reason))
                continue
            yield index, found

    def _time(self, topic: Topic, message: BlockMessage, tree: PlainTree | None) -> int:
        """Return the time that places ``message`` on the time base.

        With header stamps, a transform message is placed transform by
        transform (:meth:`_value`); any other message without a stamp stays
        at its log time, counted by its topic.
        """
        if self.base == "publish":
            return message.publish_time_ns
        if self.base == "header" and topic.kind is not TopicKind.TRANSFORMS:
            stamp = _set_stamp(stamp_ns(tree))
            if stamp is not None:
                return stamp
            topic.at_log_time += 1
        return message.log_time_ns

    def take(self, block: int, ordinal: int, message: BlockMessage) -> None:
        """Decode one message into its topic (images: only where it lies)."""
        topic = self.topics.get(message.channel_id)
        if topic is None:
            return
        self.counts[message.channel_id] = self.counts.get(message.channel_id, 0) + 1
        decode = topic.decoder.decode
        if decode is None:
            return
        image = topic.kind in IMAGE_KINDS
        needs_tree = not image or self.base == "header" or not topic.refs
        tree: PlainTree | None = None
        if needs_tree:
            try:
                tree = decode(message.data)
            except Exception as exc:  # noqa: BLE001 - a library's decode error
                topic.fail(f"a message does not decode: {str(exc)[:160]}")
                return
        time_ns = self._time(topic, message, tree)
        if image:
            if not topic.refs and tree is not None:
                topic.frame_id = frame_id_of(tree)
            topic.refs.append((block, ordinal))
            topic.times_ns.append(time_ns)
            return
        try:
            self._value(topic, time_ns, tree)
        except (FsrError, ValueError, TypeError) as exc:
            topic.fail(str(exc)[:200])

    def _value(self, topic: Topic, time_ns: int, tree: PlainTree) -> None:
        if topic.kind is TopicKind.CALIBRATION:
            profile = calibration_of(tree)
            topic.calibrations.append((time_ns, profile, frame_id_of(tree)))
            topic.times_ns.append(time_ns)
        elif topic.kind is TopicKind.TRANSFORMS:
            static = topic.info.topic in _STATIC_TOPICS
            header = self.base == "header"
            placed: list[int] = []
            unstamped = False
            for stamped in transforms_of(tree):
                stamp = _set_stamp(stamped.stamp_ns) if header else None
                unstamped |= header and stamp is None
                when = time_ns if stamp is None else stamp
                self.tree.add(when, stamped.value, static=static)
                placed.append(when)
            if unstamped:
                topic.at_log_time += 1  # a transform of it had no stamp of its own
            # The topic spans its transforms' times, so the axis starts early enough.
            topic.times_ns.append(min(placed, default=time_ns))
        elif topic.table is not None:
            topic.table.add(time_ns, tree)
            topic.times_ns.append(time_ns)


def _set_stamp(stamp: int | None) -> int | None:
    """Return a stamp that was set (``None`` for none, 0 or before 1970)."""
    return stamp if stamp is not None and stamp > 0 else None


def ordinals(messages: list[BlockMessage]) -> Iterable[tuple[int, BlockMessage]]:
    """Yield each message with its ordinal among its channel's in the block."""
    seen: dict[int, int] = {}
    for message in messages:
        ordinal = seen.get(message.channel_id, 0)
        seen[message.channel_id] = ordinal + 1
        yield ordinal, message
