"""Open an MCAP file from its indexes, reading only what the model needs at once.

A file whose summary indexes every chunk, with the channels each holds and
their message indexes, and counts every channel's messages (statistics), is
opened without reading its data section through:

- calibration and transform topics are decoded at open: the cameras'
  calibrations, the scene of frames and the ``/tf:FRAME`` channels need them;
- each numeric topic's first message is decoded for its columns, its first
  and last time come from the message indexes, and its channel reads the rest
  when first shown (:class:`~fsr_core.sources.mcap.topic_loader.TopicLoader`);
- each camera's first and last time come from the message indexes, and its
  frame times from them too when first asked for; its first image is decoded
  (for its frame) only when a calibration topic is there to match it against;
- a robot description topic's messages are found in its message indexes, and
  the one drawn is read afterwards
  (:mod:`fsr_core.sources.mcap.robot_description`).

Times are log times: a publish time or a header stamp needs every message,
so those time bases read the whole file (:meth:`Reading.read_everything`).
"""

from __future__ import annotations

from collections.abc import Iterator

from fsr_core.errors import FsrError, SourceUnavailableError
from fsr_core.format.safe_open import open_source
from fsr_core.sources.mcap.channel_chunks import channel_chunks
from fsr_core.sources.mcap.container import Block, BlockMessage, McapContents
from fsr_core.sources.mcap.message_index import channel_span
from fsr_core.sources.mcap.reading import Reading, ordinals
from fsr_core.sources.mcap.topics import IMAGE_KINDS, Topic
from fsr_core.sources.toolkit.message_kinds import TopicKind, frame_id_of
from fsr_core.sources.toolkit.numeric_leaves import numeric_leaves

__all__ = ["can_read_from_indexes", "read_from_indexes"]

_AT_OPEN = (TopicKind.CALIBRATION, TopicKind.TRANSFORMS)
_LATER = (TopicKind.NUMERIC, TopicKind.ROBOT_DESCRIPTION, *IMAGE_KINDS)


def can_read_from_indexes(contents: McapContents, base: str) -> bool:
    """Whether the file's indexes tell enough to open it without a full read."""
    return (
        base == "log"
        and contents.chunk_indexed
        and contents.counted
        and not contents.scanned
        and all(
            block.chunk and block.channel_ids is not None and block.message_indexes
            for block in contents.blocks
        )
    )


def read_from_indexes(reading: Reading) -> None:
    """Fill ``reading`` from the indexes and the few blocks needed at open.

    Raises
    ------
    FsrError
        A message index cannot be read or disagrees with its chunk index
        (the caller reads the whole file instead), the file cannot be
        opened, or a package it needs is missing.
    """
    later = {
        channel_id: topic
        for channel_id, topic in reading.topics.items()
        if topic.decoder.decode is not None and topic.kind in _LATER
    }
    for topic in later.values():
        topic.held_in = []
    # One pass over the blocks (thousands) for every topic read later.
    for number, block in enumerate(reading.contents.blocks):
        for channel_id in block.channel_ids or ():
            found = later.get(channel_id)
            if found is not None:
                found.held_in.append((number, block))
    _index_spans(reading)
    _read_at_open(reading)
    # A chunk found unreadable at open is not read again, nor its frames listed.
    skipped = {block.offset for block, _ in reading.skipped}
    for channel_id, topic in reading.topics.items():
        if skipped:
            topic.held_in = [
                (number, block)
                for number, block in topic.held_in
                if block.offset not in skipped
            ]
        reading.counts[channel_id] = topic.info.count  # as the statistics say
        if topic.kind is TopicKind.NUMERIC and topic.first_columns is None:
            topic.held_in, topic.span_ns = [], None


def _index_spans(reading: Reading) -> None:
    """Find the first and last time of each topic read later, in its indexes."""
    path = reading.contents.path
    source = open_source(path)
    try:
        for channel_id, topic in reading.topics.items():
            if topic.held_in:
                chunks = [block for _, block in topic.held_in]
                topic.span_ns = channel_span(source, path, chunks, channel_id)
    finally:
        source.close()


def _read_at_open(reading: Reading) -> None:
    """Decode calibrations and transforms, and the first message of the others."""
    topics = reading.topics
    calibrated = any(t.kind is TopicKind.CALIBRATION for t in topics.values())
    at_open = {
        channel_id
        for channel_id, topic in topics.items()
        if topic.kind in _AT_OPEN and topic.decoder.decode is not None
    }
    by_chunk = sorted(c for c in at_open if reading.reads_by_chunk(c))
    at_open -= set(by_chunk)
    for channel_id in by_chunk:
        _read_by_chunk(reading, channel_id)
    probing = {
        channel_id
        for channel_id, topic in topics.items()
        if topic.decoder.decode is not None
        and (
            topic.kind is TopicKind.NUMERIC
            or (calibrated and topic.kind in IMAGE_KINDS and bool(topic.held_in))
        )
    }

    def plan() -> Iterator[tuple[int, Block, frozenset[int] | None]]:
        for number, block in enumerate(reading.contents.blocks):
            if not at_open and not probing:
                return
            wanted = (at_open | probing) & (block.channel_ids or frozenset())
            if wanted:
                yield number, block, frozenset(wanted)

    for number, messages in reading.read(plan()):
        taken = []
        for ordinal, message in ordinals(messages):
            channel_id = message.channel_id
            if channel_id in at_open:
                taken.append((ordinal, message))
            elif channel_id in probing and _probe(topics[channel_id], message):
                probing.discard(channel_id)
        reading.take_messages(number, taken)


def _read_by_chunk(reading: Reading, channel_id: int) -> None:
    """Read a transform channel's messages chunk by chunk, back to back."""
    blocks = [
        (number, block)
        for number, block in enumerate(reading.contents.blocks)
        if channel_id in (block.channel_ids or ())
    ]
    for number, block, found in channel_chunks(
        reading.contents.path, blocks, channel_id
    ):
        if isinstance(found, SourceUnavailableError):
            raise found
        if isinstance(found, FsrError):
            reading.skip(block, found.reason)
            continue
        reading.take_chunk(number, channel_id, found)


def _probe(topic: Topic, message: BlockMessage) -> bool:
    """Learn a topic's columns (or a camera's frame) from one message, if it decodes."""
    decode = topic.decoder.decode
    assert decode is not None
    try:
        tree = decode(message.data)
    except Exception:  # noqa: BLE001 - a library's decode error; try the next
        return False
    if topic.kind is TopicKind.NUMERIC:
        topic.first_columns = tuple(numeric_leaves(tree))
    else:
        topic.frame_id = frame_id_of(tree)
    return True
