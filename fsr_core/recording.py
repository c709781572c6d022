"""The format-neutral recording model the viewer reads.

Every source (FSR files, skelarm logs, later LeRobot and MCAP) builds one
:class:`RecordingModel`: timelines, channels, cameras, the planar kinematics
needed to draw the arm or the recorded 3D scene geometry, task overlays,
markers, panel readouts, provenance, the validation state and what can
re-render or re-simulate it. Views only read this model; they never parse a
file.

Time: each generation has its own simulation clock (a reset restarts it), so
the model lays generations end to end on one *play time* axis, in seconds:
``play_time_s = segment.start_play_s + (sim_time_s - segment.first_sim_time_s)``.
Every series, frame list and marker is given on that axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import DecodeError, FsrError
from fsr_core.joint_set import JointKind, JointSet, JointSpec, joint_values
from fsr_core.load_once import LoadOnce
from fsr_core.media import RGBFrame

__all__ = [
    "OVERVIEW_FROM_SAMPLES",
    "TIME_EPSILON_S",
    "CameraTrack",
    "Channel",
    "ChannelData",
    "ChannelLoader",
    "ChannelOverview",
    "ColumnsReader",
    "DescriptionFiles",
    "GeometryMesh",
    "Integrity",
    "Marker",
    "MarkerKind",
    "OverviewReader",
    "PlanarKinematics",
    "RecordingModel",
    "RobotDescription",
    "SampleReader",
    "SceneGeometry",
    "SceneTarget",
    "Segment",
    "SpanReader",
    "TaskOverlay",
    "Timeline",
    "TimesReader",
    "picked_channel",
    "span_rows",
]

#: Float error in a play time: a time this little before a sample (or a
#: tick) is at it, so a frame time such as ``k / fps`` that lands on a sample
#: shows that sample, whichever way the two sums rounded.
TIME_EPSILON_S = 1e-9


def _in_force(times_s: FloatArray, play_time_s: float) -> int:
    """Return the index of the last time at or before ``play_time_s`` (-1: none)."""
    return int(np.searchsorted(times_s, play_time_s + TIME_EPSILON_S, "right")) - 1


def span_rows(times_s: FloatArray, start_s: float, end_s: float) -> tuple[int, int]:
    """Return ``first, stop`` of the samples a plot of ``start_s .. end_s`` draws.

    From the last sample at or before ``start_s`` to the first at or after
    ``end_s``, so lines reach both edges.
    """
    first = max(int(np.searchsorted(times_s, start_s, "right")) - 1, 0)
    stop = min(int(np.searchsorted(times_s, end_s, "left")) + 1, len(times_s))
    return first, max(stop, first)


class Integrity(StrEnum):
    """What a playlist badge says about a file."""

    VALID = "valid"
    UNVERIFIED = "integrity not verified"
    RECOVERED = "recovered"
    DEGRADED = "degraded"
    INVALID = "invalid"


@dataclass(frozen=True)
class Segment:
    """One generation's stretch of the play-time axis."""

    generation: int
    start_play_s: float
    end_play_s: float
    first_sim_time_s: float
    first_tick: int
    last_tick: int


@dataclass(frozen=True)
class Timeline:
    """Generations laid end to end; maps (generation, sim time) to play time."""

    segments: tuple[Segment, ...]

    @property
    def duration_s(self) -> float:
        """Play time from the first to the last sample."""
        return self.segments[-1].end_play_s if self.segments else 0.0

    def play_time(self, generation: int, sim_time_s: float | FloatArray) -> Any:
        """Return the play time of a sample (scalar or array) of ``generation``."""
        segment = self.segment(generation)
        return segment.start_play_s + (
            np.asarray(sim_time_s) - segment.first_sim_time_s
        )

    def segment(self, generation: int) -> Segment:
        """Return the segment of ``generation`` (KeyError when absent)."""
        for segment in self.segments:
            if segment.generation == generation:
                return segment
        raise KeyError(generation)

    def tick_at(self, play_time_s: float) -> tuple[int, int]:
        """Return ``(tick, generation)`` in force at a play time.

        The tick is the last one at or before the time (ticks are evenly
        spaced within a segment), as the state drawn is the sample in force:
        rounding to the nearest tick showed a tick ahead of the state half of
        the time. Float error up to :data:`TIME_EPSILON_S` counts as on a tick.
        """
        generation, _ = self.locate(play_time_s)
        if not self.segments:
            return 0, generation
        segment = self.segment(generation)
        span = segment.end_play_s - segment.start_play_s
        fraction = 0.0 if span <= 0 else (play_time_s - segment.start_play_s) / span
        fraction = min(max(fraction, 0.0), 1.0)
        ticks = segment.last_tick - segment.first_tick
        slack = 0.0 if span <= 0 else TIME_EPSILON_S / span * ticks
        return segment.first_tick + math.floor(fraction * ticks + slack), generation

    def locate(self, play_time_s: float) -> tuple[int, float]:
        """Return ``(generation, sim_time_s)`` at a play time (clamped)."""
        if not self.segments:
            return 0, 0.0
        chosen = self.segments[0]
        for segment in self.segments:
            if play_time_s >= segment.start_play_s:
                chosen = segment
        offset = min(max(play_time_s, chosen.start_play_s), chosen.end_play_s)
        return chosen.generation, chosen.first_sim_time_s + offset - chosen.start_play_s


