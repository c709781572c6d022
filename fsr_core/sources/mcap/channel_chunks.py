"""One channel's messages in an MCAP file, a chunk at a time, as arrays.

Plotting a long topic reads every chunk that holds it: each is read,
decompressed and CRC checked, and the channel's messages are copied out of it,
back to back, with their lengths and log times (:class:`ChunkMessages`). The
rest of the chunk (a camera's images, most of the bytes) is dropped at once,
and the messages of many chunks can be joined (:func:`joined`) to be decoded
together.

The messages are found through the chunk's message index for the channel:
each entry is checked against the record it points at (a message record of
that channel, inside the chunk, with the entry's log time, none overlapping).
A chunk whose index does not check out, or that has none, is walked record by
record instead. The caller can compare the messages found with the file's
statistics to catch an index that leaves some out.
"""

from __future__ import annotations

import itertools
import struct
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import IndexArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError
from fsr_core.sources.mcap.block_reading import (
    chunk_record,
    each_block,
    read_block,
)
from fsr_core.sources.mcap.chunk_messages import (
    HEAD,
    MESSAGE_HEAD,
    ChunkMessages,
    empty_messages,
    windows,
)
from fsr_core.sources.mcap.container import (
    _RECORD_PREFIX,
    Block,
    _File,
    chunk_data,
    records_in,
)
from fsr_core.sources.mcap.listed_messages import Gathered, gather, settle
from fsr_core.sources.mcap.message_index import channel_entries

__all__ = ["GROUP", "ChunkMessages", "channel_chunks", "joined"]

GROUP: Final = 64
"""Blocks one thread reads in a row."""


def _compact(
    buffer: np.ndarray,
    starts: IndexArray,
    lengths: IndexArray,
    times: IndexArray,
    indexed: bool,
) -> ChunkMessages:
    """Copy the messages out of ``buffer``, back to back."""
    if starts.size == 0:
        return empty_messages(indexed)
    first = int(lengths[0])
    if bool((lengths == first).all()) and first > 0:
        # The usual case: one size; each message a row, copied whole.
        blob = windows(buffer, first)[starts].ravel()
        placed = np.arange(starts.size, dtype=np.int64) * first
    else:
        ends = np.cumsum(lengths)
        placed = (ends - lengths).astype(np.int64)
        picks = np.repeat(starts - placed, lengths) + np.arange(int(ends[-1]))
        blob = buffer[picks]
    return ChunkMessages(blob, placed, lengths, times, indexed)


