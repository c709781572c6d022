"""Fast reads of the record index: a stream's rows, the distinct values of a column.

The open path reads these for every stream of every file it opens, so they
avoid two slow spots of numpy: fancy indexing of the index's structured dtype
(``entries[rows]`` copies field by field; :func:`take_rows` is about 20x
faster) and :func:`numpy.unique` (which sorts, and imports ``numpy.ma`` on
its first call: several milliseconds of a command's start-up).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RowColumns", "distinct", "take_rows"]


def take_rows(entries: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return the index entries at ``rows`` (a copy), as ``entries[rows]`` does."""
    return np.take(entries, rows)


class RowColumns:
    """The index entries at ``rows``, gathered one column at a time when asked.

    The checks of a stream's rows read a few columns; copying whole 64-byte
    entries for a stream of millions of records doubled the memory an open
    needs. ``columns["tick"]`` is ``take_rows(entries, rows)["tick"]``; each
    access gathers the column again and nothing is kept, so at most the
    columns a check holds at once are in memory.
    """

    def __init__(self, entries: np.ndarray, rows: np.ndarray) -> None:
        self._entries = entries
        self._rows = rows

    def __len__(self) -> int:
        """Return the number of rows."""
        return len(self._rows)

    def __getitem__(self, name: str) -> np.ndarray:
        """Return column ``name`` of the rows (a fresh copy)."""
        return np.take(self._entries[name], self._rows)


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
