"""A topic's listed messages, checked for many chunks at once.

Reading a long topic, each chunk's message index lists where the topic's
messages lie in the chunk. Checking a list against its chunk takes a few
dozen numpy calls whatever the list's length; a joint-state topic beside
camera images lists a few dozen messages in each of thousands of chunks, so
those calls cost as much as reading the file. Here a chunk's listed records
are only gathered while its data is at hand (:func:`gather`: each record,
head and data, as wide as the first record says it is), and the checks run
over a run of chunks together (:func:`settle`). They are the checks a single
chunk gets (a message record of the channel, with the index's log time,
inside the chunk, in order, none overlapping); a chunk that fails them, or
whose records differ in length, is left to the general path.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.arrays import IndexArray
from fsr_core.sources.mcap.chunk_messages import HEAD, ChunkMessages, windows
from fsr_core.sources.mcap.container import _RECORD_PREFIX

__all__ = ["Gathered", "gather", "settle"]

_FIRST_FIELDS: Final = struct.Struct("<BQH")
"""A message record's opcode, length and channel id: its first 11 bytes."""
_LOG_TIME: Final = slice(15, 23)
"""Where a message record's log time lies in its head."""


@dataclass(frozen=True)
class Gathered:
    """One chunk's listed records, copied out but not yet checked."""

    rows: np.ndarray
    """Each listed record from its opcode on, ``width`` bytes (``uint8``)."""
    offsets: IndexArray
    """Where the index says each record starts in the chunk."""
    times: np.ndarray
    """The log time the index gives each (``uint64``)."""
    chunk_size: int
    """The chunk's decompressed bytes."""

    @property
    def width(self) -> int:
        """Bytes of each record if all are as long as the first."""
        return int(self.rows.shape[1])


def gather(data: bytes, entries: bytes) -> Gathered | None:
    """Copy the records ``entries`` lists out of ``data``, unchecked.

    ``None`` when the list is empty or the first record does not give a
    width that fits: the general path reads that chunk.
    """
    pairs = np.frombuffer(entries, dtype="<u8").reshape(-1, 2)
    if pairs.shape[0] == 0:
        return None
    first = int(pairs[0, 1])
    if first > len(data) - HEAD:
        return None
    length = int.from_bytes(data[first + 1 : first + _RECORD_PREFIX], "little")
    width = _RECORD_PREFIX + length
    if width <= HEAD or width > len(data):
        return None
    offsets = pairs[:, 1].astype(np.int64)
    try:
        rows = windows(np.frombuffer(data, dtype=np.uint8), width)[offsets]
    except IndexError:  # a listed record runs past the chunk
        return None
    return Gathered(rows, offsets, pairs[:, 0], len(data))


def settle(gathered: Sequence[Gathered], channel_id: int) -> list[ChunkMessages | None]:
    """Check each chunk's gathered records; return its messages, or ``None``.

    ``None``: the chunk's list does not check out as records of one width,
    and the general path must read the chunk.
    """
    found: list[ChunkMessages | None] = [None] * len(gathered)
    by_width: dict[int, list[int]] = {}
    for position, chunk in enumerate(gathered):
        by_width.setdefault(chunk.width, []).append(position)
    for width, members in by_width.items():
        parts = [gathered[position] for position in members]
        rows = np.concatenate([part.rows for part in parts])
        good = _rows_good(parts, rows, width, channel_id)
        at = 0
        for position, part in zip(members, parts, strict=True):
            count = part.offsets.size
            if bool(good[at : at + count].all()):
                found[position] = _messages(rows[at : at + count], part, width)
            at += count
    return found


def _rows_good(
    parts: list[Gathered], rows: np.ndarray, width: int, channel_id: int
) -> np.ndarray:
    """Return, for every gathered row of ``parts`` (``rows``), whether it checks out."""
    counts = np.asarray([part.offsets.size for part in parts], dtype=np.int64)
    offsets = np.concatenate([part.offsets for part in parts])
    times = np.concatenate([part.times for part in parts])
    sizes = np.repeat([part.chunk_size for part in parts], counts)
    first_fields = _FIRST_FIELDS.pack(0x05, width - _RECORD_PREFIX, channel_id)
    good = (rows[:, : _FIRST_FIELDS.size] == np.frombuffer(first_fields, np.uint8)).all(
        axis=1
    )
    good &= np.ascontiguousarray(rows[:, _LOG_TIME]).view("<u8")[:, 0] == times
    good &= (offsets >= 0) & (offsets <= sizes - width)
    # In order and none overlapping, within each chunk (not across two).
    apart = np.diff(offsets) >= width
    apart[np.cumsum(counts)[:-1] - 1] = True
    good[:-1] &= apart
    good[1:] &= apart
    checked: np.ndarray = good
    return checked


def _messages(rows: np.ndarray, part: Gathered, width: int) -> ChunkMessages:
    """Return the messages of checked ``rows``: their records, heads and all.

    ``rows`` is a contiguous part of the rows checked together, so the
    messages are a view of it, not another copy.
    """
    size = width - HEAD
    count = part.offsets.size
    return ChunkMessages(
        rows.ravel(),
        np.arange(count, dtype=np.int64) * width + HEAD,
        np.full(count, size, dtype=np.int64),
        part.times.view(np.int64),
        True,
    )
