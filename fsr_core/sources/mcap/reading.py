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

from collections.abc import Callable, Iterable
from typing import Final

import numpy as np

from fsr_core.errors import FsrError, SourceUnavailableError
from fsr_core.sources.mcap.block_reading import read_blocks
from fsr_core.sources.mcap.cdr_columns import CdrColumns
from fsr_core.sources.mcap.channel_chunks import ChunkMessages
from fsr_core.sources.mcap.container import Block, BlockMessage, McapContents
from fsr_core.sources.mcap.decoding import PlainTree, decoder_for
from fsr_core.sources.mcap.topics import IMAGE_KINDS, Topic, kind_of
from fsr_core.sources.mcap.transform_batches import TransformBatches
from fsr_core.sources.toolkit.message_kinds import (
    TopicKind,
    calibration_of,
    frame_id_of,
    stamp_ns,
    transforms_of,
)
from fsr_core.sources.toolkit.numeric_leaves import NumericTable
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["TIME_LIMIT_NS", "Reading", "ordinals"]

_STATIC_TOPICS: Final = ("/tf_static",)
TIME_LIMIT_NS: Final = 1 << 63
"""Times from here on fit no int64 (MCAP times are uint64): such a message fails."""


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
        self._batches: dict[int, TransformBatches | None] = {}

    def read_everything(self) -> None:
        """Read every block and decode every message of every topic."""
        plan = [
            (index, block, None) for index, block in enumerate(self.contents.blocks)
        ]
        for index, messages in self.read(plan):
            self.take_messages(index, ordinals(messages))
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
                self.skip(block, found.reason)
                continue
            yield index, found

    def skip(self, block: Block, reason: str) -> None:
        """Note a block that could not be read (once, however often it is tried)."""
        if all(known.offset != block.offset for known, _ in self.skipped):
            self.skipped.append((block, reason))

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

    def take_messages(
        self, block: int, messages: Iterable[tuple[int, BlockMessage]]
    ) -> None:
        """Decode a block's messages (with their ordinals) into their topics.

        The same as :meth:`take` of each in turn; the messages of a ROS 2
        transform topic are read by layout, many at once
        (:mod:`fsr_core.sources.mcap.transform_batches`).
        """
        held: list[BlockMessage] = []
        for ordinal, message in messages:
            channel_id = message.channel_id
            if self._transform_batches(channel_id) is not None:
                if held and held[0].channel_id != channel_id:
                    self._take_transforms(block, held)
                    held = []
                held.append(message)
                continue
            topic = self.topics.get(channel_id)
            if held and topic is not None and topic.kind is TopicKind.TRANSFORMS:
                self._take_transforms(block, held)  # transforms stay in file order
                held = []
            self.take(block, ordinal, message)
        if held:
            self._take_transforms(block, held)

    def _transform_batches(self, channel_id: int) -> TransformBatches | None:
        if channel_id in self._batches:
            return self._batches[channel_id]
        topic = self.topics.get(channel_id)
        found = None
        if (
            topic is not None
            and topic.kind is TopicKind.TRANSFORMS
            and self.base in ("log", "publish")
            and topic.decoder.decode is not None
        ):
            columns = CdrColumns.for_topic(topic.info, topic.decoder.decode)
            if columns is not None:
                found = TransformBatches(columns, topic.decoder.decode)
        self._batches[channel_id] = found
        return found

    def _take_transforms(self, block: int, messages: list[BlockMessage]) -> None:
        """Add one transform topic's messages, read by layout where they can be."""
        lengths = np.fromiter((len(m.data) for m in messages), np.int64, len(messages))
        blob = np.frombuffer(b"".join(m.data for m in messages), dtype=np.uint8)
        publish = self.base == "publish"
        times = [m.publish_time_ns if publish else m.log_time_ns for m in messages]
        self._transform_rows(
            block,
            messages[0].channel_id,
            (blob, np.cumsum(lengths) - lengths, lengths, times),
            messages.__getitem__,
        )

    def reads_by_chunk(self, channel_id: int) -> bool:
        """Whether :meth:`take_chunk` can take this channel's messages."""
        return self.base == "log" and self._transform_batches(channel_id) is not None

    def take_chunk(self, block: int, channel_id: int, found: ChunkMessages) -> None:
        """Add one block's messages of a transform channel, as :meth:`take` would.

        For a channel :meth:`reads_by_chunk` accepts: its messages come back
        to back (:mod:`fsr_core.sources.mcap.channel_chunks`), not one by one.
        """
        times = found.times_ns.tolist()

        def message(position: int) -> BlockMessage:
            return BlockMessage(
                channel_id=channel_id,
                log_time_ns=times[position],
                publish_time_ns=times[position],  # unused: the base is log time
                sequence=0,
                data=found.data(position),
            )

        rows = (found.blob, found.starts, found.lengths, times)
        self._transform_rows(block, channel_id, rows, message)

    def _transform_rows(
        self,
        block: int,
        channel_id: int,
        rows: tuple[np.ndarray, np.ndarray, np.ndarray, list[int]],
        message: Callable[[int], BlockMessage],
    ) -> None:
        topic = self.topics[channel_id]
        batches = self._batches[channel_id]
        assert batches is not None
        blob, starts, lengths, times = rows
        static = topic.info.topic in _STATIC_TOPICS
        for positions, poses in batches.read(blob, starts, lengths):
            picked = positions.tolist()
            if poses is None:
                for position in picked:
                    self.take(block, 0, message(position))
                continue
            self.counts[channel_id] = self.counts.get(channel_id, 0) + len(picked)
            when = [times[position] for position in picked]
            for pose in poses:
                self.tree.add_many(
                    when,
                    pose.link.parent,
                    pose.link.child,
                    pose.translations,
                    pose.rotations_xyzw,
                    static=static,
                )
            topic.times_ns.extend(when)

    def take(self, block: int, ordinal: int, message: BlockMessage) -> None:
        """Decode one message into its topic (images: only where it lies)."""
        topic = self.topics.get(message.channel_id)
        if topic is None:
            return
        self.counts[message.channel_id] = self.counts.get(message.channel_id, 0) + 1
        decode = topic.decoder.decode
        if decode is None:
            return
        if topic.kind is TopicKind.ROBOT_DESCRIPTION:
            # Only where it lies: the one message drawn is read afterwards.
            publish = self.base == "publish"
            topic.refs.append((block, ordinal))
            topic.times_ns.append(
                message.publish_time_ns if publish else message.log_time_ns
            )
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
        if time_ns >= TIME_LIMIT_NS:
            # Past 2262: a time no recording has, and no int64 holds.
            topic.fail(f"a message's time ({time_ns} ns) is past 2**63 ns")
            return
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
