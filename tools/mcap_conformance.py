"""Build the public MCAP conformance files (foxglove/mcap `tests/conformance`).

The suite keeps its `.mcap` files as large-file pointers and makes them with a
TypeScript script (`scripts/generate-inputs.ts`). This module lays out the same
records byte for byte in Python, so the tests can build the 416 files at test
time and check each against the SHA-256 its pointer names
(`tests/data/mcap/conformance/sha256.json`).

Run as a script to write the files into a folder, or, given the suite's
`data` folder (its JSON files and pointers), to write what each file is
expected to hold (`--expected`, the test data of
`tests/data/mcap/conformance/expected.json`):

    python tools/mcap_conformance.py OUT_DIR
    python tools/mcap_conformance.py --expected SUITE_DATA_DIR OUT_JSON
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"\x89MCAP0\r\n"

# Opcodes of the MCAP specification.
HEADER, FOOTER, SCHEMA, CHANNEL, MESSAGE, CHUNK = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
MESSAGE_INDEX, CHUNK_INDEX, ATTACHMENT, ATTACHMENT_INDEX = 0x07, 0x08, 0x09, 0x0A
STATISTICS, METADATA, METADATA_INDEX, SUMMARY_OFFSET, DATA_END = (
    0x0B,
    0x0C,
    0x0D,
    0x0E,
    0x0F,
)

# The suite's feature codes, in the order its variant generator combines them.
FEATURES = ("ch", "mx", "st", "rsh", "rch", "ax", "mdx", "chx", "sum", "pad")

# What the suite's builder appends to every record it may pad.
PADDING = b"\x01\xff\xff"


@dataclass(frozen=True)
class Schema:
    """A schema record."""

    id: int
    name: str
    encoding: str
    data: bytes


@dataclass(frozen=True)
class Channel:
    """A channel record."""

    id: int
    topic: str
    schema_id: int
    message_encoding: str
    metadata: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Message:
    """A message record."""

    channel_id: int
    sequence: int
    log_time: int
    publish_time: int
    data: bytes


@dataclass(frozen=True)
class Attachment:
    """An attachment record."""

    name: str
    media_type: str
    log_time: int
    create_time: int
    data: bytes


@dataclass(frozen=True)
class Metadata:
    """A metadata record."""

    name: str
    metadata: tuple[tuple[str, str], ...]


Record = Schema | Channel | Message | Attachment | Metadata


@dataclass(frozen=True)
class Variant:
    """One file of the suite: its name, features and records."""

    base_name: str
    name: str
    features: frozenset[str]
    records: tuple[Record, ...]


def _text(value: str) -> bytes:
    raw = value.encode()
    return struct.pack("<I", len(raw)) + raw


def _string_map(pairs: tuple[tuple[str, str], ...]) -> bytes:
    body = b"".join(_text(key) + _text(value) for key, value in pairs)
    return struct.pack("<I", len(body)) + body


class _Builder:
    """Appends records; pads those the suite's builder pads when asked."""

    def __init__(self, pad: bool) -> None:
        self.buffer = bytearray()
        self.pad = pad

    def record(self, opcode: int, body: bytes, paddable: bool = True) -> int:
        if paddable and self.pad:
            body += PADDING
        self.buffer += struct.pack("<BQ", opcode, len(body)) + body
        return 9 + len(body)

    def schema(self, s: Schema) -> int:
        body = struct.pack("<H", s.id) + _text(s.name) + _text(s.encoding)
        return self.record(SCHEMA, body + struct.pack("<I", len(s.data)) + s.data)

    def channel(self, c: Channel) -> int:
        body = struct.pack("<HH", c.id, c.schema_id) + _text(c.topic)
        return self.record(
            CHANNEL, body + _text(c.message_encoding) + _string_map(c.metadata)
        )

    def message(self, m: Message) -> int:
        head = struct.pack(
            "<HIQQ", m.channel_id, m.sequence, m.log_time, m.publish_time
        )
        return self.record(MESSAGE, head + m.data, paddable=False)

    def attachment(self, a: Attachment) -> int:
        body = (
            struct.pack("<QQ", a.log_time, a.create_time)
            + _text(a.name)
            + _text(a.media_type)
        )
        body += struct.pack("<Q", len(a.data)) + a.data
        return self.record(ATTACHMENT, body + struct.pack("<I", zlib.crc32(body)))

    def metadata(self, m: Metadata) -> int:
        return self.record(METADATA, _text(m.name) + _string_map(m.metadata))


