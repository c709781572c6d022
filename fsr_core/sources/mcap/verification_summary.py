"""Check an MCAP file's summary, footer and closing magic against its data section.

:func:`check_summary` is the second half of
:func:`fsr_core.sources.mcap.verification.verify_file`: it gets what the
data section defined (``DataSection``) and adds a line to ``found.problems``
for each summary record that does not parse or disagrees with it, a summary
offset that does not point at its group, a footer out of place, a summary CRC
that does not match, and a file that does not end with the magic.
"""

from __future__ import annotations

import struct
from typing import Any, Final

from fsr_core.checksums import crc32
from fsr_core.sources.mcap.chunk_index import ChunkIndexFields, parse_chunk_index
from fsr_core.sources.mcap.container import (
    _PREFIX,
    _RECORD_PREFIX,
    MCAP_MAGIC,
    _check_size,
    _File,
    _parse,
)
from fsr_core.sources.mcap.verified import DataSection, Verification

__all__ = ["check_summary"]

_FOOTER_BODY: Final = 20
_SUMMARY_OFFSET: Final = struct.Struct("<BQQ")
_IN_SUMMARY: Final = frozenset({0x03, 0x04, 0x08, 0x0A, 0x0B, 0x0D, 0x0E})


class _Summary:
    def __init__(
        self, file: _File, records: Any, data: DataSection, found: Verification
    ):
        self.file = file
        self.records = records
        self.data = data
        self.found = found
        self.starts: dict[int, int] = {}  # record offset: opcode
        self.offsets: list[tuple[int, int, int, int]] = []  # at, opcode, start, length
        self.channels: set[int] = set()
        self.schemas: set[int] = set()
        self.indexed: list[tuple[int, ChunkIndexFields]] = []
        self.statistics = 0

    def problem(self, offset: int, text: str) -> None:
        self.found.problem(offset, text)

    def walk(self, start: int, end: int) -> None:
        offset = start
        while offset < end:
            if end - offset < _RECORD_PREFIX:
                self.problem(offset, "a summary record header runs into the Footer")
                return
            opcode, length = _PREFIX.unpack(
                self.file.read(offset, _RECORD_PREFIX, "summary")
            )
            if length > end - offset - _RECORD_PREFIX:
                self.problem(
                    offset, f"a summary record of {length} bytes runs into the Footer"
                )
                return
            _check_size(self.file, length, "a summary record", offset)
            body = self.file.read(offset + _RECORD_PREFIX, length, "summary")
            self.found.records += 1
            self.starts[offset] = opcode
            if opcode not in _IN_SUMMARY and opcode <= 0x0F:
                self.problem(offset, f"a record of opcode {opcode:#04x} in the summary")
            else:
                try:
                    self.take(opcode, body, offset)
                except Exception as exc:  # noqa: BLE001 - one problem line each
                    detail = str(exc) or type(exc).__name__
                    self.problem(offset, f"a summary record does not parse: {detail}")
            offset += _RECORD_PREFIX + length

    def take(self, opcode: int, body: bytes, offset: int) -> None:
        if opcode == 0x08:
            self.indexed.append((offset, parse_chunk_index(body)))
        elif opcode == 0x0E:
            group, start, length = _SUMMARY_OFFSET.unpack_from(body)
            self.offsets.append((offset, group, start, length))
        elif opcode in _IN_SUMMARY:
            self.record(opcode, _parse(opcode, body, self.records), offset)

    def record(self, opcode: int, record: Any, offset: int) -> None:
        data = self.data
        if opcode == 0x03:
            self.schemas.add(record.id)
            schema = (record.name, record.encoding, bytes(record.data))
            self.repeated("Schema", record.id, schema, data.schemas, offset)
        elif opcode == 0x04:
            self.channels.add(record.id)
            channel = (
                record.schema_id,
                record.topic,
                record.message_encoding,
                dict(record.metadata),
            )
            self.repeated("Channel", record.id, channel, data.channels, offset)
        elif opcode == 0x0A:
            self.attachment_index(record, offset)
        elif opcode == 0x0D:
            if data.metadata.get(int(record.offset)) != (
                int(record.length),
                record.name,
            ):
                self.problem(
                    offset, "a MetadataIndex does not point at its Metadata record"
                )
        elif opcode == 0x0B:
            self.statistics += 1
            if self.statistics > 1:
                self.problem(offset, "a second Statistics record")
            self.check_statistics(record, offset)

    def repeated(
        self, kind: str, key: int, facts: object, known: dict[int, Any], offset: int
    ) -> None:
        """Check a schema or channel the summary repeats against the data section."""
        if key not in known:
            self.problem(
                offset, f"{kind} {key} of the summary is not in the data section"
            )
        elif known[key] != facts:
            self.problem(
                offset, f"{kind} {key} of the summary differs from the data section's"
            )

    def attachment_index(self, index: Any, offset: int) -> None:
        known = self.data.attachments.get(int(index.offset))
        if known is None:
            self.problem(offset, "an AttachmentIndex points at no attachment")
            return
        length, record = known
        if (
            length != int(index.length)
            or (record.name, record.media_type, record.log_time, record.create_time)
            != (index.name, index.media_type, index.log_time, index.create_time)
            or len(record.data) != int(index.data_size)
        ):
            self.problem(
                offset,
                "an AttachmentIndex does not describe the attachment it points at",
            )

    def check_statistics(self, stats: Any, offset: int) -> None:
        data = self.data
        said = {
            "messages": int(stats.message_count),
            "schemas": int(stats.schema_count),
            "channels": int(stats.channel_count),
            "attachments": int(stats.attachment_count),
            "metadata": int(stats.metadata_count),
            "chunks": int(stats.chunk_count),
            "per channel": {
                int(k): int(v) for k, v in stats.channel_message_counts.items()
            },
        }
        found = {
            "messages": data.messages,
            "schemas": len(data.schemas),
            "channels": len(data.channels),
            "attachments": len(data.attachments),
            "metadata": len(data.metadata),
            "chunks": len(data.chunks),
            "per channel": data.per_channel,
        }
        if data.unread_chunks:  # its messages are not counted: neither is compared
            del said["messages"], said["per channel"]
        for key, value in said.items():
            if found[key] != value:
                self.problem(
                    offset,
                    f"Statistics counts {value} {key}, the file holds {found[key]}",
                )
        if (
            data.messages
            and not data.unread_chunks
            and (stats.message_start_time, stats.message_end_time)
            != (
                data.first_ns,
                data.last_ns,
            )
        ):
            self.problem(
                offset,
                f"Statistics spans {stats.message_start_time}.."
                f"{stats.message_end_time}, "
                f"the messages {data.first_ns}..{data.last_ns}",
            )

    def check_chunk_indexes(self) -> None:
        indexed: set[int] = set()
        for offset, index in self.indexed:
            if index.chunk_start_offset in indexed:
                self.problem(
                    offset,
                    f"a second ChunkIndex of the chunk at {index.chunk_start_offset}",
                )
            indexed.add(index.chunk_start_offset)
            known = self.data.chunks.get(index.chunk_start_offset)
            if known is None:
                self.problem(
                    offset,
                    f"a ChunkIndex points at byte {index.chunk_start_offset}, no chunk",
                )
                continue
            length, chunk, channels = known
            if (
                length != index.chunk_length
                or (chunk.message_start_time, chunk.message_end_time)
                != (index.message_start_time, index.message_end_time)
                or chunk.compression != index.compression
                or len(chunk.data) != index.compressed_size
                or chunk.uncompressed_size != index.uncompressed_size
            ):
                self.problem(
                    offset,
                    f"the ChunkIndex of byte {index.chunk_start_offset} disagrees "
                    "with the chunk",
                )
            for channel_id, at in index.message_index_offsets.items():
                if self.data.message_indexes.get(at) != (
                    channel_id,
                    index.chunk_start_offset,
                ):
                    self.problem(
                        offset,
                        f"a ChunkIndex names a MessageIndex at byte {at}, "
                        "which is not there",
                    )
            if self.channels and not channels <= self.channels:
                self.found.notes.append(
                    f"byte {offset}: an indexed chunk has channels the summary "
                    "does not repeat"
                )

    def check_offsets(self, start: int, end: int, offsets_start: int) -> None:
        if offsets_start and self.starts.get(offsets_start) != 0x0E:
            self.problem(
                offsets_start,
                "the Footer's summary offset start is not a SummaryOffset",
            )
        for at, group, group_start, length in self.offsets:
            outside = group_start < start or group_start + length > end
            # An empty group (the Python writer's) points anywhere in the summary.
            if outside or (length and self.starts.get(group_start) != group):
                self.problem(
                    at,
                    f"a SummaryOffset of opcode {group:#04x} does not point at "
                    "its group",
                )


