"""The numeric leaves of many messages of one topic, read by a plan.

:func:`~fsr_core.sources.toolkit.numeric_leaves.numeric_leaves` of a
message's plain tree walks every field of every message. The messages of one
topic nearly always share their shape (the same joint names, arrays of the
same lengths), so the walk of the first message is written down as a plan:
which fields, in which order, give the numbers. Each later message is read by
the plan when its shape matches the plan's (a tuple of its array lengths and
name lists, checked first), else by the walk. A plan is only used when it
reads its own first message exactly as the walk does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.toolkit.message_kinds import STAMP_FIELDS
from fsr_core.sources.toolkit.numeric_leaves import MAX_LIST, numeric_leaves

__all__ = ["LeafPlan", "plan_for"]

_NAME_FIELDS: Final = ("name", "names", "joint_names")
_STAMPS: Final = frozenset(frozenset(pair) for pair in STAMP_FIELDS)
_MAX_STEPS: Final = 256

Getter = Callable[[Any], Any]


def _chain(outer: Getter, name: str) -> Getter:
    return lambda message: getattr(outer(message), name)


def _field_names(value: Any) -> tuple[str, ...] | None:
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return None
    return tuple(f.name for f in dataclasses.fields(value) if f.name != "__msgtype__")


class _Planner:
    """Walk one message as ``numeric_leaves(plain_tree(...))`` would, noting how."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, Getter]] = []
        """``("scalar", get)`` or ``("array", get)``, in leaf order."""
        self.checks: list[Getter] = []
        """What a message's shape is read from (array lengths, name lists)."""
        self.simple = True

    def message(self, value: Any, get: Getter) -> None:
        names = _field_names(value)
        if names is None:
            self.simple = False
            return
        if frozenset(names) in _STAMPS:
            return  # a time stamp: left out, as the walk leaves it out
        listed = None
        for candidate in _NAME_FIELDS:
            if candidate in names:
                items = getattr(value, candidate)
                if isinstance(items, list) and items:
                    listed = candidate
                    self.checks.append(_chain(get, candidate))
                    break
        for name in names:
            self.field(
                getattr(value, name), _chain(get, name), named=listed is not None
            )

    def field(self, value: Any, get: Getter, *, named: bool) -> None:
        if len(self.steps) > _MAX_STEPS:
            self.simple = False
        elif isinstance(value, bool | int | float | np.generic):
            self.steps.append(("scalar", get))
        elif isinstance(value, str | bytes):
            return
        elif isinstance(value, np.ndarray):
            self.array(value, get)
        elif isinstance(value, list):
            if value and not all(isinstance(item, str) for item in value):
                self.simple = False  # a list of messages: the walk reads it
        else:
            self.message(value, get)

    def array(self, value: np.ndarray, get: Getter) -> None:
        if value.dtype in (np.uint8, np.int8) or value.ndim != 1:
            return  # bytes, or an array the walk leaves out
        self.checks.append(lambda message: getattr(get(message), "size", -1))
        if value.size <= MAX_LIST and value.size:
            self.steps.append(("array", get))


class LeafPlan:
    """Read the numeric leaves of messages shaped like the first one."""

    def __init__(self, first: Any, names: tuple[str, ...], planner: _Planner) -> None:
        self.names = names
        self._steps = planner.steps
        self._checks = planner.checks
        self._shape = self.shape(first)

    def shape(self, message: Any) -> tuple[Any, ...]:
        """Return what decides the leaves' names and count (lengths, name lists)."""
        found = []
        for check in self._checks:
            value = check(message)
            found.append(tuple(value) if isinstance(value, list) else value)
        return tuple(found)

    def values(self, message: Any) -> list[float] | None:
        """Return the leaves' values, ``None`` when ``message`` is shaped otherwise."""
        if self.shape(message) != self._shape:
            return None
        out: list[float] = []
        for kind, get in self._steps:
            if kind == "scalar":
                out.append(float(get(message)))
            else:
                out.extend(get(message).tolist())
        return out


def plan_for(first: Any) -> LeafPlan | None:
    """Return the plan of messages shaped like ``first`` (``None``: walk each).

    ``None`` when the message holds what a plan does not read (lists of
    messages, very many fields), or when the plan does not read ``first``
    exactly as the walk does.
    """
    planner = _Planner()
    planner.message(first, lambda message: message)
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