class ChannelData(NamedTuple):
    """What a lazy channel's loader returns: its arrays, and columns found on the way.

    ``columns`` is ``None`` when the channel keeps the columns it was built
    with; a source that learns more columns while reading (a message with a
    field the first one lacked) gives them all here.
    """

    times_s: FloatArray
    values: FloatArray
    columns: tuple[str, ...] | None = None


ChannelLoader: TypeAlias = Callable[[], tuple[FloatArray, FloatArray] | ChannelData]
"""Reads a lazy channel: returns ``(times_s, values)`` or a :class:`ChannelData`."""


class ChannelOverview(NamedTuple):
    """A long channel at a glance: each bucket of samples' lowest and highest.

    Column ``j`` is drawn from ``times_s[:, j]`` and ``values[:, j]``: per
    bucket of consecutive samples, its minimum and maximum at their own
    times, plus the first and last sample, in time order. What a plot draws
    of a channel it does not read whole.
    """

    times_s: FloatArray
    """Shape ``(points, width)``: each column's point times, non-decreasing."""
    values: FloatArray
    """Shape ``(points, width)``: the values at those times (NaN: a gap)."""


OVERVIEW_FROM_SAMPLES: Final = 1_000_000
"""A lazy channel with an overview reader and more samples than this is
plotted from its overview and read by span when zoomed in, never whole."""

OverviewReader: TypeAlias = Callable[[], ChannelOverview]
"""Makes a channel's :class:`ChannelOverview`, reading it part by part."""

SpanReader: TypeAlias = Callable[[float, float, int], "ChannelData | None"]
"""``span(start_s, end_s, limit)``: the samples of a channel from the last one
at or before ``start_s`` to the first one at or after ``end_s``, or ``None``
when that is more than ``limit`` samples."""

SampleReader: TypeAlias = Callable[[float], FloatArray]
"""Reads the sample of a lazy channel in force at a play time, alone: what
:meth:`Channel.value_at` asks while the whole channel is unread, so a panel
scrubbing an hour-long recording reads one record, not the hour."""

ColumnsReader: TypeAlias = Callable[[Sequence[int]], ChannelData]
"""Reads some columns of a lazy channel alone, part by part: its times and
those columns' values, never the whole channel at once. What a channel of
a few columns picked from a wide one (:func:`picked_channel`) reads."""

TimesReader: TypeAlias = Callable[[], FloatArray]
"""Reads a lazy channel's play times alone (8 bytes a sample): what
:attr:`Channel.times_s` returns while the values are unread, so stepping
frame by frame over a channel's samples reads none of its values."""


