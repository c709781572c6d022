"""The part of following a file that every format shares.

A :class:`Follower` holds one read-only descriptor of the file (opened
``O_RDONLY | O_NOFOLLOW | O_NONBLOCK``, never locked, never written) and the
offset up to which it has consumed the file. Each :meth:`Follower.poll`
reads the bytes appended since the last poll, exactly once, and hands them
to the format's :meth:`Follower.consume`, which takes the whole records
they complete and keeps the rest for the next poll. Then it decides the
state:

* ``finished``: the format's end (FSR footer, MCAP footer, Genesis LAST
  record) was read; the caller verifies the file once;
* ``cut``: bytes after the last record are not a record (garbage), shown as
  a cut at that byte, never an error;
* ``gone``: the file shrank (truncated), or its name now names another file
  or nothing (replaced, renamed, removed); following stops and says so;
* ``stopped``: nothing was appended for :attr:`quiet_s` seconds and the end
  was not written: "writer stopped at ..." (it grows again if the writer
  resumes);
* ``growing`` otherwise.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError, NotRegularFileError, OpenFailedError
from fsr_core.format.safe_open import pread_upto
from fsr_core.sources.live.growing import LiveRecording

__all__ = ["Appended", "FollowState", "FollowStatus", "Follower", "Progress"]

_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_READ_PIECE: Final = 64 << 20
"""Most bytes one poll reads; the rest waits for the next poll."""


class FollowState(StrEnum):
    """Where following a file stands."""

    GROWING = "growing"
    STOPPED = "stopped"
    FINISHED = "finished"
    CUT = "cut"
    GONE = "gone"

    @property
    def final(self) -> bool:
        """Whether following has ended (nothing more will be read)."""
        return self in (FollowState.FINISHED, FollowState.CUT, FollowState.GONE)


@dataclass(frozen=True)
class FollowStatus:
    """The state and a line saying it."""

    state: FollowState
    message: str


@dataclass(frozen=True)
class Appended:
    """What one poll added."""

    records: int
    bytes_read: int
    status: FollowStatus


@dataclass(frozen=True)
class Progress:
    """What :meth:`Follower.consume` made of the bytes it was given."""

    used: int
    """Bytes taken (whole records); the rest is kept for the next poll."""
    records: int
    finished: bool = False
    cut: str = ""
    """Non-empty: the bytes at ``used`` are not a record (why)."""


class Follower:
    """Follow one file; subclasses read their format in :meth:`consume`."""

    source = ""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        quiet_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.quiet_s = quiet_s
        self._clock = clock
        try:
            self._fd = os.open(self.path, _FLAGS)
        except OSError as exc:
            raise OpenFailedError(
                f"cannot follow: {exc.strerror}", errno=exc.errno, path=self.path
            ) from exc
        info = os.fstat(self._fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(self._fd)
            raise NotRegularFileError("can follow only a regular file", path=self.path)
        self._identity = (info.st_dev, info.st_ino)
        self.model = LiveRecording(self.path, self.source)
        self._read_to = 0
        self._pending = b""
        self._last_growth = clock()
        self._status = FollowStatus(FollowState.GROWING, "waiting for data")

    # ----------------------------------------------------------------- subclass
    def consume(self, data: bytes, offset: int) -> Progress:
        """Take the whole records at the start of ``data`` (file offset ``offset``)."""
        raise NotImplementedError

    @classmethod
    def end_written(cls, path: Path) -> bool:
        """Whether the format's end is written (a cheap look at the file's end)."""
        return True

    def published_path(self) -> Path:
        """Where the finished file is (the FSR writer's final name)."""
        return self.path

    def shown_name(self) -> str:
        """Return the recording's name as shown (an FSR staging file's final name)."""
        return self.path.name

    # -------------------------------------------------------------------- state
    @property
    def status(self) -> FollowStatus:
        """The state after the last poll."""
        return self._status

    @property
    def consumed(self) -> int:
        """Bytes taken as whole records (the trusted prefix)."""
        return self._read_to - len(self._pending)

    @property
    def idle_s(self) -> float:
        """Seconds since the file last grew."""
        return self._clock() - self._last_growth

    def close(self) -> None:
        """Release the descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Follower:
        """Return self."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close."""
        self.close()

    # --------------------------------------------------------------------- poll
    def poll(self) -> Appended:
        """Read what was appended since the last poll; return what it added."""
        if self._status.state.final or self._fd < 0:
            return Appended(0, 0, self._status)
        size = os.fstat(self._fd).st_size
        if size < self._read_to:
            return self._stop(
                FollowState.GONE,
                f"the file was truncated ({self._read_to} -> {size} bytes); "
                "following stopped",
            )
        records, got = self._read_new(size)
        if self._status.state.final:
            return Appended(records, got, self._status)
        problem = self._name_problem()
        if problem:
            # The writer may have sealed and renamed it since the read.
            more, extra = self._read_new(os.fstat(self._fd).st_size)
            records, got = records + more, got + extra
            if not self._status.state.final:
                self._stop(FollowState.GONE, f"{problem}; following stopped")
            return Appended(records, got, self._status)
        if got:
            self._last_growth = self._clock()
        self._status = self._quiet_status()
        return Appended(records, got, self._status)

    def _read_new(self, size: int) -> tuple[int, int]:
        """Read and consume ``read_to..size``; return (records, bytes read)."""
        if size <= self._read_to:
            return 0, 0
        length = min(size - self._read_to, _READ_PIECE)
        check_budget(MEMORY, 2.0 * (len(self._pending) + length), "a live read")
        data = self._pread(self._read_to, length)
        self._read_to += len(data)
        buffer = self._pending + data if self._pending else data
        start = self._read_to - len(buffer)
        with self.model.lock:
            try:
                progress = self.consume(buffer, start)
            except FsrError as exc:
                progress = Progress(0, 0, cut=exc.reason)
            self.model.records += progress.records
        self._pending = buffer[progress.used :]
        if progress.finished:
            self._stop(FollowState.FINISHED, self._finished_message())
        elif progress.cut:
            self._stop(
                FollowState.CUT,
                f"cut at byte {self.consumed}: {progress.cut}{self._shown_up_to()}",
            )
        return progress.records, len(data)

    def _pread(self, offset: int, length: int) -> bytes:
        try:
            return pread_upto(self._fd, offset, length)
        except OSError as exc:
            raise OpenFailedError(
                f"read failed: {exc.strerror}", errno=exc.errno, path=self.path
            ) from exc

    def _name_problem(self) -> str:
        """Why the followed name no longer names this file ('' when it does)."""
        try:
            found = self.path.lstat()
        except FileNotFoundError:
            return "the file was renamed or removed"
        except OSError as exc:
            return f"the file cannot be looked at ({exc.strerror})"
        if (found.st_dev, found.st_ino) != self._identity:
            return "the file was replaced by another file"
        return ""

    def _quiet_status(self) -> FollowStatus:
        if self.idle_s >= self.quiet_s and self.model.records > 0:
            return FollowStatus(
                FollowState.STOPPED,
                f"writer stopped at {self._newest_text()} "
                f"(nothing appended for {self.idle_s:.0f} s)",
            )
        if self.model.records == 0:
            return FollowStatus(FollowState.GROWING, "waiting for the first record")
        return FollowStatus(FollowState.GROWING, f"live: {self.model.records} records")

    def _stop(self, state: FollowState, message: str) -> Appended:
        self._status = FollowStatus(state, message)
        return Appended(0, 0, self._status)

    def _newest_text(self) -> str:
        end = self.model.end_s
        return "the start" if end is None else f"{end:.3f} s"

    def _shown_up_to(self) -> str:
        end = self.model.end_s
        return "" if end is None else f" (shown up to {end:.3f} s)"

    def _finished_message(self) -> str:
        return (
            f"the writer finished: {self.model.records} records, "
            f"{self.model.span_s:.3f} s"
        )
