"""The numeric leaves of many messages of one topic, read by a plan.

:func:`~fsr_core.sources.toolkit.numeric_leaves.numeric_leaves` of a
message's plain tree walks every field of every message. The messages of one
topic nearly always share their shape (the same joint names, arrays of the
same lengths), so the walk of the first message is written down as a plan:
which fields, in which order, give the numbers. Each later message is read by
the plan when its shape matches the plan's (a tuple of its array lengths and
name lists, checked first), else by the walk. A plan is only used when it
reads its own first message exactly as the walk does.

A plan reads a message with two C-level attribute getters (its shape, then
its fields, as dotted paths), and turns many messages' fields into rows at
once (:meth:`LeafPlan.rows`): the per-message work is two calls, not one
Python step per leaf.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.toolkit.message_kinds import STAMP_FIELDS
from fsr_core.sources.toolkit.numeric_leaves import MAX_LIST, numeric_leaves

__all__ = ["LeafPlan", "plan_for"]

_NAME_FIELDS: Final = ("name", "names", "joint_names")
_STAMPS: Final = frozenset(frozenset(pair) for pair in STAMP_FIELDS)
_MAX_STEPS: Final = 256


def _joined(outer: str, name: str) -> str:
    return f"{outer}.{name}" if outer else name


def _field_names(value: Any) -> tuple[str, ...] | None:
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return None
    return tuple(f.name for f in dataclasses.fields(value) if f.name != "__msgtype__")


def _getter(paths: Sequence[str]) -> Callable[[Any], tuple[Any, ...]]:
    """Return what reads ``paths`` of a message as one tuple (one C call)."""
    if not paths:
        return lambda message: ()
    if len(paths) == 1:
        single = operator.attrgetter(paths[0])
        return lambda message: (single(message),)
    return operator.attrgetter(*paths)


class _Planner:
    """Walk one message as ``numeric_leaves(plain_tree(...))`` would, noting how."""

    def __init__(self) -> None:
        self.steps: list[tuple[bool, str]] = []
        """``(is_array, dotted path)``, in leaf order."""
        self.checks: list[str] = []
        """Dotted paths a message's shape is read from (array sizes, name lists)."""
        self.simple = True

    def message(self, value: Any, at: str) -> None:
        names = _field_names(value)
        if names is None:
            self.simple = False
            return
        if frozenset(names) in _STAMPS:
            return  # a time stamp: left out, as the walk leaves it out
        for candidate in _NAME_FIELDS:
            if candidate in names:
                items = getattr(value, candidate)
                if isinstance(items, list) and items:
                    self.checks.append(_joined(at, candidate))
                    break
        for name in names:
            self.field(getattr(value, name), _joined(at, name))

    def field(self, value: Any, at: str) -> None:
        if len(self.steps) > _MAX_STEPS:
            self.simple = False
        elif isinstance(value, bool | int | float | np.generic):
            self.steps.append((False, at))
        elif isinstance(value, str | bytes):
            return
        elif isinstance(value, np.ndarray):
            self.array(value, at)
        elif isinstance(value, list):
            if value and not all(isinstance(item, str) for item in value):
                self.simple = False  # a list of messages: the walk reads it
        else:
            self.message(value, at)

    def array(self, value: np.ndarray, at: str) -> None:
        if value.dtype in (np.uint8, np.int8) or value.ndim != 1:
            return  # bytes, or an array the walk leaves out
        self.checks.append(_joined(at, "size"))
        if value.size <= MAX_LIST and value.size:
            self.steps.append((True, at))


class LeafPlan:
    """Read the numeric leaves of messages shaped like the first one."""

    def __init__(self, first: Any, names: tuple[str, ...], planner: _Planner) -> None:
        self.names = names
        self._arrays = tuple(is_array for is_array, _ in planner.steps)
        self._fields = _getter([path for _, path in planner.steps])
        self._shape_of = _getter(planner.checks)
        self._shape = tuple(
            list(value) if isinstance(value, list) else value
            for value in self._shape_of(first)
        )

    def parts(self, message: Any) -> tuple[Any, ...] | None:
        """Return the fields of ``message``'s leaves (``None``: shaped otherwise)."""
        try:
            if self._shape_of(message) != self._shape:
                return None
        except AttributeError:
            return None
        return self._fields(message)

    def rows(self, parts: Sequence[tuple[Any, ...]]) -> FloatArray:
        """Return the leaves of many messages' :meth:`parts`, a row each."""
        count = len(parts)
        if not self._arrays:
            empty: FloatArray = np.zeros((count, 0), dtype=np.float64)
            return empty
        blocks = []
        for index, is_array in enumerate(self._arrays):
            column = [found[index] for found in parts]
            if is_array:
                # Every message's array has the plan's size (its shape says).
                joined = np.concatenate(column).astype(np.float64, copy=False)
                blocks.append(joined.reshape(count, -1))
            else:
                blocks.append(np.asarray(column, dtype=np.float64).reshape(count, 1))
        values: FloatArray = np.hstack(blocks) if len(blocks) > 1 else blocks[0]
        return values

    def values(self, message: Any) -> list[float] | None:
        """Return one message's leaves, ``None`` when it is shaped otherwise."""
        parts = self.parts(message)
        if parts is None:
            return None
        found: list[float] = self.rows([parts])[0].tolist()
        return found


def plan_for(first: Any) -> LeafPlan | None:
    """Return the plan of messages shaped like ``first`` (``None``: walk each).

    ``None`` when the message holds what a plan does not read (lists of
    messages, very many fields), or when the plan does not read ``first``
    exactly as the walk does.
    """
    planner = _Planner()
    planner.message(first, "")
    if not planner.simple:
        return None
    walked = numeric_leaves(plain_tree(first))
    plan = LeafPlan(first, tuple(walked), planner)
    try:
        planned = plan.values(first)
    except (AttributeError, TypeError, ValueError):
        return None
    expected = np.asarray(list(walked.values()), dtype=np.float64)
    if planned is None or len(planned) != expected.size:
        return None
    if not np.array_equal(
        np.asarray(planned, dtype=np.float64), expected, equal_nan=True
    ):
        return None
    return plan