def check_summary(
    file: _File, records: Any, data: DataSection, found: Verification
) -> None:
    """Check the summary, footer and closing magic after the data section."""
    summary = _Summary(file, records, data, found)
    size = file.size
    footer_at = size - len(MCAP_MAGIC) - _RECORD_PREFIX - _FOOTER_BODY
    if footer_at < data.end:
        summary.problem(data.end, "the file ends without a Footer after DataEnd")
        return
    if (
        file.read(size - len(MCAP_MAGIC), len(MCAP_MAGIC), "closing magic")
        != MCAP_MAGIC
    ):
        summary.problem(
            size - len(MCAP_MAGIC), "the file does not end with the MCAP magic"
        )
    head = file.read(footer_at, _RECORD_PREFIX + _FOOTER_BODY, "footer")
    if _PREFIX.unpack_from(head) != (0x02, _FOOTER_BODY):
        summary.problem(footer_at, "no Footer where the end of the file puts it")
        return
    summary_start, offsets_start, stored = struct.unpack_from(
        "<QQI", head, _RECORD_PREFIX
    )
    if summary_start not in (0, data.end) or (
        summary_start == 0 and footer_at > data.end
    ):
        summary.problem(
            footer_at,
            f"the Footer puts the summary at byte {summary_start}, "
            f"it starts at {data.end}",
        )
    if stored != 0:
        crc = crc32(
            head[:-4], crc32(file.read(data.end, footer_at - data.end, "summary"))
        )
        if crc != stored:
            summary.problem(
                footer_at, f"summary CRC-32 is {crc:08x}, the Footer says {stored:08x}"
            )
    summary.walk(data.end, footer_at)
    summary.check_chunk_indexes()
    summary.check_offsets(data.end, footer_at, offsets_start)
