"""Fast reads of the record index: a stream's rows, the distinct values of a column.

The open path reads these for every stream of every file it opens, so they
avoid two slow spots of numpy: fancy indexing of the index's structured dtype
(``entries[rows]`` copies field by field; :func:`take_rows` is about 20x
faster) and :func:`numpy.unique` (which sorts, and imports ``numpy.ma`` on
its first call: several milliseconds of a command's start-up).
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct", "take_rows"]


def take_rows(entries: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return the index entries at ``rows`` (a copy), as ``entries[rows]`` does."""
    return np.take(entries, rows)


def distinct(values: np.ndarray) -> np.ndarray:
    """Return the distinct values of an integer column, ascending (``np.unique``).

    A column already in order (generations in record order, the usual case)
    costs one comparison pass; any other is sorted first.
    """
    column = np.asarray(values).ravel()
    if len(column) > 1 and bool((column[1:] < column[:-1]).any()):
        column = np.sort(column, kind="stable")
    keep = np.ones(len(column), dtype=bool)
    np.not_equal(column[1:], column[:-1], out=keep[1:])
    result: np.ndarray = column[keep]
    return result