@dataclass
class _Chunk:
    builder: _Builder
    index: dict[int, list[tuple[int, int]]] | None
    start: int = 0
    end: int = 0
    count: int = 0

    def add(self, record: Record) -> None:
        if isinstance(record, Schema):
            self.builder.schema(record)
        elif isinstance(record, Channel):
            if self.index is not None:
                self.index.setdefault(record.id, [])
            self.builder.channel(record)
        elif isinstance(record, Message):
            if self.count == 0 or record.log_time < self.start:
                self.start = record.log_time
            if self.count == 0 or record.log_time > self.end:
                self.end = record.log_time
            if self.index is not None:
                offset = len(self.builder.buffer)
                self.index.setdefault(record.channel_id, []).append(
                    (record.log_time, offset)
                )
            self.count += 1
            self.builder.message(record)


class _FileWriter:
    """One variant's file, laid out as the suite's generator lays it out."""

    def __init__(self, features: frozenset[str]) -> None:
        self.features = features
        self.out = _Builder(pad="pad" in features)
        self.chunk = (
            _Chunk(_Builder(pad=False), {} if "mx" in features else None)
            if "ch" in features
            else None
        )
        self.metadata_indexes: list[bytes] = []
        self.attachment_indexes: list[bytes] = []
        self.chunk_indexes: list[bytes] = []
        self.counts: dict[int, int] = {}
        self.times: list[int] = []
        self.groups: list[tuple[int, int, int]] = []

    def definition(self, record: Schema | Channel | Message) -> None:
        if isinstance(record, Message):
            self.counts[record.channel_id] = self.counts.get(record.channel_id, 0) + 1
            self.times.append(record.log_time)
        if self.chunk is not None:
            self.chunk.add(record)
        elif isinstance(record, Schema):
            self.out.schema(record)
        elif isinstance(record, Channel):
            self.out.channel(record)
        else:
            self.out.message(record)

    def attachment(self, record: Attachment) -> None:
        offset = len(self.out.buffer)
        length = self.out.attachment(record)
        if "ax" in self.features:
            self.attachment_indexes.append(
                struct.pack(
                    "<QQQQQ",
                    offset,
                    length,
                    record.log_time,
                    record.create_time,
                    len(record.data),
                )
                + _text(record.name)
                + _text(record.media_type)
            )

    def metadata(self, record: Metadata) -> None:
        offset = len(self.out.buffer)
        length = self.out.metadata(record)
        if "mdx" in self.features:
            self.metadata_indexes.append(
                struct.pack("<QQ", offset, length) + _text(record.name)
            )

    def close_chunk(self) -> None:
        chunk, out = self.chunk, self.out
        if chunk is None:
            return
        data = bytes(chunk.builder.buffer)
        chunk_start = len(out.buffer)
        head = struct.pack("<QQQI", chunk.start, chunk.end, len(data), zlib.crc32(data))
        body = head + _text("") + struct.pack("<Q", len(data)) + data
        chunk_length = out.record(CHUNK, body, paddable=False)
        offsets = b""
        index_length = 0
        for channel_id, entries in (chunk.index or {}).items():
            offsets += struct.pack("<HQ", channel_id, len(out.buffer))
            body = b"".join(struct.pack("<QQ", t, o) for t, o in entries)
            index_length += out.record(
                MESSAGE_INDEX, struct.pack("<HI", channel_id, len(body)) + body
            )
        if "chx" in self.features:
            self.chunk_indexes.append(
                struct.pack(
                    "<QQQQI",
                    chunk.start,
                    chunk.end,
                    chunk_start,
                    chunk_length,
                    len(offsets),
                )
                + offsets
                + struct.pack("<Q", index_length)
                + _text("")
                + struct.pack("<QQ", len(data), len(data))
            )

    def group(self, opcode: int, bodies: list[bytes]) -> None:
        start = len(self.out.buffer)
        for body in bodies:
            self.out.record(opcode, body)
        if len(self.out.buffer) != start:
            self.groups.append((opcode, start, len(self.out.buffer) - start))

    def statistics(self, records: tuple[Record, ...]) -> bytes:
        def count(kind: type) -> int:
            return sum(1 for record in records if isinstance(record, kind))

        per_channel = b"".join(struct.pack("<HQ", c, n) for c, n in self.counts.items())
        return (
            struct.pack(
                "<QHIIIIQQ",
                count(Message),
                count(Schema),
                count(Channel),
                count(Attachment),
                count(Metadata),
                0 if self.chunk is None else 1,
                min(self.times, default=0),
                max(self.times, default=0),
            )
            + struct.pack("<I", len(per_channel))
            + per_channel
        )

    def repeat(self, records: tuple[Record, ...], kind: type, opcode: int) -> None:
        """Repeat the schemas or channels in the summary, as one group."""
        start = len(self.out.buffer)
        for record in records:
            if isinstance(record, Schema) and kind is Schema:
                self.out.schema(record)
            elif isinstance(record, Channel) and kind is Channel:
                self.out.channel(record)
        if len(self.out.buffer) != start:
            self.groups.append((opcode, start, len(self.out.buffer) - start))

    def summary(self, records: tuple[Record, ...]) -> None:
        out, features = self.out, self.features
        summary_start = len(out.buffer)
        if "rsh" in features:
            self.repeat(records, Schema, SCHEMA)
        if "rch" in features:
            self.repeat(records, Channel, CHANNEL)
        if "st" in features:
            self.group(STATISTICS, [self.statistics(records)])
        self.group(METADATA_INDEX, self.metadata_indexes)
        self.group(ATTACHMENT_INDEX, self.attachment_indexes)
        self.group(CHUNK_INDEX, self.chunk_indexes)
        has_summary = len(out.buffer) != summary_start
        offsets_start = 0
        if "sum" in features:
            offsets_start = len(out.buffer)
            for opcode, start, length in self.groups:
                out.record(SUMMARY_OFFSET, struct.pack("<BQQ", opcode, start, length))
        footer_head = struct.pack(
            "<BQQQ", FOOTER, 20, summary_start if has_summary else 0, offsets_start
        )
        summary_crc = zlib.crc32(footer_head, zlib.crc32(out.buffer[summary_start:]))
        out.buffer += footer_head + struct.pack("<I", summary_crc) + MAGIC


