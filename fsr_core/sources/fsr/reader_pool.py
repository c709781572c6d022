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
refused with a message that says to reload it. A reader of a file the pool
already has a reader of (idle, lent out, or the one the model was built
with, handed over by :meth:`ReaderPool.adopt`) is that reader's
:meth:`~fsr_core.format.reader.FsrReader.twin`: a new descriptor sharing the
validated record index, so an hour-long recording is validated and indexed
in memory once, however many threads read it. Two threads opening the same
file at once (the window's open and its playlist check) open it one after
the other: the second twins the first's reader instead of validating and
indexing the file a second time beside it.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from fsr_core.errors import OpenFailedError
from fsr_core.format.reader import FsrReader

__all__ = [
    "IDLE_INDEX_BYTES",
    "IDLE_READERS",
    "FileIdentity",
    "ReaderPool",
    "file_identity",
    "shared_pool",
]

IDLE_READERS: Final = 8
"""Readers (one descriptor each) kept open when no frame is being fetched."""
IDLE_INDEX_BYTES: Final = 512 << 20
"""Record indexes the idle readers may hold in memory at most (the newest
reader stays whatever its size): a batch over many long recordings keeps
one hour-long index, not eight."""

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
        # Any live reader of a file, to twin: a weak reference, so a model
        # dropped with its readers frees its index.
        self._known: weakref.WeakValueDictionary[FileIdentity, FsrReader] = (
            weakref.WeakValueDictionary()
        )
        # Per file being opened: its gate and how many threads hold or wait on it.
        self._gates: dict[FileIdentity, tuple[threading.Lock, int]] = {}

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
            while len(self._idle) > 1 and self._idle_index_bytes() > IDLE_INDEX_BYTES:
                evicted.append(self._idle.pop(0))
        for _, old in evicted:
            old.close()

    def _idle_index_bytes(self) -> int:
        """Memory of the idle readers' indexes, each shared index counted once."""
        counted: list[FsrReader] = []
        for _, idle in self._idle:
            if not any(idle.shares_index_with(other) for other in counted):
                counted.append(idle)
        return sum(idle.index_bytes for idle in counted)

    def adopt(self, identity: FileIdentity, reader: FsrReader) -> None:
        """Keep ``reader`` (opened on ``identity``) as an idle reader of the pool.

        The reader a model was built with is handed over instead of closed,
        so the model's first reads need no second open.
        """
        with self._lock:
            self._known[identity] = reader
        self._give_back(identity, reader)

    def open(self, identity: FileIdentity) -> FsrReader:
        """Return a new reader of ``identity``, the caller's to close.

        A twin of a reader the pool knows of the same file (nothing is
        validated again), else a full open.

        Raises
        ------
        FsrError
            The file cannot be opened or validated, or was replaced on disk.
        """
        return self._open(identity)

    @contextmanager
    def _one_open_at_a_time(self, identity: FileIdentity) -> Iterator[None]:
        """Hold the gate of ``identity``: one thread opens that file at a time."""
        with self._lock:
            gate, users = self._gates.get(identity, (threading.Lock(), 0))
            self._gates[identity] = (gate, users + 1)
        try:
            with gate:
                yield
        finally:
            with self._lock:
                users = self._gates[identity][1] - 1
                if users:
                    self._gates[identity] = (gate, users)
                else:
                    del self._gates[identity]

    def _open(self, identity: FileIdentity) -> FsrReader:
        # Gated, so a second thread finds the first's reader known and twins it.
        with self._one_open_at_a_time(identity):
            return self._open_now(identity)

    def _open_now(self, identity: FileIdentity) -> FsrReader:
        with self._lock:
            known = self._known.get(identity)
        if known is not None:
            reader = known.twin()
        else:
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
        with self._lock:
            self._known.setdefault(identity, reader)
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
