"""Many episodes of a LeRobot dataset read at once, for checks of their numbers.

Each data file is read once (the row groups of the episodes asked for), its
columns turned into float64 once, and each episode's rows found by a binary
search of the ``index`` column (or ``episode_index``). The play times follow
the rule of :mod:`fsr_core.sources.lerobot.recording_model` for every episode
at once: timestamps less the first, put on the frame grid when they sit on it.
So an episode's numbers are exactly those its model would hold.

An episode is left to be opened on its own when its model would hold more
than numbers or say something of them: the dataset has cameras, depth, or a
recorder's journal; its timestamps do not increase; its row count differs
from the metadata; its rows are not found by a search (an ``index`` column
out of order); its file does not read whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import Channel
from fsr_core.sources.episode_columns import EpisodeColumns
from fsr_core.sources.lerobot.depth import read_depth_meta
from fsr_core.sources.lerobot.joints import dataset_joints
from fsr_core.sources.lerobot.parquet import float_matrix, open_parquet, read_table
from fsr_core.sources.lerobot.rows import row_groups_for
from fsr_core.sources.lerobot.table import EpisodeMeta, EpisodeTable, episode_table

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["lerobot_columns"]

_ON_GRID_FRAMES: Final = 1e-3
"""As :mod:`fsr_core.sources.lerobot.recording_model`: off the grid by less is on it."""
_BOOKKEEPING: Final = (
    "timestamp",
    "frame_index",
    "episode_index",
    "index",
    "task_index",
)


class _Found:
    """The rows found so far: the files' columns and each episode's rows in them."""

    def __init__(self) -> None:
        self.episodes: list[EpisodeMeta] = []
        self.files: list[tuple[FloatArray, dict[str, FloatArray]]] = []
        """Each file's timestamps and numeric columns, as read."""
        self.spans: list[tuple[int, int, int]] = []
        """Per episode: its file's place in ``files``, its first and end row."""

    def stamps(self, kept: Sequence[int]) -> FloatArray:
        """Return the timestamps of the episodes ``kept`` (places), end to end."""
        return self._gathered(self._plan(kept), lambda file: file[0])

    def values(self, kept: Sequence[int], key: str) -> FloatArray:
        """Return the values of column ``key`` of the episodes ``kept``, end to end."""
        return self._gathered(self._plan(kept), lambda file: file[1][key])

    def _plan(self, kept: Sequence[int]) -> list[tuple[int, np.ndarray | None]]:
        """Return per file (in order) the rows ``kept`` takes of it (None: all)."""
        by_file: dict[int, list[tuple[int, int]]] = {}
        for episode in kept:  # in file order already: files are read in turn
            place, first, last = self.spans[episode]
            by_file.setdefault(place, []).append((first, last))
        plan: list[tuple[int, np.ndarray | None]] = []
        for place, spans in by_file.items():
            rows = np.concatenate([np.arange(a, b) for a, b in spans])
            size = self.files[place][0].shape[0]
            whole = rows.size == size and bool(np.all(np.diff(rows) == 1))
            plan.append((place, None if whole else rows))
        return plan

    def _gathered(
        self,
        plan: list[tuple[int, np.ndarray | None]],
        column: Callable[[tuple[FloatArray, dict[str, FloatArray]]], FloatArray],
    ) -> FloatArray:
        parts = [
            column(self.files[place])
            if rows is None
            else column(self.files[place])[rows]
            for place, rows in plan
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _ordered(
    path: Path, rows: pa.Table, name: str, *, strictly: bool
) -> FloatArray | None:
    """Return column ``name`` when it is in order (None: absent or out of order)."""
    if name not in rows.column_names:
        return None
    column = float_matrix(path, rows, name, 1)
    steps = np.diff(column)
    return column if bool(np.all(steps > 0 if strictly else steps >= 0)) else None


def _read_file(
    table: EpisodeTable, path: Path, episodes: list[EpisodeMeta], found: _Found
) -> None:
    """Add the rows of ``episodes`` (all in data file ``path``) to ``found``."""
    info = table.info
    handle = open_parquet(path)
    spans = [e.rows for e in episodes if e.rows is not None]
    whole = (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None
    groups = row_groups_for(handle, whole if len(spans) == len(episodes) else None)
    numeric = info.numeric
    width = sum(feature.width for feature in numeric) + 4
    columns = [*_BOOKKEEPING, *(feature.key for feature in numeric)]
    rows = read_table(path, handle, columns, groups, bytes_per_row=8 * width)
    names = rows.column_names
    if "timestamp" not in names:
        return
    stamps = float_matrix(path, rows, "timestamp", 1)
    values = {
        f.key: float_matrix(path, rows, f.key, f.width)
        for f in numeric
        if f.key in names
    }
    index = _ordered(path, rows, "index", strictly=True)
    by_episode = _ordered(path, rows, "episode_index", strictly=False)
    place = len(found.files)
    found.files.append((stamps, values))
    for episode in episodes:
        # The rule of episode_rows: the index span, else the episode index of a
        # packed file, else every row; out of order, it is opened on its own.
        if episode.rows is not None and "index" in names:
            if index is None:
                continue
            first = int(np.searchsorted(index, episode.rows[0], "left"))
            last = int(np.searchsorted(index, episode.rows[1], "left"))
        elif "episode_index" in names and info.packed:
            if by_episode is None:
                continue
            first = int(np.searchsorted(by_episode, episode.index, "left"))
            last = int(np.searchsorted(by_episode, episode.index, "right"))
        else:
            first, last = 0, stamps.size
        if last - first != episode.length or last <= first:
            continue  # no rows, or not the metadata's count: opening says so
        found.episodes.append(episode)
        found.spans.append((place, first, last))


def _play_times(
    stamps: FloatArray, bounds: np.ndarray, fps: float
) -> tuple[FloatArray, np.ndarray]:
    """Return every episode's play times and which episodes' stamps increase."""
    count = bounds.size - 1
    segment = np.repeat(np.arange(count), np.diff(bounds))
    steps_bad = ~(np.diff(stamps) > 0) & (segment[1:] == segment[:-1])
    bad = np.bincount(segment[1:][steps_bad], minlength=count)
    bad += np.bincount(segment[~np.isfinite(stamps)], minlength=count)
    with np.errstate(invalid="ignore", over="ignore"):  # inf or NaN stamps
        times = stamps - stamps[bounds[:-1]][segment]
        ticks = np.round(times * fps)
        off = ~(np.abs(times * fps - ticks) < _ON_GRID_FRAMES)
    on_grid = np.bincount(segment[off], minlength=count) == 0
    snapped: FloatArray = np.where(on_grid[segment], ticks / fps, times)
    return snapped, bad == 0


def _only_numbers(table: EpisodeTable) -> bool:
    """Whether an episode's model holds numbers alone: no camera, depth, journal."""
    if table.info.cameras or table.journal is not None:
        return False
    sensors, problem = read_depth_meta(table.info.root)
    return not sensors and not problem


def lerobot_columns(
    root: Path, indices: Sequence[int]
) -> tuple[EpisodeColumns | None, list[int]]:
    """Return the episodes ``indices`` of ``root`` read together, and the rest.

    Raises
    ------
    FsrError
        The dataset's metadata cannot be read.
    """
    table = episode_table(root)
    if not _only_numbers(table):
        return None, list(indices)
    listed: dict[int, EpisodeMeta] = {}
    for meta in table.episodes:
        listed.setdefault(meta.index, meta)  # the first, as table.find
    by_file: dict[Path, list[EpisodeMeta]] = {}
    for index in dict.fromkeys(indices):
        episode = listed.get(index)
        if episode is not None and episode.data_file is not None:
            by_file.setdefault(episode.data_file, []).append(episode)
    found = _Found()
    for path, episodes in by_file.items():
        try:
            _read_file(table, path, episodes, found)
        except FsrError:
            continue  # each episode of it opens on its own and says what is wrong
    keys = set(found.files[0][1]) if found.files else set()
    same = [
        i for i, span in enumerate(found.spans) if set(found.files[span[0]][1]) == keys
    ]
    if not same:
        return None, list(indices)
    lengths = np.array([found.spans[i][2] - found.spans[i][1] for i in same])
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    times, rising = _play_times(found.stamps(same), bounds, table.info.fps)
    kept = [same[k] for k in np.flatnonzero(rising)]
    if not kept:
        return None, list(indices)
    if len(kept) < len(same):
        times = times[np.repeat(rising, lengths)]
        bounds = np.concatenate([[0], np.cumsum(lengths[rising])])
    values = {key: found.values(kept, key) for key in keys}
    episodes = [found.episodes[i] for i in kept]
    columns = {f.key: f.columns for f in table.info.numeric if f.key in keys}
    first = slice(0, int(bounds[1]))
    channels = {
        key: Channel(key, times[first], values[key][first], label=key, columns=names)
        for key, names in columns.items()
    }
    served = {episode.index for episode in episodes}
    return (
        EpisodeColumns(
            paths=tuple(episode_path(root, e.index) for e in episodes),
            episodes=tuple(e.index for e in episodes),
            bounds=bounds,
            times_s=times,
            values=values,
            joints=dataset_joints(channels),
            columns=columns,
        ),
        [index for index in indices if index not in served],
    )
