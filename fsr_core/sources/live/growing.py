"""The growing model a follower appends to, so views append without re-reading.

A :class:`GrowingChannel` keeps its samples in arrays that double when full
(amortised O(1) per sample): ``times_s`` and ``values`` are views of the
filled rows, and :meth:`GrowingChannel.window` gives the rows of a time
window by binary search, so a plot that scrolls over the last ten seconds
costs the samples it shows. A :class:`GrowingCamera` keeps each frame's time
and a way to fetch it (its place in the file, not its pixels), so memory
grows by a few bytes a frame. A channel's arrays past a few MiB spill to
disk (:mod:`~fsr_core.sources.live.spill`); each growth is checked against
the memory or the live disk budget first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.media import RGBFrame
from fsr_core.sources.live.spill import RESIDENT_BYTES, SpillArray

__all__ = ["GrowingCamera", "GrowingChannel", "LiveRecording"]

_FIRST_ROWS: Final = 1024


class GrowingChannel:
    """One numeric channel that only grows at its end.

    Its times and samples are :class:`~fsr_core.sources.live.spill.SpillArray`
    s: past a few MiB they live in a spill file, only their newest rows in
    memory, so an hour at 1 kHz costs the process what a minute does.
    """

    def __init__(self, name: str, columns: tuple[str, ...], unit: str = "") -> None:
        self.name = name
        self.unit = unit
        self._columns = list(columns)
        what = f"the live channel {name[:80]!r}"
        self._times = SpillArray(_FIRST_ROWS, None, f"{what} times", 0.0)
        self._values = SpillArray(_FIRST_ROWS, max(1, len(columns)), what, np.nan)
        self._count = 0

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names, in the order first seen."""
        return tuple(self._columns)

    @property
    def count(self) -> int:
        """Samples held."""
        return self._count

    @property
    def times_s(self) -> FloatArray:
        """Sample times so far (a view; valid until the next append)."""
        return self._times.data[: self._count]

    @property
    def values(self) -> FloatArray:
        """Samples so far, ``(count, width)`` (a view)."""
        return self._values.data[: self._count, : len(self._columns)]

    @property
    def nbytes(self) -> int:
        """Bytes the arrays span (their capacity, in memory or spilled)."""
        return self._times.nbytes + self._values.nbytes

    @property
    def spilled(self) -> bool:
        """Whether the samples live in a spill file (only the newest in memory)."""
        return self._values.spilled

    def add_columns(self, names: list[str]) -> None:
        """Add columns (earlier samples get NaN in them)."""
        fresh = [n for n in names if n not in self._columns]
        if not fresh:
            return
        width = len(self._columns) + len(fresh)
        old = self._values.data
        if width > old.shape[1]:
            grown = SpillArray(
                _FIRST_ROWS, width, f"the live channel {self.name[:80]!r}", np.nan
            )
            grown.grow(self._times.capacity, 0)
            rows = grown.data[: self._count]
            rows[:, : old.shape[1]] = old[: self._count]
            rows[:, old.shape[1] :] = np.nan
            self._values = grown
        self._columns.extend(fresh)

    def append(self, times_s: FloatArray, values: FloatArray) -> None:
        """Append rows (``values`` is ``(n, width)`` in the current columns)."""
        rows = len(times_s)
        if rows == 0:
            return
        needed = self._count + rows
        if needed > self._times.capacity:
            capacity = max(needed, 2 * self._times.capacity)
            self._times.grow(capacity, self._count)
            self._values.grow(capacity, self._count)
        width = values.shape[1] if values.ndim == 2 else 1
        self._times.data[self._count : needed] = times_s
        block = self._values.data[self._count : needed]
        block[:, :width] = values.reshape(rows, width)
        block[:, width:] = np.nan
        self._count = needed
        keep_from = needed - RESIDENT_BYTES // self._values.row_bytes
        if keep_from > 0:
            self._times.release(keep_from)
            self._values.release(keep_from)

    def window(self, start_s: float, end_s: float) -> tuple[FloatArray, FloatArray]:
        """Return the samples with ``start_s <= t <= end_s`` (views, no copy)."""
        times = self.times_s
        first = int(np.searchsorted(times, start_s, "left"))
        last = int(np.searchsorted(times, end_s, "right"))
        return times[first:last], self.values[first:last]

    def value_at(self, play_time_s: float) -> FloatArray | None:
        """Return the sample in force at ``play_time_s`` (None before the first)."""
        row = int(np.searchsorted(self.times_s, play_time_s, "right")) - 1
        return None if row < 0 else self.values[row]


