"""Read the messages of an MCAP file's blocks: only those of the channels asked for.

:func:`read_block` and :func:`read_blocks` (one open file for many blocks)
return a block's messages on the channels wanted. Inside a chunk, each message
record's channel is looked at before anything else, and only a wanted one is
read out, field by field with ``struct`` in the layout of the MCAP
specification: a topic's few bytes among a camera's images cost no more than
themselves. The chunk is decompressed and its CRC checked first
(:mod:`fsr_core.sources.mcap.container`), and a chunk whose record disagrees
with its index is refused.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

from fsr_core.errors import CorruptRecordError, FsrError
from fsr_core.sources.mcap.container import (
    _RECORD_PREFIX,
    Block,
    BlockMessage,
    _chunk_records,
    _File,
    _library,
    _record_error,
)

__all__ = ["chunk_record", "each_block", "read_block", "read_blocks"]

T = TypeVar("T")
R = TypeVar("R")
Wanted = frozenset[int] | None
Messages = list[BlockMessage]


_MESSAGE_HEAD: Final = struct.Struct("<HIQQ")
"""A message record's fields before its data: channel, sequence, log and
publish time (the MCAP specification's layout, as the library reads it)."""


def _wanted_messages(
    file: _File,
    offset: int,
    chunk: Any,
    channel_ids: frozenset[int] | None,
    *,
    verify: bool,
) -> Iterator[BlockMessage]:
    """Yield the messages of a chunk on ``channel_ids`` (all when ``None``).

    Only those messages are read out: a topic's few bytes among a camera's
    images cost no more than themselves.
    """
    for opcode, body in _chunk_records(file, offset, chunk, verify=verify):
        if opcode != 0x05 or len(body) < 2:
            continue
        if channel_ids is not None and (body[0] | body[1] << 8) not in channel_ids:
            continue
        try:
            channel, sequence, log_ns, publish_ns = _MESSAGE_HEAD.unpack_from(body)
        except struct.error as exc:
            raise _record_error(exc, file.path, offset, "a message in a chunk") from exc
        yield BlockMessage(
            channel_id=channel,
            log_time_ns=log_ns,
            publish_time_ns=publish_ns,
            sequence=sequence,
            data=bytes(body[_MESSAGE_HEAD.size :]),
        )


def read_block(
    path: Path,
    block: Block,
    channel_ids: frozenset[int] | None,
    *,
    verify: bool = False,
) -> list[BlockMessage]:
    """Return the messages of ``block`` on ``channel_ids`` (all when ``None``).

    Raises
    ------
    FsrError
        The block cannot be read (as :func:`index_file`).
    """
    records = _library()
    file = _File(path)
    try:
        return list(_block_messages(file, block, channel_ids, records, verify=verify))
    finally:
        file.close()


def read_blocks(
    path: Path, plan: Iterable[tuple[int, Block, frozenset[int] | None]]
) -> Iterator[tuple[int, Block, list[BlockMessage] | FsrError]]:
    """Yield ``(number, block, messages)`` of each planned block, CRC checked.

    ``plan`` gives each block with its number and the channels wanted from it
    (all when ``None``); the file is opened once. A block that cannot be read
    yields its error in place of its messages.

    Raises
    ------
    FsrError
        The file cannot be opened, or the ``mcap`` package is missing.
    """

    def read(file: _File, records: Any, block: Block, wanted: Wanted) -> Messages:
        return list(_block_messages(file, block, wanted, records, verify=True))

    return each_block(path, plan, read)


def each_block(
    path: Path,
    plan: Iterable[tuple[int, Block, T]],
    read: Callable[[_File, Any, Block, T], R],
) -> Iterator[tuple[int, Block, R | FsrError]]:
    """Yield ``(number, block, read(file, records, block, wanted))`` of each block.

    The file is opened once; a block whose read raises :class:`FsrError`
    yields that error in its place.

    Raises
    ------
    FsrError
        The file cannot be opened, or the ``mcap`` package is missing.
    """
    records = _library()
    file = _File(path)
    try:
        for number, block, wanted in plan:
            try:
                found: R | FsrError = read(file, records, block, wanted)
            except FsrError as exc:
                found = exc
            yield number, block, found
    finally:
        file.close()


def chunk_record(file: _File, block: Block, records: Any) -> Any:
    """Return the chunk record ``block`` indexes, checked against its index.

    Raises
    ------
    FsrError
        The record cannot be read, is not a chunk, or names another
        compression than its index.
    """
    opcode, _, chunk = file.record_at(block.offset, records, "chunk")
    if opcode != 0x06:
        raise CorruptRecordError(
            "the chunk index points at a record that is not a chunk",
            path=file.path,
            offset=block.offset,
        )
    if chunk.compression != block.compression:
        raise CorruptRecordError(
            f"the chunk says it is compressed with {chunk.compression[:40]!r}, "
            f"its index says {block.compression[:40]!r}",
            path=file.path,
            offset=block.offset,
        )
    return chunk


def _block_messages(
    file: _File,
    block: Block,
    channel_ids: frozenset[int] | None,
    records: Any,
    *,
    verify: bool,
) -> Iterator[BlockMessage]:
    def wanted(record: Any) -> bool:
        return channel_ids is None or record.channel_id in channel_ids

    if block.chunk:
        chunk = chunk_record(file, block, records)
        yield from _wanted_messages(
            file, block.offset, chunk, channel_ids, verify=verify
        )
        return
    offset, end = block.offset, block.offset + block.length
    while offset < end:
        opcode, length, record = file.record_at(offset, records, "message")
        offset += _RECORD_PREFIX + length
        if opcode == 0x05 and wanted(record):
            yield _message(record)


def _message(record: Any) -> BlockMessage:
    return BlockMessage(
        channel_id=record.channel_id,
        log_time_ns=record.log_time,
        publish_time_ns=record.publish_time,
        sequence=record.sequence,
        data=record.data,
    )
