"""Find what an MCAP file holds, with the ``mcap`` library's record readers.

:func:`index_file` reads the summary section when the file has one (a cheap
read at the end of the file) and otherwise scans the data section record by
record, as ``mcap recover`` does: a file that a crashed or streaming writer
left without a summary opens up to its last complete record, and the place and
reason of the cut are kept for the inspector.

What it returns, :class:`McapContents`, names the *blocks* that hold messages:
each chunk, or a run of messages written outside chunks
(:mod:`fsr_core.sources.mcap.block_reading` reads their messages). Chunk
indexes, thousands in a big file, are read field by field with ``struct``, in
the layout of the MCAP specification; the other records by the library. Every
length, size and count read from the file is checked against the file size and
the memory budget before anything is allocated, and every error the library or
a decompressor raises becomes an :class:`~fsr_core.errors.FsrError` naming the
file and the byte offset.
"""

from __future__ import annotations

import io
import operator
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, NamedTuple, cast

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.checksums import crc32
from fsr_core.errors import (
    BadMagicError,
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    SourceUnavailableError,
    TruncatedFileError,
)
from fsr_core.format.safe_open import ByteSource, open_source
from fsr_core.sources.mcap.chunk_index import ChunkIndexFields, parse_chunk_index
from fsr_core.zstd_bounded import zstd_bounded

__all__ = [
    "MCAP_MAGIC",
    "AttachmentInfo",
    "Block",
    "BlockMessage",
    "Cut",
    "McapContents",
    "TopicInfo",
    "attachment_crcs",
    "chunk_data",
    "decompress_chunk",
    "index_file",
    "records_in",
]

MCAP_MAGIC: Final = b"\x89MCAP0\r\n"
_RECORD_PREFIX: Final = 9  # opcode (1) and record length (8)
_PREFIX: Final = struct.Struct("<BQ")
"""A record's opcode and the length of its body."""
_FOOTER_RECORD: Final = _RECORD_PREFIX + 20
_MAX_SUMMARY_BYTES: Final = 256 << 20
_EXTRA: Final = "pip install 'fsr-viewer[mcap]'"
_BY_OFFSET: Final = operator.itemgetter(1)


@dataclass(frozen=True)
class Cut:
    """Where reading stopped early, and why."""

    offset: int
    reason: str
    after_ns: int | None
    """Log time of the last message read before the cut, when one was read."""


@dataclass
class TopicInfo:
    """One channel of the file, with what is known of its messages."""

    channel_id: int
    topic: str
    message_encoding: str
    metadata: dict[str, str]
    schema_name: str
    schema_encoding: str
    schema_data: bytes = field(repr=False)
    count: int = 0
    first_ns: int | None = None
    last_ns: int | None = None

    @classmethod
    def of_channel(cls, record: Any, schema: Any | None) -> TopicInfo:
        """Return the topic of a Channel ``record``, ``schema`` its Schema, if any."""
        return cls(
            channel_id=record.id,
            topic=record.topic,
            message_encoding=record.message_encoding,
            metadata=dict(record.metadata),
            schema_name="" if schema is None else schema.name,
            schema_encoding="" if schema is None else schema.encoding,
            schema_data=b"" if schema is None else schema.data,
        )

    def note(self, log_time_ns: int) -> None:
        """Count one message at ``log_time_ns``."""
        self.count += 1
        if self.first_ns is None or log_time_ns < self.first_ns:
            self.first_ns = log_time_ns
        if self.last_ns is None or log_time_ns > self.last_ns:
            self.last_ns = log_time_ns


class Block(NamedTuple):
    """A byte range of the file that holds messages: a chunk, or loose records.

    A tuple, not a dataclass: a big file has thousands of chunks, and each is
    made while the file opens.
    """

    offset: int
    length: int
    chunk: bool
    compression: str = ""
    uncompressed_size: int = 0
    start_ns: int = 0
    end_ns: int = 0
    channel_ids: frozenset[int] | None = None
    """The channels with messages in it, ``None`` when the index does not say."""
    message_indexes: tuple[tuple[int, int], ...] = ()
    """``(channel id, byte offset)`` of each channel's message index record,
    in file order (from the chunk index; empty when it has none)."""
    message_index_length: int = 0
    """Bytes of all the chunk's message index records together."""


