"""Split items laid out in order into runs that each cover a bounded extent."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["runs_within"]


def runs_within(
    starts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    extent: int,
    *,
    max_gap: int | None = None,
) -> list[tuple[int, int]]:
    """Return ``(first, last)`` runs of items whose ends lie within ``extent``.

    Items are in order (``ends`` ascending); a run starting at item ``first``
    takes every following item that ends at most ``extent`` after
    ``starts[first]``, and always at least the one item, so an item larger
    than ``extent`` is a run of its own. With ``max_gap``, a run also ends
    before an item that starts more than ``max_gap`` after the previous one
    ends, so a run read in one piece never spans much that is not its items.
    """
    count = len(starts)
    stops = [count]
    if max_gap is not None and count > 1:
        gaps = starts[1:] - ends[:-1]
        stops = [*(np.flatnonzero(gaps > max_gap) + 1).tolist(), count]
    runs: list[tuple[int, int]] = []
    first = 0
    for stop in stops:
        while first < stop:
            limit = int(starts[first]) + extent
            last = int(np.searchsorted(ends, limit, side="right"))
            last = min(max(last, first + 1), stop)
            runs.append((first, last))
            first = last
    return runs
