"""Follow an MCAP file while its writer appends records (chunked or not).

An MCAP writer appends records after the leading magic: schemas, channels,
messages and, in a chunked file, chunks (each with its message indexes);
closing the file writes the data end, the summary, the footer and the
closing magic. The follower reads each record once it is whole (a chunk is
decompressed, bounded by the size its header gives, and its CRC checked),
decodes messages as the source does (:mod:`fsr_core.sources.mcap.decoding`)
and appends their numeric leaves to one channel per topic. The footer record
means the writer finished. A record whose opcode MCAP reserves (0, or 0x10 to
0x7F) or whose length is over the memory budget is garbage: a cut.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY
from fsr_core.checksums import crc32
from fsr_core.errors import FsrError
from fsr_core.sources.live.follower import Follower, Progress
from fsr_core.sources.mcap.container import (
    MCAP_MAGIC,
    TopicInfo,
    _library,
    _parse,
    decompress_chunk,
    records_in,
)
from fsr_core.sources.mcap.decoding import decoder_for
from fsr_core.sources.toolkit.numeric_leaves import numeric_leaves

__all__ = ["McapFollower"]

_PREFIX: Final = struct.Struct("<BQ")
_SCHEMA: Final = 0x03
_CHANNEL: Final = 0x04
_MESSAGE: Final = 0x05
_CHUNK: Final = 0x06
_FOOTER: Final = 0x02
_NS: Final = 1e-9


def _reserved(opcode: int) -> bool:
    return opcode == 0 or 0x10 <= opcode < 0x80


class _Topic:
    """One channel's decoder and the rows read in this poll."""

    def __init__(self, info: TopicInfo, decode: Callable[[bytes], Any] | None) -> None:
        self.info = info
        self.decode = decode
        self.times: list[float] = []
        self.rows: list[dict[str, float]] = []