@dataclass(frozen=True)
class BlockMessage:
    """One message as a block holds it."""

    channel_id: int
    log_time_ns: int
    publish_time_ns: int
    sequence: int
    data: bytes


@dataclass(frozen=True)
class AttachmentInfo:
    """An attachment record, without its data."""

    name: str
    media_type: str
    log_time_ns: int
    create_time_ns: int
    size_bytes: int
    offset: int


@dataclass
class McapContents:
    """What :func:`index_file` found in one MCAP file."""

    path: Path
    size_bytes: int
    profile: str = ""
    library: str = ""
    topics: dict[int, TopicInfo] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    attachments: list[AttachmentInfo] = field(default_factory=list)
    metadata: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    has_summary: bool = False
    chunk_indexed: bool = False
    message_indexed: bool = False
    statistics: bool = False
    counted: bool = False
    """Whether every topic's message count and time span are known."""
    scanned: bool = False
    scan_reason: str = ""
    """Why a file with a chunk index was scanned all the same ("" if it was not)."""
    cut: Cut | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def message_count(self) -> int:
        """Messages of every topic (as far as counted)."""
        return sum(topic.count for topic in self.topics.values())

    @property
    def compressions(self) -> dict[str, int]:
        """How many chunks use each compression (``""``: none)."""
        found: dict[str, int] = {}
        for block in self.blocks:
            if block.chunk:
                found[block.compression] = found.get(block.compression, 0) + 1
        return found


def _library() -> Any:
    """Return the ``mcap`` package's record module, or say which extra installs it."""
    try:
        from mcap import records
    except ImportError as exc:
        raise SourceUnavailableError(
            f"reading MCAP needs the 'mcap' package ({_EXTRA})"
        ) from exc
    return records


class _ExactBytes(io.RawIOBase):
    """A byte string read by the record classes; a short read is an error."""

    def __init__(self, data: bytes | memoryview) -> None:
        super().__init__()
        self._view = memoryview(data)
        self._position = 0

    def read(self, size: int = -1) -> bytes:
        remaining = len(self._view) - self._position
        if size < 0:
            size = remaining
        if size > remaining:
            raise _ShortRecordError(size, remaining)
        start = self._position
        self._position += size
        return bytes(self._view[start : self._position])

    def readable(self) -> bool:
        return True

    @property
    def consumed(self) -> int:
        return self._position


class _ShortRecordError(Exception):
    def __init__(self, wanted: int, remaining: int) -> None:
        super().__init__(f"a field of {wanted} bytes runs past its record")


def _parse(
    opcode: int, body: bytes | memoryview, records: Any
) -> Any:  # one record's fields, by the library's reader of its kind
    from mcap.data_stream import ReadDataStream

    stream = ReadDataStream(cast(IO[bytes], _ExactBytes(body)))
    readers: dict[int, Callable[[], Any]] = {
        0x01: lambda: records.Header.read(stream),
        0x03: lambda: records.Schema.read(stream),
        0x04: lambda: records.Channel.read(stream),
        0x05: lambda: records.Message.read(stream, len(body)),
        0x06: lambda: records.Chunk.read(stream),
        0x07: lambda: records.MessageIndex.read(stream),
        0x08: lambda: records.ChunkIndex.read(stream),
        0x09: lambda: records.Attachment.read(stream),
        0x0A: lambda: records.AttachmentIndex.read(stream),
        0x0D: lambda: records.MetadataIndex.read(stream),
        0x0B: lambda: records.Statistics.read(stream),
        0x0C: lambda: records.Metadata.read(stream),
        0x0F: lambda: records.DataEnd.read(stream),
        0x02: lambda: records.Footer.read(stream),
    }
    reader = readers.get(opcode)
    return None if reader is None else reader()


def _record_error(
    exc: BaseException, path: Path, offset: int, what: str
) -> CorruptRecordError:
    detail = str(exc) or type(exc).__name__
    return CorruptRecordError(
        f"{what} is malformed: {detail}", path=path, offset=offset
    )


