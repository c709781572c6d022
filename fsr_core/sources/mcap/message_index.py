"""When and where a topic's messages are, from an MCAP file's message indexes.

After each chunk a writer stores one message index record per channel in it:
the log time and the offset inside the chunk of each of that channel's
messages. Reading them finds a camera's frames, or the first and last time
of a topic, without decompressing a chunk: a few hundred bytes a chunk.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NamedTuple

import numpy as np

from fsr_core.errors import CorruptRecordError
from fsr_core.format.safe_open import ByteSource
from fsr_core.sources.mcap.container import Block

__all__ = ["IndexedMessages", "channel_entries", "channel_span", "indexed_messages"]

_RECORD_HEAD: Final = struct.Struct("<BQHI")
"""Opcode, record length, channel id, bytes of entries."""
_ENTRY_BYTES: Final = 16
_FIRST_READ: Final = 64 << 10
"""Bytes read at once; a longer index (4,000 messages and more) takes a second read."""
_START: Final = operator.attrgetter("start_ns")
_END: Final = operator.attrgetter("end_ns")


def _record_place(block: Block, channel_id: int) -> tuple[int, int]:
    """Return ``(offset, length)`` of the channel's message index after ``block``."""
    places = block.message_indexes
    for position, (channel, offset) in enumerate(places):
        if channel == channel_id:
            end = (
                places[position + 1][1]
                if position + 1 < len(places)
                else places[0][1] + block.message_index_length
            )
            return offset, end - offset
    raise KeyError(channel_id)


def channel_entries(
    source: ByteSource,
    path: Path,
    block: Block,
    channel_id: int,
    *,
    read: tuple[int, bytes | memoryview] | None = None,
) -> bytes:
    """Return the ``(log time, offset)`` entries of one message index, as bytes.

    ``read``: bytes already read and the file offset they start at; a record
    wholly inside them is taken from there, not read again.
    """
    offset, length = _record_place(block, channel_id)
    if length < _RECORD_HEAD.size:
        raise CorruptRecordError(
            "a message index is shorter than its header", path=path, offset=offset
        )
    if (
        read is not None
        and read[0] <= offset
        and offset + length <= read[0] + len(read[1])
    ):
        data = bytes(read[1][offset - read[0] : offset - read[0] + length])
    else:
        data = source.read_at(offset, min(length, _FIRST_READ), section="message index")
    opcode, record_length, channel, entry_bytes = _RECORD_HEAD.unpack_from(data)
    needed = _RECORD_HEAD.size + entry_bytes
    if (
        opcode != 0x07
        or channel != channel_id
        or entry_bytes % _ENTRY_BYTES
        or record_length != 6 + entry_bytes
        or needed > length
    ):
        raise CorruptRecordError(
            f"the message index of channel {channel_id} does not match its chunk index",
            path=path,
            offset=offset,
        )
    if needed > len(data):
        rest = source.read_at(
            offset + len(data), needed - len(data), section="message index"
        )
        data += rest
    return data[_RECORD_HEAD.size : needed]


def _as_pairs(data: bytes | bytearray) -> np.ndarray:
    return np.frombuffer(data, dtype="<u8").reshape(-1, 2).astype(np.int64)


def _placeable(data: bytes | bytearray) -> np.ndarray:
    """Return the log times of index entries below 2**63 ns (those int64 holds).

    A time past that (a damaged one) wraps negative as an int64; its message
    fails when read, and it does not stretch the topic's span.
    """
    times = _as_pairs(data)[:, 0]
    return times[times >= 0]


class IndexedMessages(NamedTuple):
    """Every message of one channel in some blocks: time, block number, ordinal.

    The ordinal counts the channel's messages in their block in file order
    (by offset), as reading the block returns them; the arrays run in file
    order.
    """

    times_ns: np.ndarray
    blocks: np.ndarray
    ordinals: np.ndarray


def indexed_messages(
    source: ByteSource,
    path: Path,
    blocks: Sequence[tuple[int, Block]],
    channel_id: int,
) -> IndexedMessages:
    """Return where each message of ``channel_id`` in ``blocks`` lies, in file order.

    Raises
    ------
    FsrError
        A message index cannot be read or does not match its chunk index.
    """
    data = bytearray()
    numbers: list[int] = []
    counts: list[int] = []
    for number, block in blocks:
        entries = channel_entries(source, path, block, channel_id)
        data += entries
        numbers.append(number)
        counts.append(len(entries) // _ENTRY_BYTES)
    pairs = _as_pairs(data)
    owners = np.repeat(np.asarray(numbers, dtype=np.int64), counts)
    order = np.lexsort((pairs[:, 1], owners))
    owners = owners[order]
    first_of_block = np.searchsorted(owners, owners, "left")
    ordinals = np.arange(owners.size, dtype=np.int64) - first_of_block
    return IndexedMessages(pairs[order, 0], owners, ordinals)


def channel_span(
    source: ByteSource, path: Path, blocks: Sequence[Block], channel_id: int
) -> tuple[int, int] | None:
    """Return the first and last log time of ``channel_id``'s messages in ``blocks``.

    Reads the message indexes of the blocks that may hold the earliest and
    the latest message, as their time ranges tell (usually one each).

    Raises
    ------
    FsrError
        A message index cannot be read or does not match its chunk index.
    """
    first: int | None = None
    for block in sorted(blocks, key=_START):
        if first is not None and block.start_ns >= first:
            break
        times = _placeable(channel_entries(source, path, block, channel_id))
        if times.size:
            first = int(times.min()) if first is None else min(first, int(times.min()))
    last: int | None = None
    for block in sorted(blocks, key=_END, reverse=True):
        if last is not None and block.end_ns <= last:
            break
        times = _placeable(channel_entries(source, path, block, channel_id))
        if times.size:
            last = int(times.max()) if last is None else max(last, int(times.max()))
    if first is None or last is None:
        return None
    return first, last