class McapFollower(Follower):
    """Follow an MCAP file."""

    source = "mcap"

    def __init__(self, path: str | os.PathLike[str], **options: object) -> None:
        super().__init__(path, **options)  # type: ignore[arg-type]
        self._records = _library()
        self._magic = False
        self._schemas: dict[int, Any] = {}
        self._topics: dict[int, _Topic] = {}
        self._origin_ns: int | None = None
        self.problems: list[str] = []

    @classmethod
    def end_written(cls, path: Path) -> bool:
        """Whether the file ends with the closing magic after a footer."""
        try:
            with path.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell() < 2 * len(MCAP_MAGIC) + _PREFIX.size + 20:
                    return False
                handle.seek(-len(MCAP_MAGIC), os.SEEK_END)
                return handle.read(len(MCAP_MAGIC)) == MCAP_MAGIC
        except OSError:
            return False

    def consume(self, data: bytes, offset: int) -> Progress:
        """Take the magic, then every whole record."""
        view = memoryview(data)
        position = 0
        if not self._magic:
            if len(data) < len(MCAP_MAGIC):
                return Progress(0, 0)
            if bytes(view[: len(MCAP_MAGIC)]) != MCAP_MAGIC:
                return Progress(0, 0, cut="not an MCAP file (its magic is missing)")
            self._magic = True
            position = len(MCAP_MAGIC)
        records = 0
        progress = Progress(position, 0)
        try:
            while len(data) - position >= _PREFIX.size:
                opcode, length = _PREFIX.unpack_from(data, position)
                if _reserved(opcode) or length > MEMORY.limit():
                    progress = Progress(
                        position,
                        records,
                        cut=f"bytes after the last record are not a record "
                        f"(opcode 0x{opcode:02x}, length {length})",
                    )
                    break
                start = position + _PREFIX.size
                if len(data) - start < length:
                    progress = Progress(position, records)
                    break
                body = view[start : start + length]
                if opcode == _FOOTER:
                    progress = Progress(start + length, records, finished=True)
                    break
                records += self._take(opcode, body, offset + position)
                position = start + length
                progress = Progress(position, records)
        except FsrError as exc:
            progress = Progress(position, records, cut=exc.reason)
        self._append()
        return progress

    def _take(self, opcode: int, body: memoryview, where: int) -> int:
        if opcode == _CHUNK:
            return self._take_chunk(body, where)
        if opcode not in (_SCHEMA, _CHANNEL, _MESSAGE):
            return 0
        try:
            record = _parse(opcode, body, self._records)
        except Exception as exc:
            raise FsrError(f"a record at byte {where} is malformed: {exc}") from exc
        return self._take_parsed(opcode, record)

    def _take_chunk(self, body: memoryview, where: int) -> int:
        try:
            chunk = _parse(_CHUNK, body, self._records)
        except Exception as exc:
            raise FsrError(f"a chunk at byte {where} is malformed: {exc}") from exc
        data = decompress_chunk(chunk, path=self.path, offset=where)
        if chunk.uncompressed_crc and crc32(data) != chunk.uncompressed_crc:
            raise FsrError(f"the chunk at byte {where} fails its CRC-32")
        taken = 0
        inner = memoryview(data)
        for opcode, start, stop in records_in(data, path=self.path, offset=where):
            if opcode not in (_SCHEMA, _CHANNEL, _MESSAGE):
                continue
            try:
                record = _parse(opcode, inner[start:stop], self._records)
            except Exception as exc:
                raise FsrError(
                    f"a record in the chunk at byte {where} is malformed: {exc}"
                ) from exc
            taken += self._take_parsed(opcode, record)
        return taken

    def _take_parsed(self, opcode: int, record: Any) -> int:
        if opcode == _SCHEMA:
            self._schemas[record.id] = record
            return 0
        if opcode == _CHANNEL:
            if record.id not in self._topics:
                self._topics[record.id] = self._topic(record)
            return 0
        topic = self._topics.get(record.channel_id)
        if topic is None:
            raise FsrError(
                f"a message names channel {record.channel_id}, "
                "defined nowhere before it"
            )
        if self._origin_ns is None:
            self._origin_ns = int(record.log_time)
        topic.info.note(int(record.log_time))
        if topic.decode is not None:
            try:
                leaves = numeric_leaves(topic.decode(bytes(record.data)))
            except Exception as exc:  # noqa: BLE001 - a message that does not decode
                self._note(
                    f"{topic.info.topic[:80]}: a message does not decode ({exc})"
                )
                leaves = {}
            if leaves:
                topic.times.append((int(record.log_time) - self._origin_ns) * _NS)
                topic.rows.append(leaves)
        return 1

    def _topic(self, record: Any) -> _Topic:
        schema = self._schemas.get(record.schema_id)
        info = TopicInfo.of_channel(record, schema)
        decoder = decoder_for(info)
        if decoder.decode is None:
            self._note(f"{record.topic[:80]}: {decoder.problem}")
        return _Topic(info, decoder.decode)

    def _note(self, problem: str) -> None:
        if problem not in self.problems and len(self.problems) < 64:
            self.problems.append(problem)

    def _append(self) -> None:
        """Hand this poll's rows to the model, one append per topic."""
        for topic in self._topics.values():
            if not topic.rows:
                continue
            names: list[str] = []
            seen: set[str] = set()
            for row in topic.rows:
                for key in row:
                    if key not in seen:
                        seen.add(key)
                        names.append(key)
            channel = self.model.channel(topic.info.topic, tuple(names))
            channel.add_columns(names)
            order = {name: i for i, name in enumerate(channel.columns)}
            values = np.full((len(topic.rows), len(order)), np.nan)
            for row_number, row in enumerate(topic.rows):
                for key, value in row.items():
                    values[row_number, order[key]] = value
            self.model.append(channel, np.asarray(topic.times), values)
            topic.times, topic.rows = [], []
