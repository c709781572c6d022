"""The single exception hierarchy of FSR Viewer's core.

Every data problem raises a subclass of :class:`FsrError`. Messages are built in
``__init__`` from structured fields, which stay available as attributes so tools
and the GUI can show where a problem sits (file, section, stream, record, byte
offset) without parsing text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

__all__ = [
    "AdapterError",
    "AdapterUnavailableError",
    "BadMagicError",
    "CalibrationError",
    "CompareError",
    "CorruptRecordError",
    "DecodeError",
    "DigestMismatchError",
    "FormatError",
    "FsrError",
    "IndexCorruptionError",
    "IndexFileError",
    "LimitExceededError",
    "NotRegularFileError",
    "OpenFailedError",
    "ReplayError",
    "ResourceError",
    "RobotModelError",
    "SchemaError",
    "SeekOutOfRangeError",
    "SourceUnavailableError",
    "StreamNotFoundError",
    "SymlinkRefusedError",
    "TargetExistsError",
    "TruncatedFileError",
    "UnknownSourceError",
    "UnsupportedVersionError",
    "WriteFailedError",
    "WriterStateError",
]


class FsrError(Exception):
    """Root of every error FSR Viewer raises for bad data or failed I/O.

    Parameters
    ----------
    reason
        What failed, in a few words.
    path
        The file concerned, when known.
    section
        The part of the file (``header``, ``metadata``, ``batch``, ``footer`` ...).
    stream
        The stream name, when the problem belongs to one stream.
    record
        The record's per-stream sequence number, or batch number for batches.
    offset
        Absolute byte offset in the file where the problem was found.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | Path | None = None,
        section: str | None = None,
        stream: str | None = None,
        record: int | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = reason
        self.path = None if path is None else str(path)
        self.section = section
        self.stream = stream
        self.record = record
        self.offset = offset
        super().__init__(self._compose())

    def _compose(self) -> str:
        where: list[str] = []
        if self.section is not None:
            where.append(self.section)
        if self.stream is not None:
            where.append(f"stream {self.stream!r}")
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        head = f"{self.path}: " if self.path else ""
        loc = f" ({', '.join(where)})" if where else ""
        return f"{head}{self.reason}{loc}"

    def with_path(self, path: str | Path) -> FsrError:
        """Return this error with ``path`` filled in when it was unknown."""
        return self.locate(path=path)

    def locate(
        self,
        *,
        path: str | Path | None = None,
        section: str | None = None,
        stream: str | None = None,
        record: int | None = None,
        offset: int | None = None,
    ) -> FsrError:
        """Fill in location fields that are still unknown and return ``self``."""
        if self.path is None and path is not None:
            self.path = str(path)
        if self.section is None:
            self.section = section
        if self.stream is None:
            self.stream = stream
        if self.record is None:
            self.record = record
        if self.offset is None:
            self.offset = offset
        self.args = (self._compose(),)
        return self


class FormatError(FsrError):
    """The bytes do not form a valid FSR container."""


class BadMagicError(FormatError):
    """The file does not start with the FSR magic (it may be another format)."""


class UnknownSourceError(BadMagicError):
    """No recording source recognises the file (the message lists the known kinds)."""


class UnsupportedVersionError(FormatError):
    """The file's major version (or a required feature) is not supported."""


class TruncatedFileError(FormatError):
    """The file ends before a section it declares."""


class CorruptRecordError(FormatError):
    """A checksum, digest, length or sequence check failed."""


class IndexCorruptionError(FormatError):
    """The index or footer disagrees with the batches it describes."""


class SchemaError(FormatError):
    """Metadata or a stream definition is well formed JSON but not valid FSR."""


class LimitExceededError(FormatError):
    """A declared size, count or depth is beyond the reader's configured limit."""


class _SystemError(FsrError):
    """An error the operating system reported; ``errno`` is its code when known."""

    def __init__(
        self,
        reason: str,
        *,
        errno: int | None = None,
        path: str | Path | None = None,
        section: str | None = None,
        offset: int | None = None,
    ) -> None:
        self.errno = errno
        super().__init__(reason, path=path, section=section, offset=offset)

    @classmethod
    def from_os_error(
        cls, doing: str, exc: OSError, path: str | Path, *, then: str = ""
    ) -> Self:
        """Return the error for ``exc`` met while ``doing``: its words and errno.

        The reason reads ``"<doing>: <strerror><then>"``.
        """
        return cls(f"{doing}: {exc.strerror or exc}{then}", errno=exc.errno, path=path)


class OpenFailedError(_SystemError):
    """The operating system refused to open or read the file."""


class NotRegularFileError(OpenFailedError):
    """The path names a FIFO, device, socket or directory, not a regular file."""


class SymlinkRefusedError(OpenFailedError):
    """The final path component is a symbolic link."""


class SeekOutOfRangeError(FsrError):
    """A seek asked for a position that the stream does not have."""


class StreamNotFoundError(FsrError):
    """No stream (or camera) with the requested name exists."""


class SourceUnavailableError(FsrError):
    """A recording source cannot do this here: a missing extra, or no such operation."""


class DecodeError(FsrError):
    """A payload could not be decoded as its stream declares."""


class CalibrationError(FsrError):
    """Calibration records are missing, inconsistent or referenced wrongly."""


class CompareError(FsrError):
    """Two recordings cannot be compared (no channel in common, no common time).

    Both files are kept as attributes and named in the message.
    """

    def __init__(
        self, reason: str, *, reference: str | Path, candidate: str | Path
    ) -> None:
        self.reference = str(reference)
        self.candidate = str(candidate)
        super().__init__(reason)

    def _compose(self) -> str:
        return f"cannot compare {self.reference} with {self.candidate}: {self.reason}"


class WriterStateError(FsrError):
    """The writer was used out of order (for example, adding after ``finish``)."""


class WriteFailedError(_SystemError):
    """Writing, syncing or publishing the output failed."""


class TargetExistsError(WriteFailedError):
    """The output's final name already exists; it is never overwritten."""


class AdapterError(FsrError):
    """A simulator adapter failed."""


class AdapterUnavailableError(AdapterError):
    """A simulator adapter's package is not installed or cannot run here."""


class ReplayError(AdapterError):
    """A replay (render or resimulate) could not be prepared or run."""


class ResourceError(FsrError):
    """An asset the program ships (palette, style sheet, icon) is missing or invalid."""


class RobotModelError(FsrError):
    """A robot description (URDF, MJCF) is malformed, too big, or cannot be used.

    A mesh it names that is missing or over its budget is not this error: that
    link is drawn as a frame and the model says so in its warnings.
    """


class IndexFileError(FsrError):
    """A playlist index is malformed, too big, of another schema, or leaves its folder.

    ``docs/index-format.md`` gives the schema and its rules.
    """


class DigestMismatchError(FsrError):
    """A recording differs from the size or SHA-256 its index recorded."""
