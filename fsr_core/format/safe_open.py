"""Open a recording safely and read it through bounded positional reads.

A path is opened with ``O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC``, then
``fstat`` must report a regular file; FIFOs, devices, sockets, directories and
a symlink in the final component are refused before a byte is read. The size is
snapshotted at open and no read goes past it. Files are never memory-mapped (a
file shrinking under a map would kill the process with SIGBUS).
"""

from __future__ import annotations

import errno as errno_codes
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Protocol

from fsr_core.errors import (
    NotRegularFileError,
    OpenFailedError,
    SymlinkRefusedError,
    TruncatedFileError,
)

__all__ = [
    "ByteSource",
    "FdSource",
    "FileObjectSource",
    "check_bounds",
    "open_source",
    "pread_upto",
]

_KIND_NAMES = (
    (stat.S_ISDIR, "directory"),
    (stat.S_ISFIFO, "fifo"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISLNK, "symlink"),
)


class ByteSource(Protocol):
    """What the reader needs from a file: its size and positional reads."""

    name: str
    size: int

    def read_at(self, offset: int, length: int, *, section: str) -> bytes:
        """Return exactly ``length`` bytes at ``offset`` or raise TruncatedFileError."""
        ...

    def sha256(self, check: Callable[[], None] | None = None) -> str:
        """Hex SHA-256 of the first ``size`` bytes; ``check()`` runs between chunks."""
        ...

    def close(self) -> None:
        """Release what the source owns."""
        ...


def check_bounds(
    source: ByteSource,
    offset: int,
    length: int,
    section: str,
    *,
    start: int = 0,
    growing: bool = False,
) -> None:
    """Refuse a read outside bytes ``start`` to ``source.size`` of ``source``.

    ``size`` is what was snapshotted at open; ``growing``: the file is still
    being written, and the message says how much of it is.
    """
    if offset < start or length < 0 or offset + length > source.size:
        has = f"{source.size} are written" if growing else f"the file has {source.size}"
        raise TruncatedFileError(
            f"{section} needs bytes {offset}..{offset + length}, {has}",
            path=source.name,
            section=section,
            offset=offset,
        )


def pread_upto(fd: int, offset: int, length: int) -> bytes:
    """Return up to ``length`` bytes of ``fd`` at ``offset``: fewer where it ends.

    A read interrupted by a signal is tried again; any other ``OSError`` is
    raised.
    """
    chunks: list[bytes] = []
    got = 0
    while got < length:
        try:
            data = os.pread(fd, length - got, offset + got)
        except InterruptedError:
            continue
        if not data:
            break
        chunks.append(data)
        got += len(data)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _hash_chunks(source: ByteSource, check: Callable[[], None] | None) -> str:
    """Hash in 8 MiB chunks, calling ``check()`` (which may raise) before each."""
    digest = hashlib.sha256()
    position = 0
    while position < source.size:
        if check is not None:
            check()
        length = min(8 << 20, source.size - position)
        digest.update(source.read_at(position, length, section="file"))
        position += length
    return digest.hexdigest()


class FdSource:
    """A pinned, regular-file descriptor that this object owns."""

    def __init__(self, fd: int, name: str, size: int) -> None:
        self._fd = fd
        self.name = name
        self.size = size

    @property
    def fd(self) -> int:
        """The pinned descriptor."""
        return self._fd

    def read_at(self, offset: int, length: int, *, section: str) -> bytes:
        """Return exactly ``length`` bytes at ``offset``."""
        check_bounds(self, offset, length, section)
        try:
            data = pread_upto(self._fd, offset, length)
        except OSError as exc:
            raise OpenFailedError(
                f"read failed: {exc.strerror}",
                errno=exc.errno,
                path=self.name,
                section=section,
                offset=offset,
            ) from exc
        if len(data) < length:
            raise TruncatedFileError(
                f"file shrank while open: {section} ends early",
                path=self.name,
                section=section,
                offset=offset + len(data),
            )
        return data

    def sha256(self, check: Callable[[], None] | None = None) -> str:
        """Hex SHA-256 of the first ``size`` bytes; ``check()`` runs between chunks."""
        return _hash_chunks(self, check)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class FileObjectSource:
    """An already-open binary file that stays owned by the caller."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        name = getattr(file, "name", None)
        self.name = name if isinstance(name, str) else "<binary file>"
        try:
            file.seek(0, os.SEEK_END)
            self.size = file.tell()
        except (OSError, ValueError) as exc:
            raise OpenFailedError(
                f"file object is not seekable: {exc}", path=self.name
            ) from exc

    def read_at(self, offset: int, length: int, *, section: str) -> bytes:
        """Return exactly ``length`` bytes at ``offset``."""
        check_bounds(self, offset, length, section)
        try:
            self._file.seek(offset)
            data = self._file.read(length)
        except (OSError, ValueError) as exc:
            raise OpenFailedError(
                f"read failed: {exc}", path=self.name, section=section, offset=offset
            ) from exc
        if len(data) != length:
            raise TruncatedFileError(
                f"file shrank while open: {section} ends early",
                path=self.name,
                section=section,
                offset=offset,
            )
        return bytes(data)

    def sha256(self, check: Callable[[], None] | None = None) -> str:
        """Hex SHA-256 of the first ``size`` bytes; ``check()`` runs between chunks."""
        return _hash_chunks(self, check)

    def close(self) -> None:
        """Nothing to release: the caller owns the file."""


def _kind_of(mode: int) -> str:
    for test, name in _KIND_NAMES:
        if test(mode):
            return name
    return "special file"


def open_source(target: str | os.PathLike[str] | BinaryIO) -> ByteSource:
    """Return a :class:`ByteSource` for a path or an open binary file.

    Raises
    ------
    SymlinkRefusedError
        The final path component is a symbolic link.
    NotRegularFileError
        The path is a FIFO, device, socket or directory.
    OpenFailedError
        Any other refusal by the operating system (permission, missing file).
    """
    if not isinstance(target, str | os.PathLike):
        return FileObjectSource(target)
    path = os.fspath(target)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _open_error(exc, path) from exc
    try:
        info = os.fstat(fd)
        regular = stat.S_ISREG(info.st_mode)
        if regular:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise NotRegularFileError(
            f"not a regular file but a {_kind_of(info.st_mode)}", path=path
        )
    return FdSource(fd, str(Path(path)), info.st_size)


def _open_error(exc: OSError, path: str) -> OpenFailedError:
    code = exc.errno
    if code == errno_codes.ELOOP:
        return SymlinkRefusedError(
            "refusing to follow a symbolic link", errno=code, path=path
        )
    if code == errno_codes.ENXIO:
        return NotRegularFileError(
            "not a regular file (socket or device)", errno=code, path=path
        )
    if code == errno_codes.EISDIR:
        return NotRegularFileError(
            "not a regular file but a directory", errno=code, path=path
        )
    if code == errno_codes.EACCES:
        return OpenFailedError("permission denied", errno=code, path=path)
    if code == errno_codes.ENOENT:
        return OpenFailedError("no such file", errno=code, path=path)
    return OpenFailedError(f"cannot open: {exc.strerror}", errno=code, path=path)