class _ReadOnly:
    """Read-only slots, set once by :meth:`_assign`: models are shared by views."""

    __slots__ = ()

    def _assign(self, **values: object) -> None:
        for slot, value in values.items():
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse: the object is read-only."""
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        """Refuse: the object is read-only."""
        raise FrozenInstanceError(f"cannot delete field {name!r}")


class Channel(_ReadOnly):
    """A numeric series: one column per component, on the play-time axis.

    ``Channel(name, times_s, values, unit, label, columns)`` holds its arrays.
    :meth:`Channel.lazy` makes one that reads them the first time
    :attr:`times_s` or :attr:`values` is asked for (once, under a lock, from
    any thread); :attr:`name`, :attr:`unit`, :attr:`label`, :attr:`columns`,
    :attr:`width`, :attr:`count`, :attr:`loaded` and :attr:`read_error` never
    read. A lazy channel given a :data:`SampleReader` answers
    :meth:`value_at` through it until something reads the whole channel;
    given an :data:`OverviewReader` and a :data:`SpanReader`, a plot of a
    long channel reads its :meth:`overview` and :meth:`span` instead of all
    of it (:attr:`prefers_overview`); given a :data:`TimesReader`, its
    :attr:`times_s` are read without its values; given a
    :data:`ColumnsReader`, :meth:`picked_data` reads some columns without
    the others. A channel is read-only: views share it.
    """

    __slots__ = (
        "_columns",
        "_columns_reader",
        "_count",
        "_data",
        "_overview",
        "_sample",
        "_span",
        "_times",
        "_width",
        "label",
        "name",
        "unit",
    )

    name: str
    unit: str
    label: str
    _columns: tuple[str, ...]
    _data: LoadOnce[ChannelData]
    _width: int | None
    _count: int | None
    _sample: SampleReader | None
    _overview: LoadOnce[ChannelOverview] | None
    _span: SpanReader | None
    _times: LoadOnce[FloatArray] | None
    _columns_reader: ColumnsReader | None

    def __init__(
        self,
        name: str,
        times_s: FloatArray,
        values: FloatArray,
        unit: str = "",
        label: str = "",
        columns: tuple[str, ...] = (),
    ) -> None:
        data = LoadOnce.ready(ChannelData(times_s, values))
        self._fill(name, unit, label, columns, data, None, None)
        self._assign(
            _sample=None, _overview=None, _span=None, _times=None, _columns_reader=None
        )

    @classmethod
    def lazy(
        cls,
        name: str,
        load: ChannelLoader,
        *,
        unit: str = "",
        label: str = "",
        columns: tuple[str, ...] = (),
        width: int | None = None,
        count: int | None = None,
        path: str | Path | None = None,
        sample: SampleReader | None = None,
        overview: OverviewReader | None = None,
        span: SpanReader | None = None,
        times: TimesReader | None = None,
        columns_reader: ColumnsReader | None = None,
    ) -> Channel:
        """Return a channel whose arrays ``load`` reads when first asked for.

        Parameters
        ----------
        name, unit, label, columns
            As for a channel built with its arrays.
        load
            Returns ``(times_s, values)`` (or a :class:`ChannelData`).
        width
            Columns before loading; default ``len(columns)`` (at least 1).
        count
            Samples before loading, when the source's metadata says;
            ``None`` when only reading tells.
        path
            The file read, named by the error of a failing ``load``.
        sample
            Reads the one sample in force at a play time (as :meth:`value_at`
            returns it) while the channel is unread; ``None``: ``value_at``
            reads the whole channel.
        overview, span
            Read the channel's overview (once) and a span of it, for a plot
            of a channel too long to read whole; both or neither.
        times
            Reads the play times alone (once), what :attr:`times_s` returns
            while the values are unread; ``None``: :attr:`times_s` reads the
            whole channel. They must be the times ``load`` returns.
        columns_reader
            Reads some columns alone (:meth:`picked_data`) while the channel
            is unread; ``None``: picking columns reads the whole channel.
        """
        shown = width if width is not None else max(len(columns), 1)
        data: LoadOnce[ChannelData] = LoadOnce(
            lambda: _checked(name, load()), what=f"channel {name[:80]!r}", path=path
        )
        channel = cls.__new__(cls)
        channel._fill(name, unit, label, columns, data, shown, count)
        summary = (
            None
            if overview is None or span is None
            else LoadOnce(overview, what=f"the overview of {name[:80]!r}", path=path)
        )
        alone = (
            None
            if times is None
            else LoadOnce(times, what=f"the times of {name[:80]!r}", path=path)
        )
        channel._assign(
            _sample=sample,
            _overview=summary,
            _span=span,
            _times=alone,
            _columns_reader=columns_reader,
        )
        return channel

    def _fill(
        self,
        name: str,
        unit: str,
        label: str,
        columns: tuple[str, ...],
        data: LoadOnce[ChannelData],
        width: int | None,
        count: int | None,
    ) -> None:
        self._assign(
            name=name,
            unit=unit,
            label=label,
            _columns=columns,
            _data=data,
            _width=width,
            _count=count,
        )

    def __repr__(self) -> str:
        """Name, unit, width, count and whether it is loaded (never reads)."""
        return (
            f"Channel(name={self.name!r}, unit={self.unit!r}, width={self.width}, "
            f"count={self.count}, loaded={self.loaded})"
        )

    @property
    def times_s(self) -> FloatArray:
        """Play times of the samples, increasing (reads a lazy channel).

        An unread lazy channel with a times reader reads its times alone.
        """
        if self._times is not None and not self._data.loaded:
            return self._times.get()
        return self._data.get().times_s

    @property
    def values(self) -> FloatArray:
        """The samples, shape ``(count,)`` or ``(count, width)`` (reads a lazy one)."""
        return self._data.get().values

    @property
    def loaded(self) -> bool:
        """Whether the arrays are in memory (a channel built with them always is)."""
        return self._data.loaded

    @property
    def reads_one_sample(self) -> bool:
        """Whether :meth:`value_at` reads one sample alone while the channel is unread.

        True for a lazy channel given a sample reader; a loaded channel needs
        no reading at all (:attr:`loaded`).
        """
        return self._sample is not None

    @property
    def reads_by_span(self) -> bool:
        """Whether a plot can read :meth:`overview` and :meth:`span` (never reads)."""
        return self._overview is not None and self._span is not None

    @property
    def reads_times_alone(self) -> bool:
        """Whether :attr:`times_s` reads the times alone while the channel is unread."""
        return self._times is not None

    @property
    def read_error(self) -> FsrError | None:
        """The error reading a lazy channel raised, if it failed (never reads)."""
        return self._data.error

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names (those the loader found, once loaded)."""
        if self._data.loaded:
            found = self._data.get().columns
            if found is not None:
                return found
        return self._columns

    @property
    def width(self) -> int:
        """Number of components (columns)."""
        if not self._data.loaded:
            return self._width or 1
        values = self._data.get().values
        return 1 if values.ndim == 1 else int(values.shape[1])

    @property
    def count(self) -> int | None:
        """Number of samples; ``None`` for a lazy channel that only reading tells."""
        if not self._data.loaded:
            return self._count
        return len(self._data.get().times_s)

    @property
    def prefers_overview(self) -> bool:
        """Whether a plot should draw :meth:`overview` and :meth:`span` (never reads).

        True for an unread lazy channel that can give both and holds more
        than :data:`OVERVIEW_FROM_SAMPLES` samples.
        """
        return (
            self._overview is not None
            and not self._data.loaded
            and (self._count or 0) > OVERVIEW_FROM_SAMPLES
        )

    @property
    def overview_loaded(self) -> bool:
        """Whether :meth:`overview` is read (never reads)."""
        return self._overview is not None and self._overview.loaded

    @property
    def overview_error(self) -> FsrError | None:
        """The error reading :meth:`overview` raised, if it failed (never reads)."""
        return None if self._overview is None else self._overview.error

    def overview(self) -> ChannelOverview:
        """Return the channel's overview, reading it the first time.

        Raises
        ------
        FsrError
            Reading failed (now or before); the message names the file.
        ValueError
            The channel has no overview reader.
        """
        if self._overview is None:
            raise ValueError(f"channel {self.name[:80]!r} has no overview")
        return self._overview.get()

    def span(self, start_s: float, end_s: float, limit: int) -> ChannelData | None:
        """Return the samples from ``start_s`` to ``end_s``, one more each side.

        ``None`` when they are more than ``limit``. Read from the arrays when
        they are loaded, else through the span reader (a channel without one
        reads itself whole).

        Raises
        ------
        FsrError
            Reading failed; the message names the file.
        """
        if self._span is not None and not self._data.loaded:
            return self._span(start_s, end_s, limit)
        times = self.times_s
        first, stop = span_rows(times, start_s, end_s)
        if stop - first > limit:
            return None
        return ChannelData(times[first:stop], self.values[first:stop])

    def picked_data(self, picks: Sequence[int]) -> ChannelData:
        """Return the times and the columns ``picks`` of the values, shape ``(n, k)``.

        An unread lazy channel with a columns reader reads those columns
        alone and stays unread; else they are picked from :attr:`values`.

        Raises
        ------
        FsrError
            Reading failed; the message names the file.
        """
        chosen = list(picks)
        if self._columns_reader is not None and not self._data.loaded:
            return self._columns_reader(chosen)
        values = np.asarray(self.values)
        return ChannelData(self.times_s, values.reshape(len(values), -1)[:, chosen])

    def index_at(self, play_time_s: float) -> int:
        """Return the index of the last sample at or before ``play_time_s`` (>= 0)."""
        return max(_in_force(self.times_s, play_time_s), 0)

    def value_at(self, play_time_s: float) -> FloatArray:
        """Return the sample in force at ``play_time_s`` (the first, before it).

        An unread lazy channel with a sample reader reads that sample alone.
        """
        if self._sample is not None and not self._data.loaded:
            found: FloatArray = np.atleast_1d(self._sample(play_time_s))
            return found
        value: FloatArray = np.atleast_1d(self.values[self.index_at(play_time_s)])
        return value