class _File:
    """The file's bytes, read at offsets within its size."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source: ByteSource = open_source(path)
        self.size = self.source.size

    def read(self, offset: int, length: int, section: str) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise TruncatedFileError(
                f"{section} of {length} bytes runs past the end of the file",
                path=self.path,
                offset=offset,
            )
        return self.source.read_at(offset, length, section=section)

    def record_at(self, offset: int, records: Any, what: str) -> tuple[int, int, Any]:
        """Return ``(opcode, length, record)`` of the record at ``offset``."""
        prefix = self.read(offset, _RECORD_PREFIX, what)
        opcode = prefix[0]
        length = int.from_bytes(prefix[1:], "little")
        if length > self.size - offset - _RECORD_PREFIX:
            raise TruncatedFileError(
                f"{what} of {length} bytes runs past the end of the file",
                path=self.path,
                offset=offset,
            )
        _check_size(self, length, what, offset)
        body = self.read(offset + _RECORD_PREFIX, length, what)
        try:
            return opcode, length, _parse(opcode, body, records)
        except Exception as exc:
            raise _record_error(exc, self.path, offset, what) from exc

    def close(self) -> None:
        self.source.close()


def _check_size(file: _File, needed: int, what: str, offset: int) -> None:
    try:
        check_budget(MEMORY, needed, what, path=file.path)
    except LimitExceededError as exc:
        raise exc.locate(offset=offset) from None


def _zstd(data: bytes, size: int) -> bytes:
    return zstd_bounded(data, size, "the frame")


def _lz4(data: bytes, size: int) -> bytes:
    import lz4.frame

    # One byte more than the header says, so a chunk that lies is caught.
    found: bytes = lz4.frame.LZ4FrameDecompressor().decompress(
        data, max_length=size + 1
    )
    return found


_DECOMPRESSORS: Final[dict[str, Callable[[bytes, int], bytes]]] = {
    "": lambda data, size: bytes(data),
    "zstd": _zstd,
    "lz4": _lz4,
}
"""Chunk compressions, each bounded to the size the chunk header gives."""


def decompress(
    compression: str, data: bytes, size: int, *, path: Path, offset: int
) -> bytes:
    """Return a chunk's records, decompressed to exactly ``size`` bytes.

    Raises
    ------
    CorruptRecordError
        The data does not decompress to ``size`` bytes.
    SourceUnavailableError
        The compression's package is missing, or the compression is unknown.
    """
    method = _DECOMPRESSORS.get(compression)
    if method is None:
        raise SourceUnavailableError(
            f"chunk compression {compression[:40]!r} is not supported "
            "(lz4, zstd or none)",
            path=path,
            offset=offset,
        )
    try:
        found = method(data, size)
    except ImportError as exc:
        raise SourceUnavailableError(
            f"{compression} chunks need the {exc.name or compression} package "
            f"({_EXTRA})",
            path=path,
            offset=offset,
        ) from exc
    except Exception as exc:
        raise CorruptRecordError(
            f"chunk does not decompress ({compression}): {exc}",
            path=path,
            offset=offset,
        ) from exc
    if len(found) != size:
        raise CorruptRecordError(
            f"chunk decompresses to {len(found)} bytes, its header says {size}",
            path=path,
            offset=offset,
        )
    return found


def decompress_chunk(chunk: Any, *, path: Path, offset: int) -> bytes:
    """Return the records of a parsed Chunk record: :func:`decompress` of its data."""
    return decompress(
        chunk.compression,
        chunk.data,
        chunk.uncompressed_size,
        path=path,
        offset=offset,
    )


def chunk_data(file: _File, offset: int, chunk: Any, *, verify: bool) -> bytes:
    """Return a chunk's records, decompressed and (with ``verify``) CRC checked."""
    _check_size(file, chunk.uncompressed_size, "a chunk", offset)
    data = decompress_chunk(chunk, path=file.path, offset=offset)
    if verify and chunk.uncompressed_crc != 0:
        found = crc32(data)
        if found != chunk.uncompressed_crc:
            raise CorruptRecordError(
                f"chunk CRC-32 is {found:08x}, its header says "
                f"{chunk.uncompressed_crc:08x}",
                path=file.path,
                offset=offset,
            )
    return data


