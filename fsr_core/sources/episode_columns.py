"""Many episodes of a dataset as one table of columns, for checks that read them all.

Opening a thousand dataset episodes one by one builds a thousand recording
models; a check of their numbers only needs each episode's play times and
numeric channels. A source that keeps its episodes in shared tables (a
LeRobot data file) offers :meth:`ColumnsSource.episode_columns`: the rows of
many episodes read once, laid end to end in one :class:`EpisodeColumns`.

It serves only the episodes whose model would hold exactly those numbers and
nothing else to check: no cameras, nothing the source would mark degraded or
invalid, no robot to pose. The others are left for the caller to open one by
one, so what it sees of them (a note, an error) is what opening says.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError
from fsr_core.joint_set import JointSet
from fsr_core.playlists.episodes import split_episode_path
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.registry import EpisodeSource, source_for

__all__ = ["ColumnsSource", "EpisodeColumns", "columns_of"]


@dataclass(frozen=True, eq=False)
class EpisodeColumns:
    """Episodes of one dataset laid end to end: rows ``bounds[i]:bounds[i+1]``."""

    paths: tuple[Path, ...]
    """Each episode's address (its model's path)."""
    episodes: tuple[int, ...]
    """Each episode's index in its dataset."""
    bounds: np.ndarray
    """Row offsets, one more than there are episodes; each episode has a row."""
    times_s: FloatArray
    """Each row's play time (each episode's from 0, as its model has them)."""
    values: dict[str, FloatArray]
    """Each numeric channel's values, ``(rows,)`` or ``(rows, width)``."""
    joints: JointSet | None
    """The joints every episode's model has (the same for all of them)."""
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each channel's column names."""

    def __len__(self) -> int:
        """Return how many episodes it holds."""
        return len(self.paths)

    def rows(self, position: int) -> slice:
        """Return the rows of the episode at ``position``."""
        return slice(int(self.bounds[position]), int(self.bounds[position + 1]))


@runtime_checkable
class ColumnsSource(EpisodeSource, Protocol):
    """An episode source that reads many episodes' numbers in one go."""

    def episode_columns(
        self, root: Path, episodes: Sequence[int]
    ) -> tuple[EpisodeColumns | None, list[int]]:
        """Return the ``episodes`` of ``root`` it reads together, and the rest.

        The rest are those to open one by one: with cameras, rows that do
        not read cleanly, anything opening would note.

        Raises
        ------
        FsrError
            The dataset's metadata cannot be read.
        """
        ...


def columns_of(
    paths: Sequence[Path], options: OpenOptions | None = None
) -> Iterator[EpisodeColumns | Path]:
    """Yield the ``paths`` as tables of episodes where a source can, else as paths.

    Episodes of one dataset root are read together by a :class:`ColumnsSource`;
    every other path (a file, a dataset whose source reads one at a time, an
    episode left out, a dataset whose metadata does not read) comes back as
    it is. ``options`` asking for a robot send every path back: posing is
    done on a model.
    """
    if options is not None and options.robot is not None:
        yield from paths
        return
    roots: dict[Path, list[tuple[int, Path]]] = {}
    for path in paths:
        found = split_episode_path(path)
        if found is None:
            yield path
            continue
        roots.setdefault(found[0], []).append((found[1], path))
    for root, listed in roots.items():
        yield from _dataset_columns(root, listed)


def _dataset_columns(
    root: Path, listed: list[tuple[int, Path]]
) -> Iterator[EpisodeColumns | Path]:
    by_index = dict(listed)
    try:
        source = source_for(root)
        if not isinstance(source, ColumnsSource) or source.unavailable_reason():
            yield from (path for _, path in listed)
            return
        table, rest = source.episode_columns(root, [index for index, _ in listed])
    except FsrError:
        yield from (path for _, path in listed)
        return
    if table is not None:
        yield table
    yield from (by_index[index] for index in rest)