def build_file(features: frozenset[str], records: tuple[Record, ...]) -> bytes:
    """Return the bytes the suite's generator writes for one variant."""
    writer = _FileWriter(features)
    writer.out.buffer += MAGIC
    writer.out.record(HEADER, _text("") + _text(""))
    for record in records:
        if isinstance(record, Attachment):
            writer.attachment(record)
        elif isinstance(record, Metadata):
            writer.metadata(record)
        else:
            writer.definition(record)
    writer.close_chunk()
    out = writer.out
    out.record(DATA_END, struct.pack("<I", zlib.crc32(out.buffer)), paddable=False)
    writer.summary(records)
    return bytes(out.buffer)


def _inputs() -> list[tuple[str, tuple[Record, ...]]]:
    schema = Schema(1, "Example", "c", bytes([4, 5, 6]))
    channel = Channel(1, "example", 1, "a", (("foo", "bar"),))
    ten = tuple(
        Message(1, sequence, t, t, bytes([1, 2, 3]))
        for sequence, t in enumerate((0, 2, 1, 3, 3, 5, 4, 7, 8, 9))
    )
    return [
        ("NoData", ()),
        (
            "OneSchemalessMessage",
            (
                Channel(1, "example", 0, "text", ()),
                Message(1, 10, 2, 1, bytes([1, 2, 3])),
            ),
        ),
        ("OneMessage", (schema, channel, Message(1, 10, 2, 1, bytes([1, 2, 3])))),
        (
            "OneAttachment",
            (Attachment("myFile", "application/octet-stream", 2, 1, bytes([1, 2, 3])),),
        ),
        ("OneMetadata", (Metadata("myMetadata", (("foo", "bar"),)),)),
        ("TenMessages", (schema, channel, *ten)),
    ]


def _combinations(features: tuple[str, ...]) -> Iterator[frozenset[str]]:
    if not features:
        yield frozenset()
        return
    for rest in _combinations(features[1:]):
        yield rest
        yield rest | {features[0]}


