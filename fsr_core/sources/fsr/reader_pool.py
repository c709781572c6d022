"""A small pool of open readers for camera frames: a playlist never runs out of fds.

A :class:`~fsr_core.recording.RecordingModel` lives as long as its playlist
entry, but a file descriptor must not: a playlist of hundreds of recordings
would otherwise hold one descriptor per camera reader and file, and past the
process limit (``ulimit -n``) good files could no longer be opened. A camera
frame is fetched through a reader checked out of this pool; when the fetch is
done the reader goes back, and at most :data:`IDLE_READERS` idle readers stay
open (the least recently used is closed first). A reader is used by one thread
at a time: checked out, it belongs to the fetching thread alone.

A reader is reopened from the path only when the file is still the one the
model was built from (same device and inode); a file replaced on disk is
refused with a message that says to reload it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from fsr_core.errors import OpenFailedError
from fsr_core.format.reader import FsrReader

__all__ = ["IDLE_READERS", "FileIdentity", "ReaderPool", "file_identity", "shared_pool"]

IDLE_READERS: Final = 8
"""Readers (one descriptor each) kept open when no frame is being fetched."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class FileIdentity:
    """Which file a model was built from: path, open mode, inode, size and mtime.

    Size and modification time catch a file rewritten in place (same inode).
    """

    path: str
    recover: bool
    device: int
    inode: int
    size: int
    mtime_ns: int


def file_identity(path: Path, *, recover: bool) -> FileIdentity:
    """Return the identity of the file at ``path`` now (``lstat``: no symlinks)."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise OpenFailedError(
            f"cannot stat: {exc.strerror}", errno=exc.errno, path=path
        ) from exc
    return FileIdentity(
        str(path), recover, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns
    )


class ReaderPool:
    """Open readers by file, lent out one fetch at a time."""

    def __init__(self, capacity: int = IDLE_READERS) -> None:
        if capacity < 0:
            raise ValueError("capacity must not be negative")
        self._capacity = capacity
        self._lock = threading.Lock()
        self._idle: list[tuple[FileIdentity, FsrReader]] = []  # oldest first

    @property
    def idle_count(self) -> int:
        """Readers open and waiting (each holds one descriptor)."""
        with self._lock:
            return len(self._idle)

    def _take(self, identity: FileIdentity) -> FsrReader | None:
        with self._lock:
            for index in range(len(self._idle) - 1, -1, -1):
                if self._idle[index][0] == identity:
                    return self._idle.pop(index)[1]
        return None

    def _give_back(self, identity: FileIdentity, reader: FsrReader) -> None:
        with self._lock:
            self._idle.append((identity, reader))
            evicted = self._idle[: max(len(self._idle) - self._capacity, 0)]
            del self._idle[: len(evicted)]
        for _, old in evicted:
            old.close()

    def _open(self, identity: FileIdentity) -> FsrReader:
        reader = FsrReader.open(identity.path, recover=identity.recover)
        try:
            now = file_identity(Path(identity.path), recover=identity.recover)
        except BaseException:
            reader.close()
            raise
        if (now.device, now.inode) != (identity.device, identity.inode):
            reader.close()
            raise OpenFailedError(
                "replaced on disk since it was opened: reload it to see the new file",
                path=identity.path,
            )
        return reader

    @contextmanager
    def lend(self, identity: FileIdentity) -> Iterator[FsrReader]:
        """Lend a reader of ``identity`` for one use; it comes back afterwards."""
        reader = self._take(identity) or self._open(identity)
        try:
            yield reader
        finally:
            self._give_back(identity, reader)

    def use(self, identity: FileIdentity, work: Callable[[FsrReader], _T]) -> _T:
        """Return ``work(reader)`` with a reader of ``identity`` lent for it."""
        with self.lend(identity) as reader:
            return work(reader)

    def close_all(self) -> None:
        """Close every idle reader (readers lent out close when they come back)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for _, reader in idle:
            reader.close()


_SHARED = ReaderPool()


def shared_pool() -> ReaderPool:
    """Return the process-wide pool every FSR model's cameras fetch through."""
    return _SHARED