def joined(parts: Sequence[ChunkMessages]) -> ChunkMessages:
    """Return the messages of ``parts`` as one, in order."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return empty_messages(True)
    sizes = np.asarray([part.blob.size for part in parts], dtype=np.int64)
    shifts = np.repeat(np.cumsum(sizes) - sizes, [part.count for part in parts])
    return ChunkMessages(
        np.concatenate([part.blob for part in parts]),
        np.concatenate([part.starts for part in parts]) + shifts,
        np.concatenate([part.lengths for part in parts]),
        np.concatenate([part.times_ns for part in parts]),
        all(part.indexed for part in parts),
    )


def _from_index(data: bytes, entries: bytes, channel_id: int) -> ChunkMessages | None:
    """Return the messages the index lists, or ``None`` if it does not check out."""
    pairs = np.frombuffer(entries, dtype="<u8").reshape(-1, 2)
    buffer = np.frombuffer(data, dtype=np.uint8)
    if pairs.shape[0] == 0:
        return empty_messages(True)
    offsets = pairs[:, 1]
    times = pairs[:, 0]
    if not bool((offsets[1:] > offsets[:-1]).all()):
        order = np.argsort(offsets, kind="stable")
        offsets, times = offsets[order], times[order]
    if int(offsets[-1]) > buffer.size - HEAD:
        return None
    offsets = offsets.astype(np.int64)
    heads = windows(buffer, HEAD)[offsets].view(MESSAGE_HEAD)[:, 0]
    lengths = heads["length"]
    ends = offsets + _RECORD_PREFIX + np.minimum(lengths, buffer.size).astype(np.int64)
    fits = (
        (heads["opcode"] == 0x05)
        & (heads["channel"] == channel_id)
        & (lengths >= HEAD - _RECORD_PREFIX)
        & (ends <= buffer.size)
        & (heads["log_time"] == times)
    )
    if not bool(fits.all()) or bool((ends[:-1] > offsets[1:]).any()):
        return None
    return _compact(
        buffer,
        offsets + HEAD,
        (lengths - (HEAD - _RECORD_PREFIX)).astype(np.int64),
        times.view(np.int64),
        True,
    )


def _walked(data: bytes, channel_id: int, path: Path, offset: int) -> ChunkMessages:
    """Return the channel's messages found by walking the chunk's records."""
    starts: list[int] = []
    lengths: list[int] = []
    times: list[int] = []
    for opcode, start, stop in records_in(data, path=path, offset=offset):
        if opcode != 0x05 or stop - start < HEAD - _RECORD_PREFIX:
            continue
        if int.from_bytes(data[start : start + 2], "little") != channel_id:
            continue
        starts.append(start + 22)
        lengths.append(stop - start - 22)
        times.append(int.from_bytes(data[start + 6 : start + 14], "little"))
    return _compact(
        np.frombuffer(data, dtype=np.uint8),
        np.asarray(starts, dtype=np.int64),
        np.asarray(lengths, dtype=np.int64),
        np.asarray(times, dtype=np.uint64).view(np.int64),
        False,
    )


def _loose(path: Path, block: Block, channel_id: int) -> ChunkMessages:
    """Return the channel's messages of a block of loose (unchunked) records."""
    messages = read_block(path, block, frozenset({channel_id}), verify=True)
    if not messages:
        return empty_messages(False)
    lengths = np.asarray([len(m.data) for m in messages], dtype=np.int64)
    return ChunkMessages(
        np.frombuffer(b"".join(m.data for m in messages), dtype=np.uint8),
        (np.cumsum(lengths) - lengths).astype(np.int64),
        lengths,
        np.asarray([m.log_time_ns for m in messages], dtype=np.uint64).view(np.int64),
        False,
    )


_CHUNK_HEAD: Final = struct.Struct("<BQQQQII")
"""A chunk record's opcode and length, then its start and end time,
uncompressed size and CRC, and the length of its compression's name."""


def _chunk_and_indexes(
    file: _File, records: Any, block: Block
) -> tuple[Any, tuple[int, memoryview] | None]:
    """Return the chunk record of ``block``, and the bytes read with it.

    The chunk and the message indexes after it are read at once, and the
    chunk's header fields are taken straight from their places in the MCAP
    specification, each checked against the chunk index the library read;
    anything unusual is read again by the library (:func:`chunk_record`).
    """
    span = block.length
    places = block.message_indexes
    if places and min(offset for _, offset in places) == block.offset + block.length:
        with_indexes = span + block.message_index_length
        if with_indexes <= min(span + (1 << 20), file.size - block.offset):
            span = with_indexes  # else the indexes are read on their own
    if block.length < _CHUNK_HEAD.size:
        return chunk_record(file, block, records), None
    check_budget(MEMORY, span, "a chunk", path=file.path)
    data = memoryview(file.read(block.offset, span, "chunk"))
    opcode, length, start_ns, end_ns, size, crc, name_length = _CHUNK_HEAD.unpack_from(
        data
    )
    name_end = _CHUNK_HEAD.size + name_length
    if (
        opcode != 0x06
        or length != block.length - _RECORD_PREFIX
        or (start_ns, end_ns, size)
        != (block.start_ns, block.end_ns, block.uncompressed_size)
        or name_end + 8 > block.length
        or bytes(data[_CHUNK_HEAD.size : name_end]) != block.compression.encode()
    ):
        return chunk_record(file, block, records), None
    records_length = int.from_bytes(data[name_end : name_end + 8], "little")
    if name_end + 8 + records_length != block.length:
        return chunk_record(file, block, records), None
    chunk = records.Chunk(
        compression=block.compression,
        data=data[name_end + 8 : block.length],
        message_start_time=start_ns,
        message_end_time=end_ns,
        uncompressed_crc=crc,
        uncompressed_size=size,
    )
    return chunk, (block.offset, data)