def _checked(
    name: str, found: tuple[FloatArray, FloatArray] | ChannelData
) -> ChannelData:
    """Return a loader's result as :class:`ChannelData`, its lengths checked."""
    data = found if isinstance(found, ChannelData) else ChannelData(*found)
    if len(data.times_s) != len(data.values):
        raise DecodeError(
            f"channel {name[:80]!r} read {len(data.times_s)} times for "
            f"{len(data.values)} values"
        )
    return data


def picked_channel(
    channel: Channel,
    name: str,
    picks: Sequence[int],
    *,
    columns: tuple[str, ...],
    unit: str = "",
    label: str = "",
) -> Channel:
    """Return the columns ``picks`` of ``channel`` as channel ``name``.

    A loaded channel is picked now; a lazy one stays lazy: read when the new
    one is (those columns alone, when ``channel`` has a columns reader), it
    answers :meth:`Channel.value_at` by its sample reader,
    :attr:`Channel.times_s` by its times reader, and a plot by its overview
    and span readers, as ``channel`` does.
    """
    chosen = list(picks)
    if channel.loaded:
        values = np.asarray(channel.values)
        values = values.reshape(len(values), -1)[:, chosen]
        return Channel(name, channel.times_s, values, unit, label, columns)

    def load() -> ChannelData:
        return channel.picked_data(chosen)

    def sample(play_time_s: float) -> FloatArray:
        value: FloatArray = channel.value_at(play_time_s)[chosen]
        return value

    def times() -> FloatArray:
        return channel.times_s

    def overview() -> ChannelOverview:
        whole = channel.overview()
        return ChannelOverview(whole.times_s[:, chosen], whole.values[:, chosen])

    def span(start_s: float, end_s: float, limit: int) -> ChannelData | None:
        found = channel.span(start_s, end_s, limit)
        if found is None:
            return None
        values = found.values.reshape(len(found.values), -1)[:, chosen]
        return ChannelData(found.times_s, values)

    by_span = channel.reads_by_span
    return Channel.lazy(
        name,
        load,
        unit=unit,
        label=label,
        columns=columns,
        count=channel.count,
        sample=sample if channel.reads_one_sample else None,
        overview=overview if by_span else None,
        span=span if by_span else None,
        times=times if channel.reads_times_alone else None,
    )


