"""Take a valid FSR file apart and put it back together with correct checksums.

The hostile cases need files that are wrong in exactly one way: metadata that
is valid UTF-8 with a correct CRC but not canonical, a batch header whose CRC
matches its wrong length, a footer whose CRCs match a directory that overlaps.
:class:`FsrFile` holds the sections of a file as plain values; :meth:`build`
lays them out again and recomputes every offset, length and CRC, so the one
defect a test puts in is the only thing the reader can complain about.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsr_core.format.records import (
    BATCH_HEADER_SIZE,
    DIRECTORY_DTYPE,
    ENTRY_DTYPE,
    ENTRY_SIZE,
    FILE_MAGIC,
    FOOTER_HEADER_SIZE,
    HEADER_SIZE,
    TRAILER_SIZE,
    BatchHeader,
    FileHeader,
    FooterHeader,
    Trailer,
    crc32,
)

DIGEST_SIZE = 32
_HEADER = struct.Struct("<8sHHIIIII")


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes, written independently of the code under test."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.encode("utf-8")


def encode_header(
    *,
    major: int = 1,
    minor: int,
    required: int = 0,
    optional: int = 0,
    metadata_length: int,
    metadata_crc: int,
) -> bytes:
    """Encode the 32-byte file header with a correct CRC (any major version)."""
    body = _HEADER.pack(
        FILE_MAGIC, major, minor, required, optional, metadata_length, metadata_crc, 0
    )[:-4]
    return body + struct.pack("<I", crc32(body))


@dataclass(frozen=True)
class BatchView:
    """One batch split into its parts (header, entry table, digests, body)."""

    header: BatchHeader
    table: bytes
    digests: bytes
    body: bytes

    @classmethod
    def parse(cls, blob: bytes, *, strong: bool) -> BatchView:
        """Split a complete batch."""
        header = BatchHeader.decode(blob[:BATCH_HEADER_SIZE], offset=0)
        count = header.record_count
        table_end = BATCH_HEADER_SIZE + count * ENTRY_SIZE
        digest_end = table_end + (count * DIGEST_SIZE if strong else 0)
        return cls(
            header,
            blob[BATCH_HEADER_SIZE:table_end],
            blob[table_end:digest_end],
            blob[digest_end:],
        )

    def encode(self) -> bytes:
        """Return the batch bytes (``BatchHeader.encode`` recomputes the CRC)."""
        return self.header.encode() + self.table + self.digests + self.body


@dataclass
class FsrFile:
    """The sections of an FSR file, editable, rebuilt with :meth:`build`."""

    minor: int
    required_features: int
    optional_features: int
    metadata: bytes
    batches: list[bytes]
    footer_json: bytes
    entries: np.ndarray
    major: int = 1
    extra: bytes = b""
    directory_override: np.ndarray | None = None
    footer_fields: dict[str, int] = field(default_factory=dict)
    trailer_fields: dict[str, int] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: bytes) -> FsrFile:
        """Split a valid, sealed file."""
        header = FileHeader.decode(data[:HEADER_SIZE])
        metadata = data[HEADER_SIZE : HEADER_SIZE + header.metadata_length]
        trailer = Trailer.decode(data[-TRAILER_SIZE:], offset=len(data) - TRAILER_SIZE)
        start = trailer.footer_offset
        head = FooterHeader.decode(
            data[start : start + FOOTER_HEADER_SIZE], offset=start
        )
        position = start + FOOTER_HEADER_SIZE
        footer_json = data[position : position + head.json_length]
        position += head.json_length
        directory = np.frombuffer(
            data, DIRECTORY_DTYPE, head.batch_count, position
        ).copy()
        position += head.batch_count * DIRECTORY_DTYPE.itemsize
        entries = np.frombuffer(data, ENTRY_DTYPE, head.record_count, position).copy()
        batches = [
            data[int(row["offset"]) : int(row["offset"]) + int(row["total_length"])]
            for row in directory
        ]
        return cls(
            minor=header.minor,
            required_features=header.required_features,
            optional_features=header.optional_features,
            metadata=metadata,
            batches=batches,
            footer_json=footer_json,
            entries=entries,
        )

    # ---------------------------------------------------------------- queries
    @property
    def document(self) -> Any:
        """The metadata JSON, parsed leniently."""
        return json.loads(self.metadata)

    @property
    def strong(self) -> bool:
        """Whether batches carry a per-record digest table."""
        return self.minor == 0

    @property
    def data_start(self) -> int:
        """Offset of the first batch."""
        return HEADER_SIZE + len(self.metadata)

    def view(self, batch: int) -> BatchView:
        """Batch ``batch`` split into parts."""
        return BatchView.parse(self.batches[batch], strong=self.strong)

    def batch_offsets(self) -> list[int]:
        """Absolute offset of every batch as :meth:`build` lays them out."""
        offsets, position = [], self.data_start
        for blob in self.batches:
            offsets.append(position)
            position += len(blob)
        return offsets

    def first_rows(self) -> list[int]:
        """Index row of each batch's first record."""
        rows, first = [], 0
        for number in range(len(self.batches)):
            rows.append(first)
            first += self.view(number).header.record_count
        return rows

    def stream_id(self, name: str) -> int:
        """Return the id of the stream called ``name``."""
        for entry in self.document["streams"]:
            if entry["name"] == name:
                return int(entry["id"])
        raise KeyError(name)

    def rows_of(self, name: str) -> np.ndarray:
        """Index rows of the stream ``name``, in file order."""
        return np.flatnonzero(self.entries["stream_id"] == self.stream_id(name))

    def batch_of_row(self, row: int) -> int:
        """Return the batch holding index row ``row``."""
        firsts = self.first_rows()
        return int(np.searchsorted(firsts, row, side="right")) - 1

    def record_offset(self, row: int) -> int:
        """Absolute offset of the record (metadata then payload) of ``row``."""
        batch = self.batch_of_row(row)
        view = self.view(batch)
        body_start = (
            self.batch_offsets()[batch] + len(self.batches[batch]) - len(view.body)
        )
        return body_start + int(self.entries["body_offset"][row])

    def payload_offset(self, row: int) -> int:
        """Absolute offset of the payload of ``row``."""
        return self.record_offset(row) + int(self.entries["meta_length"][row])

    # ------------------------------------------------------------------ edits
    def set_document(self, document: Any) -> FsrFile:
        """Replace the metadata with the canonical bytes of ``document``."""
        self.metadata = canonical(document)
        return self

    def replace_metadata_text(self, old: bytes, new: bytes) -> FsrFile:
        """Replace one exact occurrence of ``old`` in the metadata bytes."""
        assert self.metadata.count(old) == 1, old
        self.metadata = self.metadata.replace(old, new)
        return self

    def rename_stream(self, old: str, new: str) -> FsrFile:
        """Rename a stream in the metadata and in the footer that names it."""
        document = self.document
        for stream in document["streams"]:
            if stream["name"] == old:
                stream["name"] = new
        self.set_document(document)
        self.footer_json = self.footer_json.replace(canonical(old), canonical(new))
        return self

    def reindex(self) -> FsrFile:
        """Renumber batches in file order and rebuild the index from their tables."""
        tables = []
        for number in range(len(self.batches)):
            view = self.view(number)
            if view.header.batch_seq != number:
                self.edit_batch_header(number, batch_seq=number)
            tables.append(np.frombuffer(view.table, dtype=ENTRY_DTYPE))
        self.entries = np.concatenate(tables)
        return self

    def edit_batch_header(self, batch: int, **changes: Any) -> FsrFile:
        """Change header fields of one batch (its header CRC stays correct)."""
        view = self.view(batch)
        header = dataclasses.replace(view.header, **changes)
        self.batches[batch] = dataclasses.replace(view, header=header).encode()
        return self

    def set_entries(self, entries: np.ndarray, *, tables: bool = True) -> FsrFile:
        """Replace the footer index and (with ``tables``) every batch's own table."""
        self.entries = entries.copy()
        if not tables:
            return self
        for number, first in enumerate(self.first_rows()):
            view = self.view(number)
            table = self.entries[first : first + view.header.record_count].tobytes()
            header = dataclasses.replace(view.header, table_crc=crc32(table))
            self.batches[number] = dataclasses.replace(
                view, header=header, table=table
            ).encode()
        return self

    def edit_record(self, row: int, new_record: bytes) -> FsrFile:
        """Replace the bytes of one record (same length) and fix CRC, digests, SHA."""
        batch = self.batch_of_row(row)
        view = self.view(batch)
        first = self.first_rows()[batch]
        start = int(self.entries["body_offset"][row])
        length = int(self.entries["meta_length"][row]) + int(
            self.entries["payload_length"][row]
        )
        assert len(new_record) == length
        body = view.body[:start] + new_record + view.body[start + length :]
        digests = view.digests
        if self.strong:
            index = row - first
            digest = hashlib.sha256(new_record).digest()
            digests = (
                digests[: index * DIGEST_SIZE]
                + digest
                + digests[(index + 1) * DIGEST_SIZE :]
            )
        header = view.header
        if header.body_sha256 != bytes(DIGEST_SIZE):
            header = dataclasses.replace(
                header, body_sha256=hashlib.sha256(body).digest()
            )
        if self.strong:
            header = dataclasses.replace(header, digests_crc=crc32(digests))
        self.batches[batch] = BatchView(header, view.table, digests, body).encode()
        entries = self.entries.copy()
        entries["record_crc"][row] = crc32(new_record)
        return self.set_entries(entries)

    def record_bytes(self, row: int) -> bytes:
        """Return the current bytes of one record."""
        view = self.view(self.batch_of_row(row))
        start = int(self.entries["body_offset"][row])
        length = int(self.entries["meta_length"][row]) + int(
            self.entries["payload_length"][row]
        )
        return view.body[start : start + length]

    # ------------------------------------------------------------------ build
    def directory(self) -> np.ndarray:
        """Return the batch directory :meth:`build` writes (unless overridden)."""
        if self.directory_override is not None:
            return self.directory_override
        rows = np.zeros(len(self.batches), dtype=DIRECTORY_DTYPE)
        for number, (offset, first) in enumerate(
            zip(self.batch_offsets(), self.first_rows(), strict=True)
        ):
            header = self.view(number).header
            rows[number] = (
                offset,
                len(self.batches[number]),
                first,
                header.stream_id,
                header.record_count,
            )
        return rows

    def build(self) -> bytes:
        """Lay the file out and recompute every offset, length and CRC."""
        header = encode_header(
            major=self.major,
            minor=self.minor,
            required=self.required_features,
            optional=self.optional_features,
            metadata_length=len(self.metadata),
            metadata_crc=crc32(self.metadata),
        )
        data = header + self.metadata + b"".join(self.batches)
        footer_offset = len(data)
        directory = self.directory().tobytes()
        index = self.entries.tobytes()
        fields: dict[str, int] = {
            "batch_count": len(self.directory()),
            "record_count": len(self.entries),
            "json_length": len(self.footer_json),
            "json_crc": crc32(self.footer_json),
            "directory_crc": crc32(directory),
            "index_crc": crc32(index),
            "data_end": footer_offset,
        }
        fields.update(self.footer_fields)
        footer = FooterHeader(**fields).encode() + self.footer_json + directory + index
        trailer_fields = {"footer_offset": footer_offset, "footer_length": len(footer)}
        trailer_fields.update(self.trailer_fields)
        return data + footer + Trailer(**trailer_fields).encode() + self.extra


def batch_ends(data: bytes) -> list[int]:
    """End offset (exclusive) of every batch of a valid file, in file order."""
    parsed = FsrFile.parse(data)
    return [
        offset + len(blob)
        for offset, blob in zip(parsed.batch_offsets(), parsed.batches, strict=True)
    ]
