"""Binary search over one stream's clocks, with the four seek modes."""

from __future__ import annotations

from enum import StrEnum
from typing import TypedDict

import numpy as np

from fsr_core.errors import SeekOutOfRangeError

__all__ = ["SeekMode", "SeekWhere", "find_row"]


class SeekMode(StrEnum):
    """How a seek picks a record relative to the requested key."""

    EXACT = "exact"
    AT_OR_BEFORE = "at_or_before"
    AT_OR_AFTER = "at_or_after"
    NEAREST = "nearest"


class SeekWhere(TypedDict, total=False):
    """Where a seek looks: a tick or a sim time, in a generation, and how."""

    generation: int | None
    tick: int | None
    sim_time_s: float | None
    mode: str | SeekMode


def find_row(keys: np.ndarray, value: float, mode: SeekMode) -> int | None:
    """Return the index in sorted ``keys`` chosen by ``mode``, or ``None``.

    ``keys`` must be non-decreasing (checked when the file was opened). Equal
    keys resolve to the first of them, except ``at_or_before``, which takes the
    last.
    """
    count = len(keys)
    if count == 0:
        return None
    left = int(np.searchsorted(keys, value, side="left"))
    if mode is SeekMode.EXACT:
        return left if left < count and keys[left] == value else None
    if mode is SeekMode.AT_OR_AFTER:
        return left if left < count else None
    right = int(np.searchsorted(keys, value, side="right"))
    if mode is SeekMode.AT_OR_BEFORE:
        return right - 1 if right > 0 else None
    if left < count and keys[left] == value:
        return left
    before = right - 1
    if before < 0:
        return left
    if left >= count:
        return before
    # keys[before] < value < keys[left]: nearest, ties go to the earlier record.
    # Python numbers: an int64 difference would overflow for spans over 2^63.
    if value - keys[before].item() <= keys[left].item() - value:
        first_equal = int(np.searchsorted(keys, keys[before], side="left"))
        return first_equal
    return left


def parse_mode(mode: str | SeekMode) -> SeekMode:
    """Return the :class:`SeekMode` named ``mode`` (ValueError when unknown)."""
    try:
        return SeekMode(mode)
    except ValueError as exc:
        raise ValueError(
            f"unknown seek mode {mode!r}; use one of {[m.value for m in SeekMode]}"
        ) from exc


def ensure_range(count: int, seq: int, stream: str) -> None:
    """Raise :class:`SeekOutOfRangeError` when ``seq`` is not a record of the stream."""
    if not 0 <= seq < count:
        raise SeekOutOfRangeError(
            f"record {seq} is outside 0..{count - 1}", stream=stream
        )
