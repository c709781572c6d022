"""The header and metadata section: profile, run metadata and the stream table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fsr_core.canonical_json import parse_json
from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    SchemaError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.profiles import IntegrityProfile, parse_profile, profile_for_minor
from fsr_core.format.records import FILE_MAGIC, HEADER_SIZE, FileHeader, crc32
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.streams import StreamSpec, check_stream_table

__all__ = ["KNOWN_REQUIRED_FEATURES", "FileMetadata", "read_file_metadata"]

KNOWN_REQUIRED_FEATURES = 0


@dataclass(frozen=True)
class FileMetadata:
    """What the start of a file says: version, profile, metadata, streams."""

    minor: int
    profile: IntegrityProfile
    metadata: dict[str, Any]
    streams: tuple[StreamSpec, ...]
    data_start: int


def read_file_metadata(source: ByteSource, limits: ReaderLimits) -> FileMetadata:
    """Read and validate the header and metadata JSON at the start of ``source``."""
    if source.size == 0:
        raise TruncatedFileError(
            "empty file", path=source.name, section="header", offset=0
        )
    head = source.read_at(0, min(HEADER_SIZE, source.size), section="header")
    if len(head) < HEADER_SIZE and FILE_MAGIC.startswith(head[:8]):
        raise TruncatedFileError(
            "file ends inside the header",
            path=source.name,
            section="header",
            offset=len(head),
        )
    header = FileHeader.decode(head)
    if header.required_features & ~KNOWN_REQUIRED_FEATURES:
        unknown = header.required_features & ~KNOWN_REQUIRED_FEATURES
        raise UnsupportedVersionError(
            f"file needs unknown required features 0x{unknown:08x}",
            section="header",
            offset=12,
        )
    if header.metadata_length > limits.metadata_json.max_bytes:
        raise LimitExceededError(
            f"metadata of {header.metadata_length} bytes exceeds the limit "
            f"of {limits.metadata_json.max_bytes}",
            section="metadata",
            offset=20,
        )
    raw = source.read_at(HEADER_SIZE, header.metadata_length, section="metadata")
    if crc32(raw) != header.metadata_crc:
        raise CorruptRecordError(
            f"metadata has CRC 0x{crc32(raw):08x}, "
            f"expected 0x{header.metadata_crc:08x}",
            section="metadata",
            offset=HEADER_SIZE,
        )
    try:
        document = parse_json(raw, limits=limits.metadata_json, what="metadata")
        profile, streams = _parse_document(document, header.minor, limits)
    except FsrError as exc:
        raise _located(exc, "metadata", HEADER_SIZE) from exc
    return FileMetadata(
        minor=header.minor,
        profile=profile,
        metadata=document.get("metadata", {}),
        streams=streams,
        data_start=HEADER_SIZE + header.metadata_length,
    )


def _located(exc: FsrError, section: str, offset: int) -> FsrError:
    return exc.locate(section=section, offset=offset)


def _parse_document(
    document: Any, minor: int, limits: ReaderLimits
) -> tuple[IntegrityProfile, tuple[StreamSpec, ...]]:
    if not isinstance(document, dict) or "streams" not in document:
        raise SchemaError("metadata must be an object with a stream table")
    major = document.get("major")
    if document.get("format") != "fsr" or type(major) is not int or major != 1:
        raise SchemaError("metadata does not declare format fsr, major 1")
    profile = profile_for_minor(minor, parse_profile(document.get("integrity")))
    if document.get("digest") != "sha256":
        raise SchemaError(
            f"unsupported digest algorithm {document.get('digest')!r} (only sha256)"
        )
    table = document["streams"]
    if not isinstance(table, list):
        raise SchemaError("/streams must be a list")
    if len(table) > limits.max_streams:
        raise LimitExceededError(
            f"{len(table)} streams exceed the limit of {limits.max_streams}"
        )
    specs = [
        StreamSpec.from_json(entry, index=index) for index, entry in enumerate(table)
    ]
    check_stream_table(specs, max_streams=limits.max_streams)
    if not isinstance(document.get("metadata", {}), dict):
        raise SchemaError("/metadata must be an object")
    return profile, tuple(specs)
