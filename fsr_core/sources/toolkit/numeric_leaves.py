"""Every numeric leaf of a topic's messages, as the columns of one channel.

A decoded message is walked depth first; each number (booleans as 0 and 1) is
a column named by its path: ``tip.x``, ``q.3``, ``pose.covariance.35``. Time
stamps are left out (they are times, not values), and so are strings and
bytes. Where a structure lists names beside arrays of the same length (the
``name`` of a ``JointState``), the arrays' columns are named by them:
``position.joint_1``. Columns are the union over all messages, in the order
first seen; a message without a column has NaN there.
"""

from __future__ import annotations

import math
from array import array
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.sources.toolkit.message_kinds import is_stamp

__all__ = ["MAX_COLUMNS", "MAX_LIST", "NumericTable", "numeric_leaves"]

MAX_COLUMNS: Final = 2048
"""Columns one topic may have; leaves past it are left out (with a note)."""
MAX_LIST: Final = 1024
"""Longest array read as columns; longer ones (point clouds, blobs) are skipped."""
_MAX_DEPTH: Final = 32
_NAME_FIELDS: Final = ("name", "names", "joint_names")
_ROWS_AT_ONCE: Final = 65536


def _names(tree: dict[str, Any]) -> list[str] | None:
    for field in _NAME_FIELDS:
        names = tree.get(field)
        if (
            isinstance(names, list)
            and names
            and all(isinstance(name, str) and name for name in names)
            and len(set(names)) == len(names)
        ):
            return names
    return None


def _walk_dict(
    value: dict[str, Any], path: str, out: dict[str, float], depth: int
) -> None:
    names = _names(value)
    for key, item in value.items():
        if is_stamp(item):
            continue
        child = f"{path}.{key}" if path else str(key)
        if names is not None and isinstance(item, list) and len(item) == len(names):
            _walk_items([f"{child}.{name}" for name in names], item, out, depth + 1)
        else:
            _walk(item, child, out, depth + 1)


def _walk_items(
    paths: list[str],
    items: list[Any] | tuple[Any, ...],
    out: dict[str, float],
    depth: int,
) -> None:
    """Walk the elements of an array, each at its path; plain floats inline.

    The same as calling :func:`_walk` on each (an array of a thousand
    numbers is most of a message), without a call per number.
    """
    for child, item in zip(paths, items, strict=True):
        if type(item) is float:
            if depth > _MAX_DEPTH or len(out) > MAX_COLUMNS:
                return
            out[child] = item if math.isfinite(item) else math.nan
        else:
            _walk(item, child, out, depth)


def _walk(value: Any, path: str, out: dict[str, float], depth: int) -> None:
    if depth > _MAX_DEPTH or len(out) > MAX_COLUMNS:
        return
    if isinstance(value, bool):
        out[path] = 1.0 if value else 0.0
    elif isinstance(value, int | float):
        out[path] = float(value) if math.isfinite(float(value)) else math.nan
    elif isinstance(value, dict):
        _walk_dict(value, path, out, depth)
    elif isinstance(value, list | tuple) and len(value) <= MAX_LIST:
        paths = [
            f"{path}.{index}" if path else str(index) for index in range(len(value))
        ]
        _walk_items(paths, value, out, depth + 1)


def numeric_leaves(tree: Any) -> dict[str, float]:
    """Return ``{path: value}`` of every numeric leaf of a decoded message."""
    out: dict[str, float] = {}
    _walk(tree, "", out, 0)
    return out