def records_in(
    data: bytes, *, path: Path, offset: int
) -> Iterator[tuple[int, int, int]]:
    """Yield ``(opcode, start, stop)`` of every record in a chunk's ``data``.

    ``start`` and ``stop`` bound the record's body; ``offset`` (the chunk's
    place in the file) locates an error.
    """

    def cut(position: int, length: int | None) -> FsrError:
        message = (
            "chunk ends inside a record header"
            if length is None
            else f"a record inside the chunk (at {position}) runs past its end"
        )
        return CorruptRecordError(message, path=path, offset=offset)

    position = 0
    while position < len(data):
        opcode, start, position = _record_bounds(data, position, cut)
        yield opcode, start, position


def _record_bounds(
    data: bytes | memoryview, position: int, cut: Callable[[int, int | None], FsrError]
) -> tuple[int, int, int]:
    """Return ``(opcode, start, stop)`` of the record at ``position`` in ``data``.

    ``start`` and ``stop`` bound its body. A record cut short raises what
    ``cut(position, length)`` returns: ``length`` is ``None`` when the record
    header itself is cut, the body's length when the body runs past ``data``.
    """
    if len(data) - position < _RECORD_PREFIX:
        raise cut(position, None)
    opcode, length = _PREFIX.unpack_from(data, position)
    start = position + _RECORD_PREFIX
    if length > len(data) - start:
        raise cut(position, length)
    return opcode, start, start + length


def _chunk_records(
    file: _File, offset: int, chunk: Any, *, verify: bool
) -> Iterator[tuple[int, memoryview]]:
    """Yield ``(opcode, body)`` of every record inside a chunk (bodies not copied)."""
    data = chunk_data(file, offset, chunk, verify=verify)
    view = memoryview(data)
    for opcode, start, stop in records_in(data, path=file.path, offset=offset):
        yield opcode, view[start:stop]


def _chunk_messages(
    file: _File, offset: int, chunk: Any, records: Any, *, verify: bool
) -> Iterator[tuple[int, Any]]:
    """Yield ``(opcode, record)`` of the schemas, channels and messages of a chunk."""
    for opcode, body in _chunk_records(file, offset, chunk, verify=verify):
        if opcode not in (0x03, 0x04, 0x05):
            continue
        try:
            parsed = _parse(opcode, body, records)
        except Exception as exc:
            raise _record_error(exc, file.path, offset, "a record in a chunk") from exc
        yield opcode, parsed


def _add_schema(contents: McapContents, schemas: dict[int, Any], record: Any) -> None:
    schemas[record.id] = record


def _add_channel(contents: McapContents, schemas: dict[int, Any], record: Any) -> None:
    if record.id in contents.topics:
        return
    schema = schemas.get(record.schema_id)
    if record.schema_id != 0 and schema is None:
        contents.problems.append(
            f"channel {record.topic[:80]!r} names schema {record.schema_id}, "
            "which the file does not hold"
        )
    contents.topics[record.id] = TopicInfo.of_channel(record, schema)


def _note_message(contents: McapContents, record: Any, where: int) -> None:
    topic = contents.topics.get(record.channel_id)
    if topic is None:
        raise CorruptRecordError(
            f"a message names channel {record.channel_id}, defined nowhere before it",
            path=contents.path,
            offset=where,
        )
    topic.note(record.log_time)


