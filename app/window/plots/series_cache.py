"""Series of a recording for the plots: key resolution and min/max decimation.

Plain numpy, no Qt (docs/style.md, Module and function size: data shaping is
separate from painting). A *series key* names what a plot shows: ``"channel"`` is every
column of a channel, ``"channel[col]"`` one column by name, ``"channel[3]"``
one column by index. :func:`decimate` cuts a series to the visible range and
keeps each bucket's minimum and maximum, so a 100k-point series draws as a
few thousand points without losing its peaks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

import numpy as np

from fsr_core.arrays import FloatArray, IndexArray
from fsr_core.recording import Channel, RecordingModel

__all__ = [
    "DETAIL_SAMPLES",
    "PLOT_LIMIT",
    "Detail",
    "Series",
    "column_keys",
    "column_names",
    "decimate",
    "detailed_points",
    "drawable",
    "extent_indices",
    "grown_extent_indices",
    "key_columns",
    "parse_key",
    "resolve_key",
    "series_keys",
    "unread_channels",
    "view_points",
]


#: Largest magnitude a plot draws, in time or value. Beyond it the plotting
#: library's ranges and ticks overflow (``1e308`` is finite, its span is not);
#: such samples are left out as gaps, and the plot says so.
PLOT_LIMIT: Final = 1e100

#: Most samples of a long channel read for a zoomed-in view (about 2 MB a column).
DETAIL_SAMPLES: Final = 200_000

Detail: TypeAlias = Callable[[float, float], tuple[FloatArray, FloatArray] | None]
"""``detail(x_min, x_max)``: a long channel's column in full over (at least) that
range, or ``None`` when the range holds too many samples to read."""


@dataclass(frozen=True, eq=False)
class Series:
    """One plottable column: play times, values, and how to name it."""

    key: str
    channel: str
    name: str
    x: FloatArray
    y: FloatArray
    unit: str
    label: str
    detail: Detail | None = None
    """For a channel drawn from its overview (``x``, ``y``: each bucket's
    extremes): reads the samples of a zoomed-in view."""


def column_names(channel: Channel) -> tuple[str, ...]:
    """Return a channel's column names: its ``columns`` or ``name[j]``."""
    if len(channel.columns) == channel.width:
        return channel.columns
    return tuple(f"{channel.name}[{index}]" for index in range(channel.width))


def column_keys(channel: Channel) -> tuple[str, ...]:
    """Return a channel's column keys: ``"name[col]"``, or ``"name[j]"`` unnamed."""
    if len(channel.columns) == channel.width:
        return tuple(f"{channel.name}[{column}]" for column in channel.columns)
    return tuple(f"{channel.name}[{index}]" for index in range(channel.width))


def parse_key(key: str) -> tuple[str, str | None]:
    """Split a series key into its channel name and column part (None: all).

    Parameters
    ----------
    key
        ``"channel"``, ``"channel[col]"`` or ``"channel[3]"``.

    Returns
    -------
    tuple of str and (str or None)
        The channel name and the text between the brackets, if any.
    """
    if key.endswith("]") and "[" in key:
        # Channel names hold no brackets; column names may ("tau[3]").
        channel, _, column = key[:-1].partition("[")
        if channel:
            return channel, column
    return key, None


def _column_index(channel: Channel, column: str) -> int | None:
    """Return the index of ``column`` (by name, then as an integer), or None."""
    if column in channel.columns:
        return channel.columns.index(column)
    if column.isdigit() and int(column) < channel.width:
        return int(column)
    return None


def _column(values: FloatArray, index: int) -> FloatArray:
    column: FloatArray = values if values.ndim == 1 else values[:, index]
    return column


def _channel_of(model: RecordingModel, key: str) -> tuple[Channel, str | None] | None:
    """Return the channel a key names and its column part (``None``: all)."""
    channel = model.channels.get(key)
    if channel is not None:
        return channel, None
    name, column = parse_key(key)
    channel = model.channels.get(name)
    if channel is None or column is None:
        return None
    return channel, column