class NumericTable:
    """The numeric leaves of one topic's messages, gathered row by row.

    Rows are kept as flat float arrays beside the tuple of names they hold
    (most messages of a topic share one), so a long topic takes 8 bytes a
    value while it is read, and the memory budget is checked as it grows.
    """

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.times_ns = array("q")
        """Each row's time (ns), as given."""
        self._columns: dict[str, int] = {}
        self._shapes: dict[tuple[str, ...], int] = {}
        self._shape_columns: list[np.ndarray] = []
        self._shape_runs: list[list[int]] = []
        """``[shape, rows]``: runs of rows with one set of leaves, in order."""
        self._flat = array("d")
        self.notes: list[str] = []

    def add(self, time_ns: int, tree: Any) -> None:
        """Add the leaves of one message.

        Raises
        ------
        LimitExceededError
            The topic's values grow past the memory budget.
        """
        leaves = numeric_leaves(tree)
        names = tuple(leaves)
        shape = self._shapes.get(names)
        if shape is None:
            shape = self._new_shape(names)
        self.times_ns.append(time_ns)
        self._add_run(shape, 1)
        self._flat.extend(leaves.values())
        if len(self._flat) % 65536 < len(names) or len(self.times_ns) == 1:
            check_budget(MEMORY, self.bytes_needed(), f"topic {self.topic[:80]!r}")

    def add_rows(
        self, times_ns: np.ndarray, names: tuple[str, ...], values: FloatArray
    ) -> None:
        """Add messages that share one set of leaves: ``values[i]`` at ``times_ns[i]``.

        Raises
        ------
        LimitExceededError
            The topic's values grow past the memory budget.
        """
        shape = self._shapes.get(names)
        if shape is None:
            shape = self._new_shape(names)
        count = int(times_ns.size)
        check_budget(
            MEMORY,
            self.bytes_needed() + 8 * count * (len(names) + len(self._columns)),
            f"topic {self.topic[:80]!r}",
        )
        self.times_ns.frombytes(
            np.ascontiguousarray(times_ns, dtype=np.int64).data.cast("B")
        )
        self._add_run(shape, count)
        gathered = np.ascontiguousarray(values, dtype=np.float64)
        if gathered.size:  # a message without numbers (std_msgs/String) adds none
            self._flat.frombytes(gathered.data.cast("B"))

    def _add_run(self, shape: int, count: int) -> None:
        if self._shape_runs and self._shape_runs[-1][0] == shape:
            self._shape_runs[-1][1] += count
        else:
            self._shape_runs.append([shape, count])

    def _new_shape(self, names: tuple[str, ...]) -> int:
        indices = []
        for name in names:
            column = self._columns.get(name)
            if column is None:
                if len(self._columns) >= MAX_COLUMNS:
                    self._note_full()
                    column = -1
                else:
                    column = len(self._columns)
                    self._columns[name] = column
            indices.append(column)
        self._shapes[names] = len(self._shape_columns)
        self._shape_columns.append(np.asarray(indices, dtype=np.int64))
        return len(self._shape_columns) - 1

    def _note_full(self) -> None:
        note = (
            f"topic {self.topic[:80]!r} has more than {MAX_COLUMNS} numeric fields; "
            "the rest are left out"
        )
        if note not in self.notes:
            self.notes.append(note)

    @property
    def rows(self) -> int:
        """Messages added."""
        return len(self.times_ns)

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names, in the order first seen."""
        return tuple(self._columns)

    def bytes_needed(self) -> int:
        """Memory the values take, gathered and as the final array (8 bytes each)."""
        return 8 * (len(self._flat) + self.rows * max(len(self._columns), 1))

    def values(self) -> FloatArray:
        """Return the values, shape ``(messages, columns)``; NaN where missing."""
        flat = np.frombuffer(self._flat, dtype=np.float64)
        width = len(self._columns)
        if (
            len(self._shape_columns) == 1
            and self.rows
            and np.array_equal(self._shape_columns[0], np.arange(width))
        ):
            # Every message has every column, in order: the values are the
            # array as gathered (a view that keeps it alive), not copied.
            whole: FloatArray = flat.reshape(self.rows, width)
            return whole
        result: FloatArray = np.full(
            (self.rows, max(width, 1)), np.nan, dtype=np.float64
        )
        if len(self._shape_columns) == 1:
            self._fill_one_shape(result, flat)
            return result
        runs = np.asarray(self._shape_runs, dtype=np.int64).reshape(-1, 2)
        shapes = np.repeat(runs[:, 0], runs[:, 1])
        widths = np.asarray([len(c) for c in self._shape_columns], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(widths[shapes])[:-1]])
        # In batches of rows: the index arrays of a long topic stay small.
        for begin in range(0, self.rows, _ROWS_AT_ONCE):
            batch = shapes[begin : begin + _ROWS_AT_ONCE]
            for shape, columns in enumerate(self._shape_columns):
                rows = np.flatnonzero(batch == shape) + begin
                if rows.size == 0 or columns.size == 0:
                    continue
                offsets = starts[rows][:, None] + np.arange(columns.size)[None, :]
                kept = columns >= 0
                result[rows[:, None], columns[kept][None, :]] = flat[offsets][:, kept]
        return result

    def _fill_one_shape(self, result: FloatArray, flat: FloatArray) -> None:
        """Fill ``result`` when every message has the same leaves (the usual case)."""
        columns = self._shape_columns[0]
        if self.rows == 0 or columns.size == 0:
            return
        block = flat.reshape(self.rows, columns.size)
        if np.array_equal(columns, np.arange(columns.size)):
            result[:, : columns.size] = block
            return
        kept = columns >= 0
        result[:, columns[kept]] = block[:, kept]