def _makes_sense(features: frozenset[str], records: tuple[Record, ...]) -> bool:
    kinds = {type(r) for r in records}
    if "ax" in features and Attachment not in kinds:
        return False
    if "mdx" in features and Metadata not in kinds:
        return False
    if "rsh" in features and Schema not in kinds:
        return False
    if "rch" in features and Channel not in kinds:
        return False
    if not kinds & {Message, Channel, Schema} and features & {"ch", "chx", "mx"}:
        return False
    if "sum" in features and not features & {"chx", "rsh", "rch", "mdx", "ax", "st"}:
        return False
    return not (features & {"chx", "mx"} and "ch" not in features)


def variants() -> Iterator[Variant]:
    """Every variant of the suite, named as its files are."""
    for base_name, records in _inputs():
        for features in _combinations(FEATURES):
            if _makes_sense(features, records):
                name = "-".join([base_name, *sorted(features)])
                yield Variant(base_name, name, features, records)


def write_all(out_dir: Path) -> list[Path]:
    """Write every variant as `<out_dir>/<base>/<name>.mcap`; return the paths."""
    paths = []
    for variant in variants():
        path = out_dir / variant.base_name / f"{variant.name}.mcap"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(build_file(variant.features, variant.records))
        paths.append(path)
    return paths


def _fields(record: dict[str, Any]) -> dict[str, Any]:
    return dict(record["fields"])


def _bytes_of(values: object) -> str:
    return bytes(int(v) for v in values).hex()  # type: ignore[attr-defined]


def expected_contents(records: list[dict[str, object]]) -> dict[str, object]:
    """Return what a reader should find in a file, from the suite's expected records.

    Topics with their schema, messages in file order, attachments and
    metadata; records the summary repeats count once.
    """
    schemas: dict[str, dict[str, object]] = {}
    topics: dict[str, dict[str, object]] = {}
    messages, attachments, metadata = [], [], []
    for record in records:
        kind, fields = record["type"], _fields(record)
        if kind == "Schema":
            schemas[str(fields["id"])] = fields
        elif kind == "Channel" and str(fields["id"]) not in topics:
            schema = schemas.get(str(fields["schema_id"]), {})
            topics[str(fields["id"])] = {
                "topic": fields["topic"],
                "message_encoding": fields["message_encoding"],
                "metadata": fields["metadata"],
                "schema_name": schema.get("name", ""),
                "schema_encoding": schema.get("encoding", ""),
                "schema_data": _bytes_of(schema.get("data", [])),
            }
        elif kind == "Message":
            messages.append(
                [
                    int(str(fields[k]))
                    for k in ("channel_id", "sequence", "log_time", "publish_time")
                ]
                + [_bytes_of(fields["data"])]
            )
        elif kind == "Attachment":
            attachments.append(
                [
                    fields["name"],
                    fields["media_type"],
                    int(str(fields["log_time"])),
                    int(str(fields["create_time"])),
                    _bytes_of(fields["data"]),
                ]
            )
        elif kind == "Metadata":
            metadata.append([fields["name"], fields["metadata"]])
    return {
        "topics": topics,
        "messages": messages,
        "attachments": attachments,
        "metadata": metadata,
    }


def write_expected(suite_data: Path, out_json: Path) -> None:
    """Gather the suite's pointers and expected records into one small file."""
    files: dict[str, dict[str, object]] = {}
    contents: dict[str, dict[str, object]] = {}
    for pointer in sorted(suite_data.rglob("*.mcap")):
        text = pointer.read_text()
        found = re.search(r"oid sha256:([0-9a-f]{64})\nsize (\d+)", text)
        if found is None:
            sys.exit(f"{pointer}: not a large-file pointer")
        expected = json.loads(pointer.with_suffix(".json").read_text())
        summary = expected_contents(expected["records"])
        key = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()[
            :12
        ]
        contents[key] = summary
        files[pointer.stem] = {
            "sha256": found.group(1),
            "size": int(found.group(2)),
            "contents": key,
        }
    out_json.write_text(
        json.dumps({"files": files, "contents": contents}, indent=1, sort_keys=True)
        + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    """Write the files, or the expectations; return the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) == 3 and args[0] == "--expected":
        write_expected(Path(args[1]), Path(args[2]))
    elif len(args) == 1:
        written = write_all(Path(args[0]))
        print(f"wrote {len(written)} files under {args[0]}")
    else:
        print(
            "usage: mcap_conformance.py OUT_DIR | --expected SUITE_DATA_DIR OUT_JSON",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
