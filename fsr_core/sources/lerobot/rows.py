"""An episode's rows: time, task and every numeric feature, read from one file.

In a packed (v3) data file only the row groups whose ``index`` statistics
overlap the episode's span are read, and only the bookkeeping and numeric
columns; image columns stay on disk until a frame is asked for
(:mod:`fsr_core.sources.lerobot.images`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeAlias

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.sources.lerobot.parquet import (
    file_stamp,
    float_matrix,
    open_parquet,
    read_table,
)
from fsr_core.sources.lerobot.table import EpisodeMeta, EpisodeTable

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = ["EpisodeRows", "RowPlace", "episode_rows", "row_groups_for"]

_Spans: TypeAlias = "tuple[np.ndarray, np.ndarray, np.ndarray]"


@dataclass(frozen=True)
class RowPlace:
    """Where an episode's rows are in its data file: row group and row in it."""

    groups: tuple[int, ...]
    """The row group of each row of the episode."""
    offsets: tuple[int, ...]
    """Each row's position inside its row group."""


@dataclass(frozen=True, eq=False)
class EpisodeRows:
    """The numbers of one episode, in row order."""

    path: Path
    timestamps_s: FloatArray
    frame_index: FloatArray
    task_index: FloatArray | None
    values: dict[str, FloatArray]
    place: RowPlace


def row_groups_for(handle: pq.ParquetFile, rows: tuple[int, int] | None) -> list[int]:
    """Return the row groups that may hold dataset rows ``[from, to)`` (all: None).

    A row group whose ``index`` column has no statistics is kept.
    """
    metadata = handle.metadata
    every = list(range(metadata.num_row_groups))
    if rows is None:
        return every
    spans = _index_spans(handle)
    if spans is None:
        return every
    low, high, known = spans
    first, last = rows
    chosen = ~known | ((high >= first) & (low < last))
    return [int(group) for group in np.flatnonzero(chosen)]


_SPANS_KEPT: Final = 64
_SPANS: OrderedDict[tuple[object, ...], _Spans | None] = OrderedDict()
_SPANS_LOCK = threading.Lock()


def _numeric_span(stats: object) -> bool:
    """Whether footer statistics give a numeric lowest and highest."""
    return bool(
        stats is not None
        and getattr(stats, "has_min_max", False)
        and isinstance(getattr(stats, "min", None), int | float)
        and isinstance(getattr(stats, "max", None), int | float)
    )


def _index_spans(handle: pq.ParquetFile) -> _Spans | None:
    """Return each row group's lowest and highest ``index`` and whether known.

    Read from the footer's statistics once per file (kept by its identity,
    :func:`~fsr_core.sources.lerobot.parquet.file_stamp`), so a dataset of a
    thousand episodes in one file walks them once, not a thousand times.
    ``None`` when the file has no ``index`` column.
    """
    stamp = file_stamp(handle)
    if stamp is not None:
        with _SPANS_LOCK:
            if stamp in _SPANS:
                return _SPANS[stamp]
    metadata = handle.metadata
    leaves = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
    spans: _Spans | None = None
    if "index" in leaves:
        column = leaves.index("index")
        groups = metadata.num_row_groups
        low = np.zeros(groups)
        high = np.zeros(groups)
        known = np.zeros(groups, dtype=bool)
        for group in range(groups):
            stats = metadata.row_group(group).column(column).statistics
            if _numeric_span(stats):
                low[group], high[group], known[group] = stats.min, stats.max, True
        spans = (low, high, known)
    if stamp is not None:
        with _SPANS_LOCK:
            _SPANS[stamp] = spans
            while len(_SPANS) > _SPANS_KEPT:
                _SPANS.popitem(last=False)
    return spans


def _group_of_rows(
    handle: pq.ParquetFile, groups: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    sizes = [handle.metadata.row_group(group).num_rows for group in groups]
    group_ids = np.repeat(np.asarray(groups, dtype=np.int64), sizes)
    offsets = np.concatenate(
        [np.arange(size, dtype=np.int64) for size in sizes] or [np.zeros(0, np.int64)]
    )
    return group_ids, offsets


def episode_rows(table: EpisodeTable, episode: EpisodeMeta) -> EpisodeRows:
    """Read the rows of ``episode``: time, frame and task indices, numeric features.

    Raises
    ------
    SchemaError
        The data file has no ``timestamp`` column, or the episode's rows are
        missing from it.
    FsrError
        The file cannot be read (see :mod:`fsr_core.sources.lerobot.parquet`).
    """
    if episode.data_file is None:
        raise SchemaError(episode.problem or "no data file", path=table.info.root)
    path = episode.data_file
    handle = open_parquet(path)
    groups = row_groups_for(handle, episode.rows)
    numeric = table.info.numeric
    width = sum(feature.width for feature in numeric) + 4
    columns = ["timestamp", "frame_index", "episode_index", "index", "task_index"]
    columns += [feature.key for feature in numeric]
    rows = read_table(path, handle, columns, groups, bytes_per_row=8 * width)
    if "timestamp" not in rows.column_names:
        raise SchemaError("the data file has no timestamp column", path=path)
    group_ids, offsets = _group_of_rows(handle, groups)
    keep = np.ones(rows.num_rows, dtype=bool)
    if episode.rows is not None and "index" in rows.column_names:
        index = float_matrix(path, rows, "index", 1)
        keep = (index >= episode.rows[0]) & (index < episode.rows[1])
    elif "episode_index" in rows.column_names and table.info.packed:
        keep = float_matrix(path, rows, "episode_index", 1) == episode.index
    if not np.any(keep):
        raise SchemaError(
            f"episode {episode.index}: its rows are not in the data file", path=path
        )
    positions = np.flatnonzero(keep)
    subset = rows.take(positions)
    values: dict[str, FloatArray] = {}
    for feature in numeric:
        if feature.key in subset.column_names:
            values[feature.key] = float_matrix(path, subset, feature.key, feature.width)
    names = subset.column_names
    return EpisodeRows(
        path=path,
        timestamps_s=float_matrix(path, subset, "timestamp", 1),
        frame_index=(
            float_matrix(path, subset, "frame_index", 1)
            if "frame_index" in names
            else np.arange(subset.num_rows, dtype=np.float64)
        ),
        task_index=(
            float_matrix(path, subset, "task_index", 1)
            if "task_index" in names
            else None
        ),
        values=values,
        place=RowPlace(
            tuple(int(g) for g in group_ids[positions]),
            tuple(int(o) for o in offsets[positions]),
        ),
    )
