"""Split items laid out in order into runs that each cover a bounded extent."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["runs_within"]


def runs_within(
    starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64], extent: int
) -> list[tuple[int, int]]:
    """Return ``(first, last)`` runs of items whose ends lie within ``extent``.

    Items are in order (``ends`` ascending); a run starting at item ``first``
    takes every following item that ends at most ``extent`` after
    ``starts[first]``, and always at least the one item, so an item larger
    than ``extent`` is a run of its own.
    """
    runs: list[tuple[int, int]] = []
    first = 0
    count = len(starts)
    while first < count:
        limit = int(starts[first]) + extent
        last = int(np.searchsorted(ends, limit, side="right"))
        last = max(last, first + 1)
        runs.append((first, last))
        first = last
    return runs