class _Scan:
    """Record-by-record reading of the data section (no summary, or no index)."""

    def __init__(self, file: _File, contents: McapContents, records: Any) -> None:
        self.file = file
        self.contents = contents
        self.records = records
        self.schemas: dict[int, Any] = {}
        self.loose: list[tuple[int, int, int, int]] = []  # offset, end, channel, time
        self.last_ns: int | None = None
        self.count_messages = not contents.counted

    def run(self, *, verify: bool) -> None:
        offset = len(MCAP_MAGIC)
        size = self.file.size
        while True:
            if offset >= size:
                self._cut(offset, "the file ends without a footer")
                break
            try:
                opcode, length, record = self.file.record_at(
                    offset, self.records, "record"
                )
                end = offset + _RECORD_PREFIX + length
                if opcode == 0x02 or opcode == 0x0F:  # footer, data end
                    break
                self._take(opcode, record, offset, end, verify=verify)
            except SourceUnavailableError:
                raise
            except FsrError as exc:
                self._cut(offset, exc.reason)
                break
            offset = end
        self._close_loose()

    def _cut(self, offset: int, reason: str) -> None:
        self.contents.cut = Cut(offset, reason, self.last_ns)

    def _take(
        self, opcode: int, record: Any, offset: int, end: int, *, verify: bool
    ) -> None:
        contents = self.contents
        if opcode == 0x01:
            contents.profile, contents.library = record.profile, record.library
        elif opcode == 0x03:
            _add_schema(contents, self.schemas, record)
        elif opcode == 0x04:
            _add_channel(contents, self.schemas, record)
        elif opcode == 0x05:
            if record.channel_id not in contents.topics:
                raise CorruptRecordError(
                    f"a message names channel {record.channel_id}, defined nowhere",
                    path=contents.path,
                    offset=offset,
                )
            if self.count_messages:
                _note_message(contents, record, offset)
            self.loose.append((offset, end, record.channel_id, record.log_time))
            self._seen(record.log_time)
        elif opcode == 0x06:
            self._close_loose()
            self._take_chunk(record, offset, end, verify=verify)
        elif opcode == 0x09:
            self._close_loose()
            self._take_attachment(record, offset, end, verify=verify)
        elif opcode == 0x0C:
            contents.metadata.append((record.name, dict(record.metadata)))

    def _seen(self, log_time_ns: int) -> None:
        if self.last_ns is None or log_time_ns > self.last_ns:
            self.last_ns = log_time_ns

    def _take_chunk(self, chunk: Any, offset: int, end: int, *, verify: bool) -> None:
        channels: set[int] = set()
        for opcode, record in _chunk_messages(
            self.file, offset, chunk, self.records, verify=True
        ):
            if opcode == 0x03:
                _add_schema(self.contents, self.schemas, record)
            elif opcode == 0x04:
                _add_channel(self.contents, self.schemas, record)
            else:
                if self.count_messages:
                    _note_message(self.contents, record, offset)
                channels.add(record.channel_id)
                self._seen(record.log_time)
        self.contents.blocks.append(
            Block(
                offset=offset,
                length=end - offset,
                chunk=True,
                compression=chunk.compression,
                uncompressed_size=chunk.uncompressed_size,
                start_ns=chunk.message_start_time,
                end_ns=chunk.message_end_time,
                channel_ids=frozenset(channels),
            )
        )

    def _take_attachment(
        self, record: Any, offset: int, end: int, *, verify: bool
    ) -> None:
        self.contents.attachments.append(
            AttachmentInfo(
                name=record.name,
                media_type=record.media_type,
                log_time_ns=record.log_time,
                create_time_ns=record.create_time,
                size_bytes=len(record.data),
                offset=offset,
            )
        )

    def _close_loose(self) -> None:
        if not self.loose:
            return
        times = [item[3] for item in self.loose]
        self.contents.blocks.append(
            Block(
                offset=self.loose[0][0],
                length=self.loose[-1][1] - self.loose[0][0],
                chunk=False,
                start_ns=min(times),
                end_ns=max(times),
                channel_ids=frozenset(item[2] for item in self.loose),
            )
        )
        self.loose = []


def _summary_start(file: _File, records: Any) -> int | None:
    """Return where the summary starts, from the footer (``None``: no summary)."""
    size = file.size
    if size < len(MCAP_MAGIC) * 2 + _FOOTER_RECORD:
        return None
    closing = file.read(size - len(MCAP_MAGIC), len(MCAP_MAGIC), "closing magic")
    if closing != MCAP_MAGIC:
        return None
    footer_at = size - len(MCAP_MAGIC) - _FOOTER_RECORD
    opcode, _, footer = file.record_at(footer_at, records, "footer")
    if opcode != 0x02 or int(footer.summary_start) == 0:
        return None
    return int(footer.summary_start)