FrameFetch = Callable[[int], RGBFrame]
"""Fetch frame ``n`` of a camera (reads it from the file)."""


class GrowingCamera:
    """One camera's frame times, and a fetch for each frame."""

    def __init__(self, name: str, fetch: FrameFetch) -> None:
        self.name = name
        self._fetch = fetch
        self._times = np.zeros(64)
        self._count = 0

    @property
    def count(self) -> int:
        """Frames held."""
        return self._count

    @property
    def times_s(self) -> FloatArray:
        """Frame times so far (a view)."""
        return self._times[: self._count]

    def append(self, time_s: float) -> int:
        """Note one more frame at ``time_s``; return its number."""
        if self._count == len(self._times):
            grown = np.zeros(2 * len(self._times))
            grown[: self._count] = self._times
            self._times = grown
        self._times[self._count] = time_s
        self._count += 1
        return self._count - 1

    def index_at(self, play_time_s: float) -> int | None:
        """Return the frame in force at ``play_time_s`` (None before the first)."""
        row = int(np.searchsorted(self.times_s, play_time_s, "right")) - 1
        return None if row < 0 else row

    def frame(self, number: int) -> RGBFrame:
        """Read frame ``number`` from the file."""
        return self._fetch(number)

    def newest(self) -> RGBFrame | None:
        """Return the newest frame, or None before the first."""
        return None if self._count == 0 else self._fetch(self._count - 1)


@dataclass
class LiveRecording:
    """What a follower has read so far: channels and cameras that grow.

    The follower appends under :attr:`lock`; a reader on another thread
    takes it to read a consistent set of views.
    """

    path: Path
    source: str
    channels: dict[str, GrowingChannel] = field(default_factory=dict)
    cameras: dict[str, GrowingCamera] = field(default_factory=dict)
    records: int = 0
    origin_s: float | None = None
    """The source time of play time 0: the first time read."""
    start_s: float | None = None
    end_s: float | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def channel(
        self, name: str, columns: tuple[str, ...], unit: str = ""
    ) -> GrowingChannel:
        """Return channel ``name``, made on first use."""
        found = self.channels.get(name)
        if found is None:
            found = self.channels[name] = GrowingChannel(name, columns, unit)
        return found

    def note_times(self, first_s: float, last_s: float) -> None:
        """Widen the span read so far by source times ``first_s..last_s``."""
        origin = self.play_origin(first_s)
        first, last = first_s - origin, last_s - origin
        self.start_s = first if self.start_s is None else min(self.start_s, first)
        self.end_s = last if self.end_s is None else max(self.end_s, last)

    def play_origin(self, first_s: float) -> float:
        """Return the source time of play time 0 (``first_s`` if none yet)."""
        if self.origin_s is None:
            self.origin_s = first_s
        return self.origin_s

    def append(
        self, channel: GrowingChannel, times_s: FloatArray, values: FloatArray
    ) -> None:
        """Append samples at source times ``times_s`` to ``channel``, in play time."""
        if len(times_s) == 0:
            return
        origin = self.play_origin(float(times_s[0]))
        channel.append(times_s - origin, values)
        self.note_times(float(times_s.min()), float(times_s.max()))

    @property
    def span_s(self) -> float:
        """Seconds between the first and the newest sample."""
        if self.start_s is None or self.end_s is None:
            return 0.0
        return self.end_s - self.start_s

    @property
    def nbytes(self) -> int:
        """Memory the channels hold."""
        return sum(c.nbytes for c in self.channels.values())