class MarkerKind(StrEnum):
    """Things the timeline marks."""

    GENERATION_RESET = "generation_reset"
    TERMINAL_CUT = "terminal_cut"
    GAP = "gap"
    EVENT = "event"
    UNREADABLE = "unreadable"
    CALIBRATION = "calibration"


@dataclass(frozen=True)
class Marker:
    """A point (or span) on the timeline with a label."""

    kind: MarkerKind
    play_time_s: float
    label: str
    end_play_s: float | None = None


@dataclass(frozen=True, eq=False)
class PlanarKinematics:
    """What drawing a planar arm needs: link lengths, base, COM offsets, limits.

    ``base_m`` is the first joint. ``mount_m``, when set, is where the arm is
    fixed to the world, a fixed base link away from the first joint (skelarm's
    ``base_length``); ``None`` means the arm is mounted at ``base_m``.
    """

    lengths_m: FloatArray
    base_m: tuple[float, float] = (0.0, 0.0)
    com_m: FloatArray | None = None
    q_min_rad: FloatArray | None = None
    q_max_rad: FloatArray | None = None
    mount_m: tuple[float, float] | None = None

    @property
    def support_m(self) -> tuple[float, float]:
        """Where the arm is fixed to the world: the mount, else the base."""
        return self.base_m if self.mount_m is None else self.mount_m

    def joint_positions(self, q: npt.ArrayLike) -> FloatArray:
        """Return base, joints and tip in plane coordinates, shape ``(n + 1, 2)``."""
        # Extreme angles or lengths overflow to inf/NaN: data to show, not errors.
        with np.errstate(all="ignore"):
            angles = np.cumsum(np.asarray(q, dtype=np.float64))
            steps = self.lengths_m[:, None] * np.stack(
                [np.cos(angles), np.sin(angles)], 1
            )
            points = np.vstack([np.zeros(2), np.cumsum(steps, axis=0)])
            result: FloatArray = points + np.asarray(self.base_m)
        return result

    def com_positions(self, q: npt.ArrayLike) -> FloatArray | None:
        """Return the centres of mass in plane coordinates, when known."""
        if self.com_m is None:
            return None
        joints = self.joint_positions(q)
        angles = np.cumsum(np.asarray(q, dtype=np.float64))
        direction = np.stack([np.cos(angles), np.sin(angles)], 1)
        result: FloatArray = joints[:-1] + self.com_m[:, None] * direction
        return result

    def tip_speeds(self, q: npt.ArrayLike, dq: npt.ArrayLike) -> FloatArray:
        """Return ``|J(q) dq|``, the tip's speed, for each row of ``q`` and ``dq``.

        Parameters
        ----------
        q, dq
            Joint angles (radians) and rates (rad/s), shape ``(rows, n)``.

        Returns
        -------
        numpy.ndarray
            Speeds in m/s, shape ``(rows,)``; NaN where the inputs are not finite.
        """
        with np.errstate(all="ignore"):
            angles = np.cumsum(np.asarray(q, dtype=np.float64), axis=1)
            rates = np.cumsum(np.asarray(dq, dtype=np.float64), axis=1)
            vx = -(self.lengths_m * np.sin(angles) * rates).sum(axis=1)
            vy = (self.lengths_m * np.cos(angles) * rates).sum(axis=1)
            speed: FloatArray = np.hypot(vx, vy)
        return speed

    @property
    def reach_m(self) -> float:
        """Sum of the link lengths."""
        return float(self.lengths_m.sum())

    def joint_specs(self, names: Sequence[str]) -> tuple[JointSpec, ...]:
        """Return the arm's revolute joints named ``names``, with their limits.

        Angles are in radians; a limit the arm does not give (or a non-finite
        one) stays unknown.
        """

        def limit(values: FloatArray | None, index: int) -> float | None:
            if values is None or index >= len(values):
                return None
            value = float(values[index])
            return value if math.isfinite(value) else None

        return tuple(
            JointSpec(
                name,
                JointKind.REVOLUTE,
                "rad",
                lower=limit(self.q_min_rad, index),
                upper=limit(self.q_max_rad, index),
            )
            for index, name in enumerate(names)
        )