def _summary(
    file: _File, contents: McapContents, records: Any, counts: dict[int, int]
) -> dict[int, Any] | None:
    """Read the footer and the summary section; ``None`` when there is none.

    Fills ``counts`` from the statistics record, when there is one.
    """
    footer_at = file.size - len(MCAP_MAGIC) - _FOOTER_RECORD
    start = _summary_start(file, records)
    if start is None:
        return None
    if not len(MCAP_MAGIC) <= start <= footer_at:
        raise CorruptRecordError(
            f"footer puts the summary at byte {start}, outside the file",
            path=file.path,
            offset=footer_at,
        )
    if footer_at - start > _MAX_SUMMARY_BYTES:
        raise LimitExceededError(
            f"summary section of {footer_at - start} bytes is over the "
            f"{_MAX_SUMMARY_BYTES >> 20} MiB this reader accepts",
            path=file.path,
            offset=start,
        )
    found = _SummaryRecords()
    for opcode, record, offset in _summary_records(file, records, start, footer_at):
        found.take(file, contents, opcode, record, offset, counts)
    for at in found.metadata_at:
        _, _, metadata = file.record_at(at, records, "metadata")
        if metadata is None or not hasattr(metadata, "metadata"):
            raise CorruptRecordError(
                "a metadata index points at a record that is not metadata",
                path=file.path,
                offset=at,
            )
        contents.metadata.append((metadata.name, dict(metadata.metadata)))
    schemas, channels = found.schemas, found.channels
    missing = {
        c.schema_id for c in channels if c.schema_id and c.schema_id not in schemas
    }
    if missing:
        schemas.update(_schemas_in_data(file, records, missing))
    for channel in channels:
        _add_channel(contents, schemas, channel)
    return schemas


def _schemas_in_data(file: _File, records: Any, wanted: set[int]) -> dict[int, Any]:
    """Find in the data section the schemas ``wanted`` that the summary lacks.

    A summary may repeat the channels but not their schemas (the MCAP
    conformance suite's ``rch`` files without ``rsh``). The data section is
    walked from its start, reading only schema records and chunks, until
    every one is found or the data section ends.
    """
    found: dict[int, Any] = {}
    offset = len(MCAP_MAGIC)
    while not wanted <= found.keys() and offset + _RECORD_PREFIX <= file.size:
        opcode, length = _PREFIX.unpack(file.read(offset, _RECORD_PREFIX, "record"))
        if opcode in (0x02, 0x0F):  # footer, data end
            break
        if opcode == 0x03:
            schema = file.record_at(offset, records, "schema")[2]
            found.setdefault(schema.id, schema)
        elif opcode == 0x06:
            chunk = file.record_at(offset, records, "chunk")[2]
            for kind, body in _chunk_records(file, offset, chunk, verify=True):
                if kind == 0x03:
                    try:
                        schema = _parse(kind, body, records)
                    except Exception as exc:
                        raise _record_error(exc, file.path, offset, "a schema") from exc
                    found.setdefault(schema.id, schema)
        offset += _RECORD_PREFIX + length
    return found


def _summary_records(
    file: _File, records: Any, start: int, end: int
) -> Iterator[tuple[int, Any, int]]:
    """Yield ``(opcode, record, offset)`` of the summary, read in one piece.

    Chunk indexes, thousands in a big file, are read by
    :func:`~fsr_core.sources.mcap.chunk_index.parse_chunk_index`; the other
    records by the library's record classes.
    """
    _check_size(file, end - start, "the summary section", start)
    data = memoryview(file.read(start, end - start, "summary"))

    def cut(position: int, length: int | None) -> FsrError:
        message = (
            "a summary record header runs past the summary"
            if length is None
            else f"summary record of {length} bytes runs past the summary"
        )
        return TruncatedFileError(message, path=file.path, offset=start + position)

    position = 0
    while position < len(data):
        offset = start + position
        opcode, body_at, position = _record_bounds(data, position, cut)
        body = data[body_at:position]
        try:
            if opcode == 0x08:
                record: Any = parse_chunk_index(body)
            else:
                record = _parse(opcode, body, records)
        except Exception as exc:
            raise _record_error(exc, file.path, offset, "summary record") from exc
        yield opcode, record, offset