def _indices(channel: Channel, column: str | None) -> list[int]:
    """Return the column indices of a key's column part (all for ``None``)."""
    if column is None:
        return list(range(channel.width))
    found = _column_index(channel, column)
    return [] if found is None else [found]


def unread_channels(
    model: RecordingModel, plots: tuple[tuple[str, ...], ...]
) -> list[Channel]:
    """Return the channels the plots' keys name that are still to be read.

    A channel whose reading failed is not among them: its plot names the error.
    """
    found: dict[str, Channel] = {}
    for keys in plots:
        for key in keys:
            named = _channel_of(model, key)
            if named is None:
                continue
            channel = named[0]
            if channel.prefers_overview:
                if not channel.overview_loaded and channel.overview_error is None:
                    found.setdefault(channel.name, channel)
            elif not channel.loaded and channel.read_error is None:
                found.setdefault(channel.name, channel)
    return list(found.values())


def key_columns(model: RecordingModel, key: str) -> list[tuple[str, str]]:
    """Return ``(column key, channel name)`` of each column a key names.

    Reads no channel: a channel read only when shown gives the columns it
    knows before reading (those of its first message).
    """
    found = _channel_of(model, key)
    if found is None:
        return []
    channel, column = found
    keys = column_keys(channel)
    return [(keys[index], channel.name) for index in _indices(channel, column)]


def resolve_key(model: RecordingModel, key: str) -> list[Series]:
    """Return the series a key names in ``model`` (empty when it names nothing).

    Parameters
    ----------
    model
        The recording whose channels the key refers to.
    key
        A series key; a whole channel gives one series per column. A key
        naming the full channel exactly (even one with brackets) wins.

    Returns
    -------
    list of Series
        The matching series, in column order.

    Raises
    ------
    FsrError
        The channel is read only when shown, and reading it failed.
    """
    found = _channel_of(model, key)
    if found is None:
        return []
    channel, column = found
    if channel.prefers_overview:
        overview = channel.overview()
        return _column_series(
            channel,
            column,
            lambda index: (overview.times_s[:, index], overview.values[:, index]),
            long=True,
        )
    # Read first: a channel read only when shown may find more columns.
    times = np.asarray(channel.times_s, dtype=np.float64)
    # Converted once for all columns: a wide channel has thousands of them.
    values = np.asarray(channel.values, dtype=np.float64)
    return _column_series(
        channel, column, lambda index: (times, _column(values, index)), long=False
    )


def _column_series(
    channel: Channel,
    column: str | None,
    points: Callable[[int], tuple[FloatArray, FloatArray]],
    *,
    long: bool,
) -> list[Series]:
    """Return the series of a key's columns; ``points(j)`` gives column ``j``'s.

    A ``long`` channel's points are its overview, and each series reads the
    samples of a zoomed-in view.
    """
    names = column_names(channel)
    keys = column_keys(channel)
    found = []
    for index in _indices(channel, column):
        x, y = points(index)
        found.append(
            Series(
                key=keys[index],
                channel=channel.name,
                name=names[index],
                x=x,
                y=y,
                unit=channel.unit,
                label=channel.label or channel.name,
                detail=_column_detail(channel, index) if long else None,
            )
        )
    return found


def _column_detail(channel: Channel, index: int) -> Detail:
    """Read column ``index`` of ``channel`` over a view, with a view each side.

    The read spans three view widths, so a pan within it reads nothing.
    """
    held: list[tuple[FloatArray, FloatArray]] = []

    def detail(x_min: float, x_max: float) -> tuple[FloatArray, FloatArray] | None:
        if held:
            x, _ = held[0]
            if x.size and x[0] <= x_min and x[-1] >= x_max:
                return held[0]
        width = max(x_max - x_min, 0.0)
        data = channel.span(x_min - width, x_max + width, DETAIL_SAMPLES)
        if data is None:
            data = channel.span(x_min, x_max, DETAIL_SAMPLES)
        if data is None:
            return None
        values = np.asarray(data.values, dtype=np.float64)
        found = (
            np.asarray(data.times_s, dtype=np.float64),
            _column(values, index),
        )
        held[:] = [found]
        return found

    return detail