@dataclass(frozen=True)
class TaskOverlay:
    """The task context to draw, in plane coordinates."""

    kind: str
    targets_xy: tuple[tuple[float, float], ...] = ()
    target_labels: tuple[str, ...] = ()
    tolerance_m: float | None = None
    curve_xy: tuple[tuple[float, float], ...] = ()
    reference_xy: tuple[tuple[float, float], ...] = ()
    active_index: int | None = None
    target_colors: tuple[str, ...] = ()
    """A colour name or ``#rrggbb`` per target as the source gave it (skelarm's
    ``color``); empty, or a name the viewer does not know, draws the default."""


@dataclass(frozen=True, eq=False)
class GeometryMesh:
    """One recorded mesh: triangles in the frame of the body that carries it."""

    name: str
    body: int
    """Index into :attr:`SceneGeometry.bodies`."""
    kind: str
    """What it was in the simulator (``box``, ``sphere``, ``plane``, ``mesh`` ...)."""
    vertices_m: FloatArray
    """Shape (N, 3), in the body's frame."""
    faces: npt.NDArray[np.int64]
    """Shape (M, 3), indices into ``vertices_m``."""
    rgba: tuple[float, float, float, float] = (0.6, 0.62, 0.66, 1.0)


@dataclass(frozen=True)
class SceneTarget:
    """A 3D target drawn over the scene and projected into camera frames."""

    name: str
    position_m: tuple[float, float, float]
    radius_m: float


@dataclass(frozen=True, eq=False)
class SceneGeometry:
    """A 3D scene: meshes on bodies, the bodies' world poses over time, targets."""

    bodies: tuple[str, ...]
    meshes: tuple[GeometryMesh, ...]
    times_s: FloatArray
    """Play times of the pose samples, increasing."""
    poses: FloatArray
    """Shape (T, len(bodies), 7): ``x y z qx qy qz qw`` per body and sample."""
    targets: tuple[SceneTarget, ...] = ()
    body_groups: tuple[str, ...] = ()
    """The group (environment) of each body of a batched run, like ``env1``;
    empty when the scene is not grouped. A view may highlight one group."""

    @property
    def groups(self) -> tuple[str, ...]:
        """The distinct groups of the bodies, in body order (empty: not grouped)."""
        return tuple(dict.fromkeys(group for group in self.body_groups if group))

    def poses_at(self, play_time_s: float) -> FloatArray:
        """Return every body's pose in force at ``play_time_s`` (the first before)."""
        result: FloatArray = self.poses[max(_in_force(self.times_s, play_time_s), 0)]
        return result


