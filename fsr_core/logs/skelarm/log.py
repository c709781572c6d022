"""A skelarm log's contents, checked: metadata, ``time`` and the channel shapes.

``time`` holds the N frame times in seconds; every other member but
``__meta__`` is a float64 channel of shape (N,) or (N, k).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.logs.skelarm.archive import META_MEMBER, read_file
from fsr_core.logs.skelarm.meta import parse_meta

__all__ = ["CheckedLog", "check_log"]


_TIME = "time"


@dataclass(frozen=True)
class CheckedLog:
    """What the archive holds, checked: arrays by member name and the parsed TOML."""

    arrays: dict[str, FloatArray]
    times_s: FloatArray
    meta: dict[str, Any]
    meta_text: str = ""
    """The ``__meta__`` TOML document as the log holds it."""


def _check_time(arrays: dict[str, FloatArray], name: str) -> FloatArray:
    times = arrays.pop(_TIME, None)
    if times is None:
        raise SchemaError("no 'time' member", path=name)
    if times.ndim != 1 or len(times) == 0:
        raise SchemaError(
            f"'time' must be (N,) with N >= 1, found {times.shape}", path=name
        )
    if not np.isfinite(times).all():
        first = int(np.flatnonzero(~np.isfinite(times))[0])
        raise SchemaError(f"'time' is not finite at frame {first}", path=name)
    steps = np.diff(times)
    if (steps < 0).any():
        first = int(np.flatnonzero(steps < 0)[0]) + 1
        raise SchemaError(
            f"'time' goes backwards at frame {first} "
            f"({float(times[first - 1])!r} then {float(times[first])!r})",
            path=name,
        )
    return times


_FIXED_SHAPES = {"ext_force": (2,), "active_target": ()}


def _check_channel(key: str, values: FloatArray, frames: int, name: str) -> None:
    if values.ndim not in (1, 2) or values.shape[0] != frames:
        raise SchemaError(
            f"channel {key!r} has shape {values.shape}, expected ({frames},) "
            f"or ({frames}, k) like 'time'",
            path=name,
        )
    if values.ndim == 2 and values.shape[1] == 0:
        raise SchemaError(f"channel {key!r} has no columns", path=name)
    expected = _FIXED_SHAPES.get(key)
    if expected is not None and values.shape[1:] != expected:
        shape = (frames, *expected)
        raise SchemaError(
            f"channel {key!r} has shape {values.shape}, expected {shape}", path=name
        )
    if key == "q" and values.ndim != 2:
        raise SchemaError(
            f"channel 'q' has shape {values.shape}, expected ({frames}, joints)",
            path=name,
        )
    if key == "active_target" and not (np.abs(values) < 2**31).all():
        raise SchemaError("channel 'active_target' holds a non-index value", path=name)


def check_arrays(
    arrays: dict[str, Any], meta: dict[str, Any], meta_text: str, name: str
) -> CheckedLog:
    """Check ``time`` and the channels of a log whose metadata is parsed.

    ``arrays`` holds ``time`` and every channel by name (``__meta__`` removed).

    Raises
    ------
    SchemaError
        No ``time`` or ``q``, a ``time`` that is not finite and non-decreasing,
        or a channel whose shape does not fit.
    """
    floats = {key: np.asarray(value, dtype=np.float64) for key, value in arrays.items()}
    times = _check_time(floats, name)
    if "q" not in floats:
        raise SchemaError("no 'q' member (joint angles)", path=name)
    for key, values in floats.items():
        _check_channel(key, values, len(times), name)
    for values in (times, *floats.values()):
        values.flags.writeable = False
    return CheckedLog(floats, times, meta, meta_text)


def check_log(path: Path) -> CheckedLog:
    """Read the log at ``path`` and check its metadata, time and channels."""
    name = str(path)
    raw = read_file(path)
    text = raw.get(META_MEMBER)
    meta = parse_meta(raw, name)  # checks that __meta__ is a 0-d unicode array
    return check_arrays(raw, meta, "" if text is None else str(text[()]), name)
