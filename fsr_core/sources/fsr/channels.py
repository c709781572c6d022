"""Numeric channels of an FSR file, read when shown, sampled one record at a time.

Opening a recording reads no numeric record: each numeric stream becomes a
lazy :class:`~fsr_core.recording.Channel` that knows its name, unit, columns
and sample count from the stream table and the index. What reads what:

* the whole channel (a plot, an export of channels, a comparison) is read
  span by span (:meth:`~fsr_core.format.reader.FsrReader.read_series`) the
  first time it is asked for, every CRC and digest checked;
* the sample in force at one play time (the side panel, the exported
  panel, the scene's readouts while scrubbing) is one record, found through
  the stream's play times (8 bytes per record, computed once from the index)
  and read with its CRC checked, so scrubbing an hour-long recording reads
  what is shown, not the hour;
* the channel's play times alone (stepping frame by frame over its samples)
  come from the index, no record read; the whole channel, read later, keeps
  the same array;
* some columns alone (a channel picked from this one: a planar arm's joint
  angles or external force) are read :data:`COLUMN_PART_ROWS` records at a
  time, keeping only those columns;
* a plot of a long stream (more than
  :data:`~fsr_core.recording.OVERVIEW_FROM_SAMPLES` records) reads its
  overview once, :data:`PART_ROWS` records at a time (each bucket's minimum
  and maximum per column, :data:`OVERVIEW_BUCKETS` buckets), and, zoomed in,
  the span on screen.

Every read borrows a reader of the same file from the shared pool
(:mod:`fsr_core.sources.fsr.reader_pool`), which twins the reader the model
was built with, so no read validates the file again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamSpec
from fsr_core.format.values import StreamInfo
from fsr_core.load_once import LoadOnce
from fsr_core.recording import (
    TIME_EPSILON_S,
    Channel,
    ChannelData,
    ChannelOverview,
    Timeline,
)
from fsr_core.sources.fsr.geometry import play_times
from fsr_core.sources.fsr.reader_pool import FileIdentity, shared_pool

__all__ = [
    "COLUMN_PART_ROWS",
    "OVERVIEW_BUCKETS",
    "PART_ROWS",
    "StreamSamples",
    "stream_channel",
]

_T = TypeVar("_T")

OVERVIEW_BUCKETS: Final = 4096
"""Buckets of an overview: about two points per pixel of a wide plot."""
PART_ROWS: Final = 1 << 16
"""Records read at a time for an overview (about 4 MB of values for 7 columns)."""
COLUMN_PART_ROWS: Final = 1 << 13
"""Records read at a time for some columns alone (1.5 MB of a 24-column record)."""


def _extremes(
    times: FloatArray, values: FloatArray, per_bucket: int
) -> tuple[FloatArray, FloatArray]:
    """Each bucket's lowest and highest value per column, at their times, in order.

    ``values`` has shape ``(rows, width)``; buckets are runs of ``per_bucket``
    rows (the last may be shorter). NaN is skipped; an all-NaN bucket gives
    NaN (a gap).
    """
    rows, width = values.shape
    buckets = -(-rows // per_bucket)
    padded = np.full((buckets * per_bucket, width), np.nan)
    padded[:rows] = values
    grid = padded.reshape(buckets, per_bucket, width)
    gaps = np.isnan(grid)
    low = np.argmin(np.where(gaps, np.inf, grid), axis=1)
    high = np.argmax(np.where(gaps, -np.inf, grid), axis=1)
    # Per bucket and column: the earlier of the two extremes first.
    pair = np.stack((np.minimum(low, high), np.maximum(low, high)), axis=1)
    index = np.minimum(
        pair + (np.arange(buckets) * per_bucket)[:, None, None], rows - 1
    )
    index = index.reshape(2 * buckets, width)
    columns = np.arange(width)[None, :]
    picked: FloatArray = values[index, columns]
    at: FloatArray = times[index]
    return at, picked


class StreamSamples:
    """Reads one numeric stream of a file whole, by part, or one sample at a time.

    A record is found by play time through each batch's first play time
    (computed once: a few numbers per thousand records), then the index
    entries of that one batch; so a sample or a span costs memory in
    proportion to what it returns, not to the stream.
    """

    def __init__(self, identity: FileIdentity, stream: str, timeline: Timeline) -> None:
        self._identity = identity
        self._stream = stream
        self._timeline = timeline
        self._lock = threading.Lock()
        self._last_span: tuple[tuple[int, int], ChannelData] | None = None
        self._batches: LoadOnce[tuple[npt.NDArray[np.int64], FloatArray, int]] = (
            LoadOnce(
                lambda: self._use(self._batch_times),
                what=f"the index of stream {stream[:80]!r}",
                path=identity.path,
            )
        )
        self._play_times: LoadOnce[FloatArray] = LoadOnce(
            lambda: self._use(
                lambda reader: play_times(reader, stream, self._timeline)
            ),
            what=f"the play times of stream {stream[:80]!r}",
            path=identity.path,
        )

    def _use(self, work: Callable[[FsrReader], _T]) -> _T:
        try:
            return shared_pool().use(self._identity, work)
        except FsrError as exc:
            raise exc.with_path(self._identity.path) from exc.__cause__

    def _play(self, entries: np.ndarray) -> FloatArray:
        """Return the play times of index entries (as ``Timeline.play_time``)."""
        times: FloatArray = entries["sim_time_s"].astype(np.float64)
        generations = entries["generation"]
        for generation in np.unique(generations).tolist():
            mine = generations == generation
            times[mine] = self._timeline.play_time(generation, times[mine])
        return times

    def _batch_times(
        self, reader: FsrReader
    ) -> tuple[npt.NDArray[np.int64], FloatArray, int]:
        starts = reader.batch_starts(self._stream)
        first_entries = reader.stream_entries(self._stream, starts)
        count = reader.streams[self._stream].record_count
        return starts, self._play(first_entries), count

    def _times(self, first: int, stop: int) -> FloatArray:
        """Play times of records ``first .. stop - 1``."""
        return self._play(
            self._use(
                lambda reader: reader.stream_entries(self._stream, slice(first, stop))
            )
        )

    def _search(self, play_time_s: float, side: Literal["left", "right"]) -> int:
        """``numpy.searchsorted`` over the stream's play times, one batch read."""
        starts, start_times, count = self._batches.get()
        batch = int(np.searchsorted(start_times, play_time_s, side)) - 1
        if batch < 0:
            return 0
        stop = int(starts[batch + 1]) if batch + 1 < len(starts) else count
        local = self._times(int(starts[batch]), stop)
        return int(starts[batch]) + int(np.searchsorted(local, play_time_s, side))

    def _read(self, first: int, stop: int | None) -> FloatArray:
        """Values of records ``first .. stop - 1`` as float64, shape ``(n, width)``."""

        def read(reader: FsrReader) -> FloatArray:
            values = reader.read_series(self._stream, first, stop)[2]
            flat: FloatArray = values.reshape(len(values), -1).astype(
                np.float64, copy=False
            )
            return flat

        return self._use(read)

    def times(self) -> FloatArray:
        """Return the play times of every record (from the index, read once)."""
        return self._play_times.get()

    def load(self) -> ChannelData:
        """Read every record of the stream: play times and float64 values."""
        return ChannelData(self.times(), self._read(0, None))

    def columns(self, picks: Sequence[int]) -> ChannelData:
        """Read the columns ``picks`` alone, part by part, with every play time."""
        count = self._batches.get()[2]
        chosen = list(picks)
        values = np.empty((count, len(chosen)))
        for first in range(0, count, COLUMN_PART_ROWS):
            stop = min(first + COLUMN_PART_ROWS, count)
            values[first:stop] = self._read(first, stop)[:, chosen]
        return ChannelData(self.times(), values)

    def overview(self) -> ChannelOverview:
        """Read the stream part by part into each bucket's extremes per column."""
        count = self._batches.get()[2]
        per_bucket = max(-(-count // OVERVIEW_BUCKETS), 1)
        step = max(PART_ROWS // per_bucket, 1) * per_bucket  # whole buckets
        parts_at, parts_values = [], []
        for first in range(0, count, step):
            stop = min(first + step, count)
            times = self._times(first, stop)
            at, picked = _extremes(times, self._read(first, stop), per_bucket)
            parts_at.append(at)
            parts_values.append(picked)
        ends = [(self._times(i, i + 1), self._read(i, i + 1)) for i in (0, count - 1)]
        width = ends[0][1].shape[1]
        at = np.vstack(
            [
                np.full((1, width), ends[0][0][0]),
                *parts_at,
                np.full((1, width), ends[1][0][0]),
            ]
        )
        values = np.vstack([ends[0][1], *parts_values, ends[1][1]])
        return ChannelOverview(at, values)

    def span(self, start_s: float, end_s: float, limit: int) -> ChannelData | None:
        """Return the records of ``start_s .. end_s`` (see ``Channel.span``)."""
        count = self._batches.get()[2]
        first = max(self._search(start_s, "right") - 1, 0)
        stop = max(min(self._search(end_s, "left") + 1, count), first)
        if stop - first > limit:
            return None
        # Every column of a plotted channel asks for the same span in turn.
        with self._lock:
            if self._last_span is not None and self._last_span[0] == (first, stop):
                return self._last_span[1]
        found = ChannelData(self._times(first, stop), self._read(first, stop))
        with self._lock:
            self._last_span = ((first, stop), found)
        return found

    def sample(self, play_time_s: float) -> FloatArray:
        """Return the record in force at ``play_time_s`` (the first, before it).

        Raises
        ------
        FsrError
            The record (or the stream's index) cannot be read.
        """
        count = self._batches.get()[2]
        # The rule of Channel.index_at: the last sample at or before the time.
        found = self._search(play_time_s + TIME_EPSILON_S, "right")
        index = min(max(found - 1, 0), count - 1)

        def read(reader: FsrReader) -> FloatArray:
            decoded = reader.record(self._stream, index).decoded
            value: FloatArray = np.asarray(decoded, dtype=np.float64).reshape(-1)
            return value

        return self._use(read)


def _columns(spec: StreamSpec, width: int) -> tuple[str, ...]:
    """Return the column names: the writer's originals (``columns``) when kept.

    A stream's channel names are FSR names; a writer whose columns had other
    characters (``states[0]``) keeps them in the ``columns`` attribute.
    """
    kept = spec.attributes.get("columns")
    if (
        isinstance(kept, list)
        and len(kept) == width
        and all(isinstance(name, str) for name in kept)
    ):
        return tuple(kept)
    return spec.channels or tuple(str(i) for i in range(width))


def stream_channel(
    info: StreamInfo, name: str, identity: FileIdentity, timeline: Timeline
) -> Channel:
    """Return the lazy channel of numeric stream ``info``, named ``name``."""
    spec = info.spec
    units = spec.units if isinstance(spec.units, tuple) else (spec.units,)
    width = int(np.prod(spec.shape)) if spec.shape else 1
    samples = StreamSamples(identity, info.name, timeline)
    return Channel.lazy(
        name,
        samples.load,
        unit=units[0] if len(set(units)) == 1 else "",
        columns=_columns(spec, width),
        width=width,
        count=info.record_count,
        path=Path(identity.path),
        sample=samples.sample,
        overview=samples.overview,
        span=samples.span,
        times=samples.times,
        columns_reader=samples.columns,
    )