def detailed_points(
    series: Series, x_min: float, x_max: float, buckets: int
) -> tuple[FloatArray, FloatArray] | None:
    """Return a long channel's points for a zoomed-in view, or ``None``.

    ``None`` when the series has no detail reader or the view holds too many
    samples: draw its overview then. Otherwise the samples of the view,
    decimated to ``buckets``, between the overview's points outside them (so
    the drawn data keeps the channel's whole extent).
    """
    if series.detail is None:
        return None
    found = series.detail(x_min, x_max)
    if found is None or not found[0].size:
        return None
    x, y = found
    inside_x, inside_y = decimate(x, y, x_min, x_max, buckets)
    before = series.x < x[0]
    after = series.x > x[-1]
    return (
        np.concatenate((series.x[before], inside_x, series.x[after])),
        np.concatenate((series.y[before], inside_y, series.y[after])),
    )


def drawable(series: Series) -> tuple[Series, bool]:
    """Return ``series`` without samples beyond :data:`PLOT_LIMIT`, and if any were.

    Values beyond the limit become NaN (a gap); times are clamped to it, so
    they stay sorted.
    """
    with np.errstate(invalid="ignore"):
        wild_y = np.abs(series.y) > PLOT_LIMIT
        wild_x = np.abs(series.x) > PLOT_LIMIT
    if not wild_y.any() and not wild_x.any():
        return series, False
    y = np.where(wild_y | wild_x, np.nan, series.y)
    x = np.clip(series.x, -PLOT_LIMIT, PLOT_LIMIT)
    return replace(series, x=x, y=y), True


def series_keys(model: RecordingModel) -> list[str]:
    """Return every series key of ``model``: each channel, then each of its columns.

    Parameters
    ----------
    model
        The recording to list.

    Returns
    -------
    list of str
        ``"channel"`` followed by its ``"channel[col]"`` keys, channel by channel.
    """
    keys: list[str] = []
    for name, channel in model.channels.items():
        keys.append(name)
        keys.extend(column_keys(channel))
    return keys


def _visible_slice(x: FloatArray, x_min: float, x_max: float) -> slice:
    """Return the index range inside ``[x_min, x_max]`` plus one point each side."""
    start = int(np.searchsorted(x, x_min, side="left")) - 1
    stop = int(np.searchsorted(x, x_max, side="right")) + 1
    return slice(max(start, 0), min(max(stop, 0), x.size))


