"""``inspect --verify`` of an HDF5 dataset: every episode's arrays checked.

For each episode: every array has as many rows as its ``actions`` (or one
more: ManiSkill's observations and states include the first one, before any
action), each array has the type the first episode gives it, and every
floating-point value is finite (read in slabs of rows, within the memory
budget). Each problem names its episode.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.errors import FsrError
from fsr_core.sources.hdf5.arrays import LEFT_OUT, ArrayInfo, episode_arrays
from fsr_core.sources.hdf5.layouts import DatasetLayout, EpisodeRef
from fsr_core.sources.hdf5.library import h5_errors

__all__ = ["verify_episodes"]

SLAB_BYTES: Final = 32 << 20
"""Bytes of one array read at once while checking its values."""

_ACTION_KEYS: Final = ("actions", "action")


def _reference_rows(arrays: tuple[ArrayInfo, ...]) -> tuple[int, str]:
    for info in arrays:
        if info.key in _ACTION_KEYS:
            return info.rows, info.key
    counts = Counter(info.rows for info in arrays)
    rows = counts.most_common(1)[0][0] if counts else 0
    return rows, "most arrays"


def _not_finite(group: Any, info: ArrayInfo, path: Path) -> tuple[int, int]:
    """Return how many values of ``info`` are not finite, and the first such row."""
    dataset = group[info.key]
    row_bytes = max(info.nbytes // max(info.rows, 1), 1)
    step = max(SLAB_BYTES // row_bytes, 1)
    bad, first = 0, -1
    for start in range(0, info.rows, step):
        with h5_errors(path, f"cannot read {group.name}/{info.key}"):
            slab = np.asarray(dataset[start : start + step])
        finite = np.isfinite(slab).reshape(slab.shape[0], -1).all(axis=1)
        if not finite.all():
            if first < 0:
                first = start + int(np.argmin(finite))
            bad += int(np.count_nonzero(~np.isfinite(slab)))
    return bad, first


def _episode_problems(
    group: Any,
    episode: EpisodeRef,
    path: Path,
    first_types: dict[str, tuple[str, str]],
) -> tuple[int, list[str]]:
    arrays = tuple(a for a in episode_arrays(group, path) if a.role != LEFT_OUT)
    rows, named = _reference_rows(arrays)
    problems: list[str] = []
    checked = 0
    for info in arrays:
        where = f"episode {episode.index} ({episode.name})"
        if info.rows not in (rows, rows + 1):
            problems.append(
                f"{where}: {info.key} has {info.rows} rows where {named} has {rows}"
            )
        seen = first_types.setdefault(info.key, (info.dtype, episode.name))
        if seen[0] != info.dtype:
            problems.append(
                f"{where}: {info.key} is {info.dtype} where {seen[1]}'s is {seen[0]}"
            )
        if np.dtype(info.dtype).kind == "f":
            bad, row = _not_finite(group, info, path)
            if bad:
                problems.append(
                    f"{where}: {info.key} holds {bad} values that are not finite "
                    f"(the first in row {row})"
                )
        checked += info.rows
    return checked, problems


def verify_episodes(
    handle: Any, layout: DatasetLayout, path: Path, only: int | None = None
) -> tuple[int, list[str]]:
    """Check every episode of the file (or episode ``only``).

    Returns the rows checked and the problems found, each naming its episode.
    """
    first_types: dict[str, tuple[str, str]] = {}
    checked = 0
    problems: list[str] = []
    for episode in layout.episodes:
        if only is not None and episode.index != only:
            continue
        try:
            with h5_errors(path, f"cannot open {episode.group}"):
                group = handle[episode.group]
            rows, found = _episode_problems(group, episode, path, first_types)
        except FsrError as exc:
            problems.append(f"episode {episode.index} ({episode.name}): {exc.reason}")
            continue
        checked += rows
        problems.extend(found)
    return checked, problems