@dataclass
class _SummaryRecords:
    """What the summary section's records say, gathered in one pass."""

    schemas: dict[int, Any] = field(default_factory=dict)
    channels: list[Any] = field(default_factory=list)
    metadata_at: list[int] = field(default_factory=list)

    def take(
        self,
        file: _File,
        contents: McapContents,
        opcode: int,
        record: Any,
        offset: int,
        counts: dict[int, int],
    ) -> None:
        if opcode == 0x03:
            self.schemas[record.id] = record
        elif opcode == 0x04:
            self.channels.append(record)
        elif opcode == 0x08:
            _take_chunk_index(file, contents, record, offset)
        elif opcode == 0x0B:
            contents.statistics = True
            counts.update(record.channel_message_counts)
        elif opcode == 0x0A:
            contents.attachments.append(_attachment_of_index(file, record, offset))
        elif opcode == 0x0D:
            self.metadata_at.append(int(record.offset))


def _take_chunk_index(
    file: _File, contents: McapContents, index: ChunkIndexFields, where: int
) -> None:
    start, length = index.chunk_start_offset, index.chunk_length
    if start < len(MCAP_MAGIC) or length < _RECORD_PREFIX or start + length > file.size:
        raise CorruptRecordError(
            f"chunk index points at bytes {start}..{start + length}, outside the file",
            path=file.path,
            offset=where,
        )
    offsets = index.message_index_offsets
    # Positional, in Block's field order: thousands are made while a file opens.
    contents.blocks.append(
        Block(
            start,
            length,
            True,
            index.compression,
            index.uncompressed_size,
            index.message_start_time,
            index.message_end_time,
            frozenset(offsets) if offsets else None,
            tuple(sorted(offsets.items(), key=_BY_OFFSET)),
            index.message_index_length,
        )
    )
    if offsets:
        contents.message_indexed = True


def _attachment_of_index(file: _File, index: Any, where: int) -> AttachmentInfo:
    start, length = int(index.offset), int(index.length)
    if start < len(MCAP_MAGIC) or start + length > file.size:
        raise CorruptRecordError(
            f"attachment index points at bytes {start}..{start + length}, "
            "outside the file",
            path=file.path,
            offset=where,
        )
    return AttachmentInfo(
        name=index.name,
        media_type=index.media_type,
        log_time_ns=int(index.log_time),
        create_time_ns=int(index.create_time),
        size_bytes=int(index.data_size),
        offset=start,
    )


def index_file(path: Path, *, verify: bool = False) -> McapContents:
    """Find the topics, blocks, attachments and metadata of an MCAP file.

    With a summary that indexes the chunks, only the summary is read; a file
    without one is scanned (every chunk is decompressed once), and stops at
    the first record that cannot be read (:attr:`McapContents.cut`).

    Raises
    ------
    BadMagicError
        The file does not start with the MCAP magic.
    FsrError
        The file cannot be opened, its summary is corrupt, a size is over a
        budget, or a package it needs is missing (the message names the extra).
    """
    records = _library()
    file = _File(path)
    try:
        return _index(file, records, verify=verify)
    except FsrError:
        raise
    except Exception as exc:
        raise CorruptRecordError(
            f"the file's records do not fit together: {type(exc).__name__}: {exc}",
            path=path,
        ) from exc
    finally:
        file.close()


def _read_header(file: _File, records: Any, contents: McapContents) -> None:
    """Check the magic and read the header record into ``contents``."""
    if (
        file.size < len(MCAP_MAGIC)
        or file.read(0, len(MCAP_MAGIC), "magic") != MCAP_MAGIC
    ):
        raise BadMagicError("not an MCAP file (bad magic)", path=file.path, offset=0)
    try:
        opcode, _, header = file.record_at(len(MCAP_MAGIC), records, "header")
    except FsrError as exc:
        raise exc.locate(section="header") from None
    if opcode != 0x01:
        raise CorruptRecordError(
            "the first record is not a header", path=file.path, offset=len(MCAP_MAGIC)
        )
    contents.profile, contents.library = header.profile, header.library


