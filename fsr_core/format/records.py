"""Fixed binary structures of the FSR container, each encoded next to its decoder.

All integers are little-endian. Every structure carries a CRC-32 (zlib
polynomial) over its other fields, so a flipped bit in a length, offset or id is
detected instead of misframing the file. ``docs/format.md`` gives the layout
byte by byte; the offsets in the comments below match it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from fsr_core.checksums import crc32 as _crc32
from fsr_core.errors import BadMagicError, CorruptRecordError, UnsupportedVersionError

__all__ = [
    "BATCH_HEADER_SIZE",
    "BATCH_MAGIC",
    "DIRECTORY_DTYPE",
    "ENTRY_DTYPE",
    "ENTRY_SIZE",
    "FILE_MAGIC",
    "FOOTER_HEADER_SIZE",
    "FOOTER_MAGIC",
    "HEADER_SIZE",
    "NO_CALIBRATION",
    "TRAILER_SIZE",
    "BatchHeader",
    "FileHeader",
    "FooterHeader",
    "Trailer",
]

FILE_MAGIC = b"\x89FSR\r\n\x1a\n"
BATCH_MAGIC = b"FSRB"
FOOTER_MAGIC = b"FSRF"
TRAILER_MAGIC = b"FSRT"
TRAILER_END = b"\x89FSREND\n"
FORMAT_MAJOR = 1
NO_CALIBRATION = 0xFFFFFFFF

_FOREIGN_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\x89MCAP", "an MCAP file"),
    (b"PK\x03\x04", "a ZIP archive (also .npz)"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"RRF2", "a Rerun .rrd file"),
    (b"GSTRAJ1", "a Genesis trajectory"),
    (b"\x93NUMPY", "a NumPy .npy file"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"SQLite format 3", "an SQLite database"),
    (b"\x1f\x8b", "a gzip stream"),
)


def crc32(data: bytes | memoryview) -> int:
    """Return the CRC-32 FSR uses everywhere (zlib's polynomial)."""
    return _crc32(data)


def _seal(packed: bytes) -> bytes:
    """Store the CRC-32 of bytes [8, end) of a packed section header at [4, 8)."""
    return packed[:4] + struct.pack("<I", crc32(packed[8:])) + packed[8:]


def _check_magic(data: bytes, magic: bytes, *, section: str, offset: int) -> None:
    """Refuse a batch or footer header that does not start with its 4-byte magic."""
    if data[:4] != magic:
        raise CorruptRecordError(
            f"expected {section} magic {magic.decode()}, found {data[:4]!r}",
            section=section,
            offset=offset,
        )


def _check_seal(data: bytes, crc: int, *, what: str, section: str, offset: int) -> None:
    """Refuse a section header whose bytes [8, end) do not match its stored CRC."""
    actual = crc32(data[8:])
    if actual != crc:
        raise CorruptRecordError(
            f"{what} has CRC 0x{actual:08x}, expected 0x{crc:08x}",
            section=section,
            offset=offset,
        )


def describe_foreign_magic(head: bytes) -> str | None:
    """Name the format ``head`` starts with, when it is a well-known other format."""
    for magic, name in _FOREIGN_MAGIC:
        if head.startswith(magic):
            return name
    return None


_HEADER = struct.Struct("<8sHHIIIII")
HEADER_SIZE = _HEADER.size  # 32


@dataclass(frozen=True)
class FileHeader:
    """The 32-byte header at offset 0, followed by ``metadata_length`` JSON bytes."""

    minor: int
    required_features: int
    optional_features: int
    metadata_length: int
    metadata_crc: int

    def encode(self) -> bytes:
        """Return the header's 32 bytes."""
        body = _HEADER.pack(
            FILE_MAGIC,
            FORMAT_MAJOR,
            self.minor,
            self.required_features,
            self.optional_features,
            self.metadata_length,
            self.metadata_crc,
            0,
        )[:-4]
        return body + struct.pack("<I", crc32(body))

    @classmethod
    def decode(cls, data: bytes) -> FileHeader:
        """Parse and check the header (magic, major version, CRC)."""
        if len(data) < 8 or data[:8] != FILE_MAGIC:
            foreign = describe_foreign_magic(data)
            what = f"this is {foreign}, not FSR" if foreign else "no FSR magic"
            raise BadMagicError(f"bad magic: {what}", section="header", offset=0)
        magic, major, minor, required, optional, length, meta_crc, crc = _HEADER.unpack(
            data
        )
        del magic
        # The major version comes first: another major may lay its header out
        # differently, so its CRC field means nothing to this reader.
        if major != FORMAT_MAJOR:
            raise UnsupportedVersionError(
                f"FSR major version {major} is not supported (this reader reads 1)",
                section="header",
                offset=8,
            )
        if crc32(data[:28]) != crc:
            raise CorruptRecordError(
                f"header has CRC 0x{crc32(data[:28]):08x}, expected 0x{crc:08x}",
                section="header",
                offset=28,
            )
        return cls(minor, required, optional, length, meta_crc)


_BATCH = struct.Struct("<4sIQQIIIIII32s")
BATCH_HEADER_SIZE = _BATCH.size  # 80


@dataclass(frozen=True)
class BatchHeader:
    """The 80-byte header that starts every batch.

    A batch holds records of one stream and one generation: the header, then
    ``record_count`` index entries (``ENTRY_DTYPE``), then (strong profile
    only) one SHA-256 per record, then the body (each record's metadata JSON
    followed by its payload, packed without gaps).
    """

    batch_seq: int
    total_length: int
    stream_id: int
    record_count: int
    generation: int
    body_length: int
    table_crc: int
    digests_crc: int
    body_sha256: bytes

    def encode(self) -> bytes:
        """Return the header's 80 bytes."""
        return _seal(
            _BATCH.pack(
                BATCH_MAGIC,
                0,
                self.batch_seq,
                self.total_length,
                self.stream_id,
                self.record_count,
                self.generation,
                self.body_length,
                self.table_crc,
                self.digests_crc,
                self.body_sha256,
            )
        )

    @classmethod
    def decode(cls, data: bytes, *, offset: int) -> BatchHeader:
        """Parse and check one batch header read at ``offset``."""
        _check_magic(data, BATCH_MAGIC, section="batch", offset=offset)
        _, crc, seq, total, stream_id, count, gen, body, tcrc, dcrc, sha = (
            _BATCH.unpack(data)
        )
        _check_seal(data, crc, what="batch header", section="batch", offset=offset)
        return cls(seq, total, stream_id, count, gen, body, tcrc, dcrc, sha)


_FOOTER = struct.Struct("<4sIQQIIIIQ")
FOOTER_HEADER_SIZE = _FOOTER.size  # 48


@dataclass(frozen=True)
class FooterHeader:
    """The 48-byte header of the footer section.

    It is followed by the footer JSON, the batch directory
    (``DIRECTORY_DTYPE`` rows) and the record index (``ENTRY_DTYPE`` rows: every
    batch's entry table, concatenated in file order).
    """

    batch_count: int
    record_count: int
    json_length: int
    json_crc: int
    directory_crc: int
    index_crc: int
    data_end: int

    @property
    def section_length(self) -> int:
        """Bytes of the whole footer section this header declares (itself included)."""
        return (
            FOOTER_HEADER_SIZE
            + self.json_length
            + self.batch_count * DIRECTORY_DTYPE.itemsize
            + self.record_count * ENTRY_SIZE
        )

    def encode(self) -> bytes:
        """Return the footer header's 48 bytes."""
        return _seal(
            _FOOTER.pack(
                FOOTER_MAGIC,
                0,
                self.batch_count,
                self.record_count,
                self.json_length,
                self.json_crc,
                self.directory_crc,
                self.index_crc,
                self.data_end,
            )
        )

    @classmethod
    def decode(cls, data: bytes, *, offset: int) -> FooterHeader:
        """Parse and check the footer header read at ``offset``."""
        _check_magic(data, FOOTER_MAGIC, section="footer", offset=offset)
        _, crc, batches, records, jlen, jcrc, dcrc, icrc, data_end = _FOOTER.unpack(
            data
        )
        _check_seal(data, crc, what="footer header", section="footer", offset=offset)
        return cls(batches, records, jlen, jcrc, dcrc, icrc, data_end)


_TRAILER = struct.Struct("<4sIQQ8s")
TRAILER_SIZE = _TRAILER.size  # 32


@dataclass(frozen=True)
class Trailer:
    """The 32 bytes at the very end of a sealed file; they locate the footer."""

    footer_offset: int
    footer_length: int

    def encode(self) -> bytes:
        """Return the trailer's 32 bytes."""
        return _seal(
            _TRAILER.pack(
                TRAILER_MAGIC, 0, self.footer_offset, self.footer_length, TRAILER_END
            )
        )

    @classmethod
    def decode(cls, data: bytes, *, offset: int) -> Trailer:
        """Parse and check the trailer read at ``offset``."""
        magic, crc, footer_offset, footer_length, end = _TRAILER.unpack(data)
        if magic != TRAILER_MAGIC or end != TRAILER_END:
            raise CorruptRecordError(
                "no FSR trailer at the end of the file",
                section="trailer",
                offset=offset,
            )
        _check_seal(data, crc, what="trailer", section="trailer", offset=offset)
        return cls(footer_offset, footer_length)


# One index entry per record (64 bytes). The same bytes appear in the batch's
# entry table and in the footer's record index.
ENTRY_DTYPE = np.dtype(
    [
        ("stream_seq", "<u8"),
        ("capture_seq", "<u8"),
        ("tick", "<i8"),
        ("sim_time_s", "<f8"),
        ("generation", "<u4"),
        ("calibration_ref", "<u4"),
        ("body_offset", "<u4"),
        ("meta_length", "<u4"),
        ("payload_length", "<u4"),
        ("stream_id", "<u2"),
        ("flags", "<u2"),
        ("raw_length", "<u4"),
        ("record_crc", "<u4"),
    ]
)
ENTRY_SIZE = ENTRY_DTYPE.itemsize  # 64

# One directory row per batch (32 bytes).
DIRECTORY_DTYPE = np.dtype(
    [
        ("offset", "<u8"),
        ("total_length", "<u8"),
        ("first_row", "<u8"),
        ("stream_id", "<u4"),
        ("record_count", "<u4"),
    ]
)
assert ENTRY_SIZE == 64
assert DIRECTORY_DTYPE.itemsize == 32