def _data_and_entries(
    file: _File, records: Any, block: Block, channel_id: int
) -> tuple[bytes, bytes | None]:
    """Return a chunk's records (CRC checked) and the channel's index entries.

    The entries are ``None`` when the chunk has no usable message index.
    """
    chunk, read = _chunk_and_indexes(file, records, block)
    data = chunk_data(file, block.offset, chunk, verify=True)
    del chunk
    entries = None
    if block.message_indexes:
        try:
            entries = channel_entries(
                file.source, file.path, block, channel_id, read=read
            )
        except (FsrError, KeyError):
            entries = None
    return data, entries


def _listed_or_walked(
    file: _File, block: Block, channel_id: int, data: bytes, entries: bytes | None
) -> ChunkMessages:
    """Return the messages the index lists, or those found walking the chunk."""
    if entries is not None:
        found = _from_index(data, entries, channel_id)
        if found is not None:
            return found
    return _walked(data, channel_id, file.path, block.offset)


def _read(file: _File, records: Any, block: Block, channel_id: int) -> ChunkMessages:
    if not block.chunk:
        return _loose(file.path, block, channel_id)
    data, entries = _data_and_entries(file, records, block, channel_id)
    return _listed_or_walked(file, block, channel_id, data, entries)


def _read_gathering(
    file: _File, records: Any, block: Block, channel_id: int
) -> ChunkMessages | Gathered:
    """Read like :func:`_read`, leaving a chunk's checks to :func:`settle`."""
    if not block.chunk:
        return _loose(file.path, block, channel_id)
    data, entries = _data_and_entries(file, records, block, channel_id)
    gathered = None if entries is None else gather(data, entries)
    if gathered is not None:
        return gathered
    return _listed_or_walked(file, block, channel_id, data, entries)


def _each(
    path: Path, blocks: Sequence[tuple[int, Block]], channel_id: int
) -> list[tuple[int, Block, ChunkMessages | FsrError]]:
    """Read a run of blocks; the chunks' listed messages are checked together."""
    plan = [(number, block, channel_id) for number, block in blocks]
    read = list(each_block(path, plan, _read_gathering))
    gathered = [found for _, _, found in read if isinstance(found, Gathered)]
    settled = iter(settle(gathered, channel_id))
    done: list[tuple[int, Block, ChunkMessages | FsrError]] = []
    again: list[int] = []
    for number, block, found in read:
        if isinstance(found, Gathered):
            checked = next(settled)
            if checked is None:
                again.append(len(done))
            found = checked or empty_messages(True)
        done.append((number, block, found))
    # A chunk whose list does not check out as records of one width is read
    # again by the general path, which says why or walks the chunk.
    if again:
        redo = [plan[at] for at in again]
        for at, result in zip(again, each_block(path, redo, _read), strict=True):
            done[at] = result
    return done


def channel_chunks(
    path: Path,
    blocks: Sequence[tuple[int, Block]],
    channel_id: int,
    *,
    threads: int = 1,
) -> Iterator[tuple[int, Block, ChunkMessages | FsrError]]:
    """Yield ``(number, block, messages)`` of each block, in order, CRC checked.

    A block that cannot be read yields its error in place of its messages.
    With ``threads`` > 1, runs of :data:`GROUP` blocks are read by that many
    threads, a few runs ahead of the caller. That halves the time where
    decompressing dominates (chunks of camera images: zstd lets go of the
    interpreter) and changes little where it does not.

    Raises
    ------
    FsrError
        The file cannot be opened, or the ``mcap`` package is missing.
    """
    groups = iter([blocks[at : at + GROUP] for at in range(0, len(blocks), GROUP)])
    if threads <= 1 or len(blocks) <= GROUP:
        for group in groups:
            yield from _each(path, group, channel_id)
        return
    with ThreadPoolExecutor(threads, thread_name_prefix="mcap-chunks") as pool:
        pending = deque(
            pool.submit(_each, path, group, channel_id)
            for group in itertools.islice(groups, threads + 1)
        )
        try:
            while pending:
                done = pending.popleft().result()
                following = next(groups, None)
                if following is not None:
                    pending.append(pool.submit(_each, path, following, channel_id))
                yield from done
        finally:
            for future in pending:
                future.cancel()