def _peak_indices(y: FloatArray, buckets: int) -> IndexArray:
    """Return the sorted indices of each bucket's minimum and maximum (NaN-safe)."""
    size = y.size
    per_bucket = -(-size // buckets)
    rows = -(-size // per_bucket)
    padded = np.full(rows * per_bucket, np.nan)
    padded[:size] = y
    grid = padded.reshape(rows, per_bucket)
    gaps = np.isnan(grid)
    low = np.argmin(np.where(gaps, np.inf, grid), axis=1)
    high = np.argmax(np.where(gaps, -np.inf, grid), axis=1)
    offsets = np.arange(rows) * per_bucket
    pairs = np.column_stack((np.minimum(low, high), np.maximum(low, high)))
    picked = np.minimum((pairs + offsets[:, None]).ravel(), size - 1)
    fresh = np.ones(picked.size, dtype=bool)
    fresh[1:] = picked[1:] != picked[:-1]
    indices: IndexArray = picked[fresh]
    return indices


def decimate(
    x: FloatArray, y: FloatArray, x_min: float, x_max: float, buckets: int
) -> tuple[FloatArray, FloatArray]:
    """Clip a series to a view range and keep each bucket's extremes.

    Parameters
    ----------
    x
        Sorted sample times.
    y
        Values, same length as ``x``; NaN marks a gap and stays one.
    x_min, x_max
        The visible x range; one sample beyond each edge is kept so lines
        reach the edges of the view.
    buckets
        How many min/max buckets to keep (about the view's width in pixels).

    Returns
    -------
    tuple of ndarray
        At most ``2 * buckets + 2`` points, in time order: the minimum and
        maximum of every bucket inside the view, and the samples just beyond
        its edges.
    """
    if x.size != y.size:
        raise ValueError(f"x has {x.size} samples, y has {y.size}")
    visible = _visible_slice(x, x_min, x_max)
    first = int(np.searchsorted(x, x_min, side="left"))
    stop = int(np.searchsorted(x, x_max, side="right"))
    if stop - first <= 2 * max(buckets, 1):
        return x[visible], y[visible]
    inside = first + _peak_indices(y[first:stop], max(buckets, 1))
    edges = np.arange(visible.start, visible.stop)
    indices = np.concatenate((edges[edges < first], inside, edges[edges >= stop]))
    return x[indices], y[indices]


def extent_indices(y: FloatArray) -> IndexArray:
    """Return the indices of a series' first, last, lowest and highest samples.

    Parameters
    ----------
    y
        The values; NaN is ignored for the lowest and highest.

    Returns
    -------
    ndarray of intp
        Sorted, unique indices (empty for an empty series).
    """
    if y.size == 0:
        return np.zeros(0, dtype=np.intp)
    finite = np.isfinite(y)
    low = int(np.argmin(np.where(finite, y, np.inf)))
    high = int(np.argmax(np.where(finite, y, -np.inf)))
    indices: IndexArray = np.unique(np.array([0, low, high, y.size - 1]))
    return indices


def grown_extent_indices(
    y: FloatArray, anchors: IndexArray, grown_from: int
) -> IndexArray:
    """Return :func:`extent_indices` of ``y``, a series that grew at its end.

    ``anchors`` are the extent indices of its first ``grown_from`` samples
    (unchanged since); only the samples added are scanned, so a followed
    channel an hour long costs its newest samples, not the hour.
    """
    if not 0 < grown_from <= y.size or anchors.size == 0:
        return extent_indices(y)
    tail = extent_indices(y[grown_from - 1 :]) + (grown_from - 1)
    candidates = np.unique(np.concatenate([anchors[anchors < grown_from], tail]))
    picked = y[candidates]
    finite = np.isfinite(picked)
    low = int(candidates[int(np.argmin(np.where(finite, picked, np.inf)))])
    high = int(candidates[int(np.argmax(np.where(finite, picked, -np.inf)))])
    indices: IndexArray = np.unique(np.array([0, low, high, y.size - 1]))
    return indices


def view_points(
    series: Series, anchors: IndexArray, x_min: float, x_max: float, buckets: int
) -> tuple[FloatArray, FloatArray]:
    """Return the points to draw for a view: decimated, plus off-view anchors.

    The anchors (see :func:`extent_indices`) that lie outside the view are
    kept, so the drawn data still spans the whole series (a "View All" or
    auto-range sees its full extent) while their segments stay off screen.

    Parameters
    ----------
    series
        The series to draw.
    anchors
        Sorted sample indices always kept when outside the view.
    x_min, x_max
        The visible x range.
    buckets
        Min/max buckets for the visible part (about the width in pixels).

    Returns
    -------
    tuple of ndarray
        Times and values, in time order.
    """
    x, y = series.x, series.y
    visible = _visible_slice(x, x_min, x_max)
    x_view, y_view = decimate(x, y, x_min, x_max, buckets)
    before = anchors[anchors < visible.start]
    after = anchors[anchors >= max(visible.stop, visible.start)]
    if before.size == 0 and after.size == 0:
        return x_view, y_view
    x_all: FloatArray = np.concatenate((x[before], x_view, x[after]))
    y_all: FloatArray = np.concatenate((y[before], y_view, y[after]))
    return x_all, y_all
