"""Check a whole MCAP file record by record, as ``mcap doctor`` does.

``inspect --verify`` calls :func:`verify_file`. It walks the data section from
the magic to the DataEnd record, checking every record parses and fits,
every chunk decompresses to its size and matches its CRC, every attachment's
CRC, that schemas, channels and messages refer to what was defined before
them, and the data section's CRC that DataEnd holds. Then the summary: each
record parses and agrees with the data section (chunk, attachment and
metadata indexes point at the records they describe; repeated schemas and
channels are those of the data section; statistics count what is there), the
summary offsets point at their groups, the footer sits where it must with
the summary's CRC, and the closing magic ends the file.

Every problem is one line naming the byte offset; what the specification
allows but ``mcap doctor`` warns of is a note, which leaves the file valid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.checksums import crc32
from fsr_core.errors import FsrError
from fsr_core.sources.mcap.container import (
    _PREFIX,
    _RECORD_PREFIX,
    MCAP_MAGIC,
    _check_size,
    _File,
    _library,
    _parse,
    attachment_crcs,
    decompress_chunk,
    records_in,
)
from fsr_core.sources.mcap.verification_summary import check_summary
from fsr_core.sources.mcap.verified import DataSection, Verification

__all__ = ["Verification", "verify_file"]

_IN_CHUNKS: Final = frozenset({0x03, 0x04, 0x05})
"""What a chunk may hold: schemas, channels and messages."""


class _Doctor:
    def __init__(self, file: _File, records: Any) -> None:
        self.file = file
        self.records = records
        self.found = Verification()
        self.data = DataSection()
        self.last_chunk: int | None = None
        self.latest_ns = 0

    def problem(self, offset: int, text: str) -> None:
        self.found.problem(offset, text)

    def parse(
        self, opcode: int, body: bytes | memoryview, offset: int, what: str
    ) -> Any:
        try:
            return _parse(opcode, body, self.records)
        except Exception as exc:  # noqa: BLE001 - any failure is one problem line
            self.problem(
                offset, f"{what} does not parse: {str(exc) or type(exc).__name__}"
            )
            return None

    def walk_data(self) -> bool:
        """Check the data section; return whether DataEnd was reached."""
        file = self.file
        offset = len(MCAP_MAGIC)
        crc = crc32(MCAP_MAGIC)
        first = True
        while True:
            if offset + _RECORD_PREFIX > file.size:
                self.problem(offset, "the file ends without a DataEnd record")
                return False
            prefix = file.read(offset, _RECORD_PREFIX, "record")
            opcode, length = _PREFIX.unpack(prefix)
            if length > file.size - offset - _RECORD_PREFIX:
                self.problem(
                    offset, f"a record of {length} bytes runs past the end of the file"
                )
                return False
            if first and opcode != 0x01:
                self.problem(offset, "the first record is not a Header")
            first = False
            if opcode == 0x02:
                self.problem(offset, "a Footer before any DataEnd record")
                return False
            _check_size(file, length, "a record", offset)
            body = file.read(offset + _RECORD_PREFIX, length, "record")
            self.found.records += 1
            if opcode == 0x0F:
                end = self.parse(opcode, body, offset, "the DataEnd record")
                stored = 0 if end is None else int(end.data_section_crc)
                if stored not in (0, crc):
                    self.problem(
                        offset,
                        f"data section CRC-32 is {crc:08x}, DataEnd says {stored:08x}",
                    )
                self.data.end = offset + _RECORD_PREFIX + length
                return True
            crc = crc32(body, crc32(prefix, crc))
            self.take(opcode, body, offset, length)
            offset += _RECORD_PREFIX + length

    def take(self, opcode: int, body: bytes, offset: int, length: int) -> None:
        if opcode == 0x01:
            self.parse(opcode, body, offset, "the Header")
        elif opcode in (0x03, 0x04, 0x05):
            self.definition(opcode, body, offset, None)
        elif opcode == 0x06:
            self.chunk(body, offset, length)
        elif opcode == 0x07:
            self.message_index(body, offset)
        elif opcode == 0x09:
            self.attachment(body, offset, length)
        elif opcode == 0x0C:
            metadata = self.parse(opcode, body, offset, "a Metadata record")
            if metadata is not None:
                self.data.metadata[offset] = (_RECORD_PREFIX + length, metadata.name)
        elif opcode in (0x08, 0x0A, 0x0B, 0x0D, 0x0E):
            self.problem(
                offset, f"a summary record (opcode {opcode:#04x}) in the data section"
            )

    def definition(
        self, opcode: int, body: bytes | memoryview, offset: int, chunk: set[int] | None
    ) -> None:
        """Check a schema, channel or message (``chunk``: its chunk's channels)."""
        where = "in the chunk " if chunk is not None else ""
        if opcode == 0x03:
            schema = self.parse(opcode, body, offset, f"a Schema {where}")
            if schema is not None:
                self.schema(schema, offset)
        elif opcode == 0x04:
            channel = self.parse(opcode, body, offset, f"a Channel {where}")
            if channel is not None:
                self.channel(channel, offset)
        else:
            message = self.parse(opcode, body, offset, f"a Message {where}")
            if message is not None:
                self.message(message, offset, chunk)

    def schema(self, schema: Any, offset: int) -> None:
        if schema.id == 0:
            self.problem(offset, "a Schema with the reserved ID 0")
            return
        if not schema.encoding and schema.data:
            self.problem(offset, f"Schema {schema.id} has data but no encoding")
        facts = (schema.name, schema.encoding, bytes(schema.data))
        known = self.data.schemas.setdefault(schema.id, facts)
        if known != facts:
            self.problem(offset, f"two different Schema records with ID {schema.id}")

    def channel(self, channel: Any, offset: int) -> None:
        if channel.schema_id != 0 and channel.schema_id not in self.data.schemas:
            self.problem(
                offset,
                f"Channel {channel.id} names Schema {channel.schema_id}, "
                "not defined before it",
            )
        facts = (
            channel.schema_id,
            channel.topic,
            channel.message_encoding,
            dict(channel.metadata),
        )
        known = self.data.channels.setdefault(channel.id, facts)
        if known != facts:
            self.problem(offset, f"two different Channel records with ID {channel.id}")

    def message(self, message: Any, offset: int, chunk: set[int] | None) -> None:
        data = self.data
        if message.channel_id not in data.channels:
            self.problem(
                offset,
                f"a Message on channel {message.channel_id}, not defined before it",
            )
        if chunk is not None:
            chunk.add(message.channel_id)
        data.messages += 1
        data.per_channel[message.channel_id] = (
            data.per_channel.get(message.channel_id, 0) + 1
        )
        time = int(message.log_time)
        if data.first_ns is None or time < data.first_ns:
            data.first_ns = time
        if data.last_ns is None or time > data.last_ns:
            data.last_ns = time

    def chunk(self, body: bytes, offset: int, length: int) -> None:
        chunk = self.parse(0x06, body, offset, "a Chunk")
        self.last_chunk = None
        if chunk is None:
            return
        # Known even when its records cannot be read: its index is checked
        # against it, and the statistics' counts cannot be.
        self.data.chunks[offset] = (_RECORD_PREFIX + length, chunk, frozenset())
        self.data.unread_chunks += 1
        self.last_chunk = offset
        try:
            data = decompress_chunk(chunk, path=self.file.path, offset=offset)
        except FsrError as exc:
            self.problem(offset, exc.reason)
            return
        if chunk.uncompressed_crc != 0 and crc32(data) != chunk.uncompressed_crc:
            self.problem(
                offset,
                f"chunk CRC-32 is {crc32(data):08x}, its header says "
                f"{chunk.uncompressed_crc:08x}",
            )
            return
        channels: set[int] = set()
        times: list[int] = []
        view = memoryview(data)
        try:
            for opcode, start, stop in records_in(
                data, path=self.file.path, offset=offset
            ):
                self.found.records += 1
                if opcode not in _IN_CHUNKS:
                    self.problem(
                        offset, f"a record of opcode {opcode:#04x} inside a chunk"
                    )
                    continue
                before = self.data.messages
                self.definition(opcode, view[start:stop], offset, channels)
                if self.data.messages > before and stop - start >= 14:
                    times.append(int.from_bytes(view[start + 6 : start + 14], "little"))
        except FsrError as exc:
            self.problem(offset, exc.reason)
            return
        if times and (min(times), max(times)) != (
            chunk.message_start_time,
            chunk.message_end_time,
        ):
            self.problem(
                offset,
                f"chunk says its messages span {chunk.message_start_time}.."
                f"{chunk.message_end_time}, they span {min(times)}..{max(times)}",
            )
        self.data.chunks[offset] = (_RECORD_PREFIX + length, chunk, frozenset(channels))
        self.data.unread_chunks -= 1

    def message_index(self, body: bytes, offset: int) -> None:
        index = self.parse(0x07, body, offset, "a MessageIndex")
        if index is None:
            return
        if self.last_chunk is None:
            self.found.notes.append(
                f"byte {offset}: a MessageIndex not after a chunk (indexed readers "
                "miss "
                "messages outside chunks)"
            )
            return
        self.data.message_indexes[offset] = (int(index.channel_id), self.last_chunk)
        size = self.data.chunks[self.last_chunk][1].uncompressed_size
        for _, at in index.records:
            if at >= size:
                self.problem(
                    offset, f"a MessageIndex entry points past its chunk ({at})"
                )
                return

    def attachment(self, body: bytes, offset: int, length: int) -> None:
        attachment = self.parse(0x09, body, offset, "an Attachment")
        if attachment is None:
            return
        stored, found = attachment_crcs(body) or (0, 0)
        if stored not in (0, found):
            self.problem(
                offset,
                f"attachment {attachment.name[:80]!r}: CRC-32 is {found:08x}, "
                f"the record says {stored:08x}",
            )
        self.data.attachments[offset] = (_RECORD_PREFIX + length, attachment)


def verify_file(path: Path) -> Verification:
    """Read every record of the MCAP file at ``path`` and check it.

    Raises
    ------
    FsrError
        The file cannot be opened, a record is over the memory budget, or the
        ``mcap`` package is missing.
    """
    records = _library()
    file = _File(path)
    try:
        doctor = _Doctor(file, records)
        if file.size < 2 * len(MCAP_MAGIC) or file.read(0, 8, "magic") != MCAP_MAGIC:
            doctor.problem(0, "the file does not start with the MCAP magic")
            return doctor.found
        if doctor.walk_data():
            check_summary(file, records, doctor.data, doctor.found)
        return doctor.found
    finally:
        file.close()
