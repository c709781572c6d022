"""Value checks and the overlay object shared by the planar-arm tasks.

Every check raises :class:`~fsr_core.errors.SchemaError` (section ``"task"``)
naming the offending value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias

import numpy as np

from fsr_core.errors import SchemaError

#: A point in the arm plane, ``(x, y)``, metres.
XY: TypeAlias = tuple[float, float]

_SECTION: Final = "task"


def fail(message: str) -> SchemaError:
    return SchemaError(message, section=_SECTION)


def check_number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(f"{name} must be a number, found {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise fail(f"{name} must be finite, found {number}")
    return number + 0.0  # fold -0.0


def check_positive(value: object, name: str) -> float:
    number = check_number(value, name)
    if number <= 0:
        raise fail(f"{name} must be positive, found {number}")
    return number


def check_xy(value: object, name: str) -> XY:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise fail(f"{name} must be a pair of numbers [x, y], found {value!r}")
    return (check_number(value[0], f"{name}[0]"), check_number(value[1], f"{name}[1]"))


def check_xy_list(value: object, name: str) -> tuple[XY, ...]:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or not value:
        raise fail(f"{name} must be a non-empty list of [x, y] pairs")
    return tuple(check_xy(item, f"{name}[{i}]") for i, item in enumerate(value))


def check_index(value: object, name: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise fail(f"{name} must be an integer >= 0, found {value!r}")
    return value


def check_fields(
    obj: object, kind: str, required: tuple[str, ...], optional: tuple[str, ...]
) -> Mapping[str, Any]:
    """Check a task's JSON object: its kind, required and known keys."""
    if not isinstance(obj, Mapping):
        raise fail(f"a task must be an object, found {obj!r}")
    if obj.get("kind") != kind:
        raise fail(f"expected task kind {kind!r}, found {obj.get('kind')!r}")
    for key in required:
        if key not in obj:
            raise fail(f"{kind} task: required key {key!r} is missing")
    known = {"kind", *required, *optional}
    for key in sorted(str(key) for key in obj):
        if key not in known:
            raise fail(f"{kind} task: unknown key {key!r}")
    return obj


def xy_pairs(points: Sequence[XY]) -> list[list[float]]:
    return [[x, y] for x, y in points]


def overlay(
    kind: str,
    *,
    targets: Sequence[tuple[str, XY, float]] = (),
    active_index: int | None = None,
    switches: Sequence[tuple[float, int]] = (),
    curve_xy: Sequence[XY] = (),
    reference_xy: Sequence[XY] = (),
) -> dict[str, Any]:
    return {
        "kind": kind,
        "targets": [
            {"label": label, "xy": [xy[0], xy[1]], "tolerance_m": tolerance}
            for label, xy, tolerance in targets
        ],
        "active_index": active_index,
        "switches": [[time_s, index] for time_s, index in switches],
        "curve_xy": xy_pairs(curve_xy),
        "reference_xy": xy_pairs(reference_xy),
    }


def check_time(t_s: float) -> float:
    if not math.isfinite(t_s):
        raise ValueError(f"t_s must be finite, got {t_s}")
    return float(t_s)