class CameraTrack(_ReadOnly):
    """One camera: when its frames are, and how to fetch one (on a worker thread).

    ``fetch(index)`` decodes frame ``index`` and returns it with the calibration
    in force for it (``None`` when the source has none). Each call opens what it
    needs itself, so it is safe on any thread.

    ``CameraTrack(name, times_s, fetch, ...)`` holds its frame times;
    :meth:`CameraTrack.lazy` makes one that reads them the first time
    :attr:`times_s` is asked for (once, under a lock, from any thread);
    :attr:`count` and :attr:`loaded` never read. A track is read-only.
    """

    __slots__ = (
        "_count",
        "_times",
        "fetch",
        "name",
        "value_range",
        "value_unit",
        "values",
    )

    name: str
    fetch: Callable[[int], tuple[RGBFrame, Calibration | None]]
    values: Callable[[int], FloatArray] | None
    """For a measuring camera (depth), frame ``index``'s value per pixel, shape
    ``(height, width)``, in ``value_unit``: what the readout shows under the
    cursor. ``None`` for a picture camera."""
    value_unit: str
    value_range: tuple[float, float] | None
    """The values the colour scale spans, from its first colour to its last."""
    _times: LoadOnce[FloatArray]
    _count: int | None

    def __init__(
        self,
        name: str,
        times_s: FloatArray,
        fetch: Callable[[int], tuple[RGBFrame, Calibration | None]],
        values: Callable[[int], FloatArray] | None = None,
        value_unit: str = "",
        value_range: tuple[float, float] | None = None,
    ) -> None:
        self._fill(name, LoadOnce.ready(times_s), None, fetch)
        self._assign(values=values, value_unit=value_unit, value_range=value_range)

    @classmethod
    def lazy(
        cls,
        name: str,
        load_times: Callable[[], FloatArray],
        fetch: Callable[[int], tuple[RGBFrame, Calibration | None]],
        *,
        count: int | None = None,
        path: str | Path | None = None,
        values: Callable[[int], FloatArray] | None = None,
        value_unit: str = "",
    ) -> CameraTrack:
        """Return a camera whose frame times ``load_times`` reads when asked.

        ``count`` is the number of frames when the source's metadata says;
        ``path`` is the file named by the error of a failing ``load_times``;
        ``values`` and ``value_unit`` make it a measuring camera (depth).
        """
        track = cls.__new__(cls)
        times = LoadOnce(
            load_times, what=f"the frame times of {name[:80]!r}", path=path
        )
        track._fill(name, times, count, fetch)
        track._assign(values=values, value_unit=value_unit, value_range=None)
        return track

    def _fill(
        self,
        name: str,
        times: LoadOnce[FloatArray],
        count: int | None,
        fetch: Callable[[int], tuple[RGBFrame, Calibration | None]],
    ) -> None:
        self._assign(name=name, _times=times, _count=count, fetch=fetch)

    def __repr__(self) -> str:
        """Name, frame count and whether the times are loaded (never reads)."""
        return (
            f"CameraTrack(name={self.name!r}, count={self.count}, loaded={self.loaded})"
        )

    @property
    def times_s(self) -> FloatArray:
        """Play times of the frames, increasing (reads a lazy track's)."""
        return self._times.get()

    @property
    def loaded(self) -> bool:
        """Whether the frame times are in memory."""
        return self._times.loaded

    @property
    def count(self) -> int | None:
        """Number of frames; ``None`` for a lazy track that only reading tells."""
        if not self._times.loaded:
            return self._count
        return len(self._times.get())

    def index_at(self, play_time_s: float) -> int | None:
        """Return the index of the frame shown at ``play_time_s`` (None before)."""
        found = _in_force(self.times_s, play_time_s)
        return None if found < 0 else found


DescriptionFiles: TypeAlias = tuple[bytes, dict[str, bytes]]
"""A description's text and the asset files it names, by the name it uses."""


