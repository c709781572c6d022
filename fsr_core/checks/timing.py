"""``timestamp_gap`` and ``timestamp_disorder``: a stream's times, step by step.

Times that go backwards or repeat are disorder (one flag per stream, over the
span they occur in). A step longer than ``gap_factor`` median periods is a
gap, but only in a regularly sampled stream (most steps within 10 % of the
median): a stream written on change (a target's index) has no period to miss.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.flags import Flag, FlagKind
from fsr_core.checks.thresholds import Thresholds

__all__ = ["MAX_GAP_FLAGS", "timing_flags"]

MAX_GAP_FLAGS: Final = 20
"""Gaps flagged one by one per stream; further ones are counted in the last."""
_REGULAR_SHARE: Final = 0.8
_REGULAR_SPREAD: Final = 0.1


def timing_flags(name: str, times_s: FloatArray, thresholds: Thresholds) -> list[Flag]:
    """Return the disorder and gap flags of one stream's times (play time)."""
    times = np.asarray(times_s, dtype=np.float64)
    if times.size < 2:
        return []
    steps = np.diff(times)
    flags: list[Flag] = []
    bad = np.flatnonzero(~(steps > 0))
    if bad.size:
        first, last = int(bad[0]), int(bad[-1])
        flags.append(
            Flag(
                FlagKind.TIMESTAMP_DISORDER,
                name,
                float(times[first]),
                float(times[last + 1]),
                float(bad.size),
                0.0,
                f"{bad.size} of {steps.size} steps go backwards or repeat "
                f"(first after sample {first})",
            )
        )
    if times.size < thresholds.min_samples:
        return flags
    forward = steps[steps > 0]
    period = float(np.median(forward)) if forward.size else 0.0
    if period <= 0:
        return flags
    regular = np.abs(forward - period) <= _REGULAR_SPREAD * period
    if regular.mean() < _REGULAR_SHARE:
        return flags
    limit = thresholds.gap_factor * period
    gaps = np.flatnonzero(steps > limit)
    for count, row in enumerate(gaps[:MAX_GAP_FLAGS]):
        more = gaps.size - MAX_GAP_FLAGS if count == MAX_GAP_FLAGS - 1 else 0
        flags.append(
            Flag(
                FlagKind.TIMESTAMP_GAP,
                name,
                float(times[row]),
                float(times[row + 1]),
                float(steps[row]),
                limit,
                f"{steps[row]:.4g} s between samples {row} and {row + 1} "
                f"(median period {period:.4g} s)"
                + (f"; {more} more gaps" if more else ""),
            )
        )
    return flags