def _names_every_channel(contents: McapContents) -> bool:
    """Whether the summary defines every channel its chunk index points at.

    A writer that does not repeat channels in the summary leaves them in the
    data section only; such a file is scanned to find them.
    """
    known = set(contents.topics)
    for block in contents.blocks:
        if block.channel_ids is None:
            if not known:
                break
            continue
        if not block.channel_ids <= known:
            break
    else:
        return True
    contents.scan_reason = "the summary does not define every channel: scanned"
    return False


def _index(file: _File, records: Any, *, verify: bool) -> McapContents:
    contents = McapContents(path=file.path, size_bytes=file.size)
    _read_header(file, records, contents)
    counts: dict[int, int] = {}
    try:
        schemas = _summary(file, contents, records, counts)
    except (LimitExceededError, SourceUnavailableError):
        raise
    except FsrError as exc:
        contents.problems.append(f"summary unreadable ({exc.reason}); scanned instead")
        schemas = None
        contents.statistics = contents.message_indexed = False
    contents.has_summary = schemas is not None
    if schemas is not None and contents.blocks and _names_every_channel(contents):
        contents.chunk_indexed = True
        contents.blocks.sort(key=lambda block: block.offset)
        if contents.statistics:
            for channel_id, topic in contents.topics.items():
                topic.count = int(counts.get(channel_id, 0))
            contents.counted = True
        return contents
    contents.blocks.clear()
    contents.attachments.clear()
    contents.metadata.clear()
    scan = _Scan(file, contents, records)
    if schemas is not None:
        scan.schemas.update(schemas)
    contents.scanned = True
    contents.counted = False
    for topic in contents.topics.values():
        topic.count = 0
    scan.count_messages = True
    scan.run(verify=verify)
    contents.counted = contents.cut is None
    return contents


def attachment_problems(path: Path, attachments: list[AttachmentInfo]) -> list[str]:
    """Check each attachment's CRC-32; return one line per attachment that fails.

    Raises
    ------
    FsrError
        The file cannot be opened.
    """
    file = _File(path)
    problems = []
    try:
        for item in attachments:
            problem = _attachment_problem(file, item)
            if problem:
                problems.append(problem)
    finally:
        file.close()
    return problems


def _attachment_problem(file: _File, item: AttachmentInfo) -> str:
    shown = f"attachment {item.name[:80]!r} at byte {item.offset}"
    try:
        prefix = file.read(item.offset, _RECORD_PREFIX, "attachment")
        length = int.from_bytes(prefix[1:], "little")
        if prefix[0] != 0x09 or length < 4:
            return f"{shown}: not an attachment record"
        _check_size(file, length, "an attachment", item.offset)
        body = file.read(item.offset + _RECORD_PREFIX, length, "attachment")
    except FsrError as exc:
        return f"{shown}: {exc.reason}"
    crcs = attachment_crcs(body)
    if crcs is None:
        return f"{shown}: its fields run past the record"
    stored, found = crcs
    if stored not in (0, found):
        return f"{shown}: CRC-32 is {found:08x}, the record says {stored:08x}"
    return ""


def attachment_crcs(body: bytes) -> tuple[int, int] | None:
    """Return the CRC-32 an attachment record's body holds and the one its fields have.

    The CRC follows the data (a writer may pad the record after it); ``None``
    when the fields run past the body.
    """
    position = 16  # log time, create time
    for _ in range(2):  # name, media type
        if position + 4 > len(body):
            return None
        position += 4 + int.from_bytes(body[position : position + 4], "little")
    if position + 8 > len(body):
        return None
    position += 8 + int.from_bytes(body[position : position + 8], "little")
    if position + 4 > len(body):
        return None
    return int.from_bytes(body[position : position + 4], "little"), crc32(
        body[:position]
    )