@dataclass(frozen=True, eq=False)
class RobotDescription:
    """A robot description carried inside a recording.

    ``kind`` is ``urdf`` or ``mjcf``; ``where`` names it in messages (the
    file and the topic, or the file and the embedded model); ``assets`` are
    the files an MJCF names (meshes, includes), by the path it names them
    with. ``size_bytes`` (text and assets together) is known before they are
    read: a big description is read only when it is first used
    (:meth:`read_later`), once, whichever thread asks first.
    """

    where: str
    files: LoadOnce[DescriptionFiles] = field(repr=False)
    kind: str = "urdf"
    size_bytes: int = 0
    scene_recorded: bool = False
    """Whether the recording's own scene geometry draws this robot already (a
    simulator's body poses, with the bodies that are not the robot's): drawn
    with it, the recording keeps that scene and gains the ``robot/<link>``
    channels and the tip trail."""

    @classmethod
    def of_text(
        cls,
        text: bytes,
        where: str,
        kind: str = "urdf",
        assets: dict[str, bytes] | None = None,
        *,
        scene_recorded: bool = False,
    ) -> RobotDescription:
        """Return a description read already."""
        found = dict(assets or {})
        size = len(text) + sum(len(item) for item in found.values())
        return cls(where, LoadOnce.ready((text, found)), kind, size, scene_recorded)

    @classmethod
    def read_later(
        cls,
        read: Callable[[], DescriptionFiles],
        where: str,
        kind: str,
        size_bytes: int,
        *,
        path: str | Path | None = None,
        scene_recorded: bool = False,
    ) -> RobotDescription:
        """Return a description ``read()`` gives when it is first used.

        ``read`` raises :class:`~fsr_core.errors.FsrError` (naming ``path``)
        when the recording's copy cannot be read.
        """
        files = LoadOnce(read, what=f"robot description {where}", path=path)
        return cls(where, files, kind, size_bytes, scene_recorded)

    @property
    def text(self) -> bytes:
        """The description's text (read now if it was not yet).

        Raises
        ------
        FsrError
            The recording's copy of it cannot be read.
        """
        return self.files.get()[0]

    @property
    def assets(self) -> dict[str, bytes]:
        """The files the description names, by that name (read now if not yet).

        Raises
        ------
        FsrError
            The recording's copy of them cannot be read.
        """
        return self.files.get()[1]


@dataclass(frozen=True)
class RecordingModel:
    """A recording as the viewer sees it, whatever its source format."""

    path: Path
    source: str
    title: str
    timeline: Timeline
    channels: dict[str, Channel]
    cameras: tuple[CameraTrack, ...] = ()
    kinematics: PlanarKinematics | None = None
    geometry: SceneGeometry | None = None
    """Recorded 3D scene geometry, drawn when there is no planar arm."""
    joints: JointSet | None = None
    """Which channels hold the robot's joints, with their names and units;
    ``None`` when the source records none."""
    overlays: dict[int, TaskOverlay] = field(default_factory=dict)
    active_target_channel: str | None = None
    external_force_channel: str | None = None
    readouts: dict[str, str] = field(default_factory=dict)
    markers: tuple[Marker, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    integrity: Integrity = Integrity.VALID
    integrity_reason: str = ""
    report: dict[str, Any] = field(default_factory=dict)
    can_rerender: str | None = None
    can_resimulate: str | None = None
    task_texts: tuple[tuple[float, str], ...] = ()
    """The task the robot was given, in words (a dataset's language
    instruction): ``(play time from which it holds, text)``, in time order."""
    robot_description: RobotDescription | None = None
    """The robot's description the recording carries (an MCAP's
    ``/robot_description``), drawn when the user names none."""
    refine: Callable[[Callable[[int, int], None]], RecordingModel] | None = field(
        default=None, compare=False, repr=False
    )
    """A model opened before every check (:attr:`integrity` ``UNVERIFIED``, for
    the window to show at once): what returns the checked model, to take its
    place. It reports ``progress(done, total)`` and raises
    :class:`~fsr_core.errors.FsrError` as opening the file would."""

    @property
    def duration_s(self) -> float:
        """Play-time length of the recording."""
        return self.timeline.duration_s

    @property
    def has_scene(self) -> bool:
        """Whether a scene view has something to draw: an arm or 3D geometry."""
        return self.kinematics is not None or self.geometry is not None

    def overlay_at(self, play_time_s: float) -> TaskOverlay | None:
        """Return the task overlay of the generation playing at ``play_time_s``."""
        generation, _ = self.timeline.locate(play_time_s)
        return self.overlays.get(generation)

    def task_text_at(self, play_time_s: float) -> str:
        """Return the task text in force at ``play_time_s`` ('' when none)."""
        text = ""
        for start_s, candidate in self.task_texts:
            if start_s > play_time_s + TIME_EPSILON_S:
                break
            text = candidate
        return text

    @property
    def joint_channel(self) -> str | None:
        """The channel of the joint positions (:attr:`joints`), if it exists."""
        joints = self.joints
        if joints is None or joints.positions not in self.channels:
            return None
        return joints.positions

    def joint_angles_at(self, play_time_s: float) -> FloatArray | None:
        """Return the joint positions at ``play_time_s``, in radians and metres.

        One value per joint of :attr:`joints`, in its order (NaN where the
        sample lacks the column); ``None`` when the model records no joints.
        """
        name = self.joint_channel
        if name is None or self.joints is None:
            return None
        sample = self.channels[name].value_at(play_time_s)
        return joint_values(sample, self.joints.position_columns, self.joints.joints)
