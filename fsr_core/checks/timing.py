"""``timestamp_gap`` and ``timestamp_disorder``: a stream's times, step by step.

Times that go backwards are disorder (one flag per stream, over the span they
occur in); so are times that repeat in a regularly sampled stream (most steps
within 10 % of the median). A step longer than ``gap_factor`` median periods
is a gap, again only in a regular stream: a stream written on change (a
target's index) or in bursts (messages logged together) has no period to miss
and may stamp a burst alike.

A generation reset is a seam, not disorder: the generations are laid end to
end on the play-time axis, so the last sample before a reset and the first
after it share one time. A step that repeats a time at one of the ``seams_s``
is not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.flags import Flag, FlagKind
from fsr_core.checks.thresholds import Thresholds
from fsr_core.recording import TIME_EPSILON_S

__all__ = ["MAX_GAP_FLAGS", "timing_flags"]

MAX_GAP_FLAGS: Final = 20
"""Gaps flagged one by one per stream; further ones are counted in the last."""
_REGULAR_SHARE: Final = 0.8
_REGULAR_SPREAD: Final = 0.1


def _at_seams(times: FloatArray, seams_s: Sequence[float]) -> np.ndarray:
    """Return, per step, whether it repeats a time at a seam (a reset)."""
    steps = np.diff(times)
    at_seam = np.zeros(steps.shape, dtype=bool)
    seams = np.sort(np.asarray(seams_s, dtype=np.float64))
    repeats = np.flatnonzero(np.abs(steps) <= TIME_EPSILON_S)
    if seams.size == 0 or repeats.size == 0:
        return at_seam
    where = times[repeats]
    right = np.clip(np.searchsorted(seams, where), 0, seams.size - 1)
    left = np.clip(right - 1, 0, seams.size - 1)
    nearest = np.minimum(np.abs(seams[right] - where), np.abs(seams[left] - where))
    at_seam[repeats[nearest <= TIME_EPSILON_S]] = True
    return at_seam


def timing_flags(
    name: str,
    times_s: FloatArray,
    thresholds: Thresholds,
    *,
    seams_s: Sequence[float] = (),
) -> list[Flag]:
    """Return the disorder and gap flags of one stream's times (play time).

    ``seams_s`` are the play times of generation resets, where a time may
    repeat.
    """
    times = np.asarray(times_s, dtype=np.float64)
    if times.size < 2:
        return []
    steps = np.diff(times)
    seam = _at_seams(times, seams_s)
    flags: list[Flag] = []
    forward = steps[steps > 0]
    period = float(np.median(forward)) if forward.size else 0.0
    regular = (
        period > 0
        and times.size >= thresholds.min_samples
        and float((np.abs(forward - period) <= _REGULAR_SPREAD * period).sum())
        >= _REGULAR_SHARE * steps.size
    )
    bad = np.flatnonzero((~(steps > 0) if regular else ~(steps >= 0)) & ~seam)
    if bad.size:
        first, last = int(bad[0]), int(bad[-1])
        flags.append(
            Flag.over(
                FlagKind.TIMESTAMP_DISORDER,
                name,
                times,
                first,
                last + 1,
                float(bad.size),
                0.0,
                f"{bad.size} of {steps.size} steps go backwards"
                + (" or repeat" if regular else "")
                + f" (first after sample {first})",
            )
        )
    if not regular:
        return flags
    limit = thresholds.gap_factor * period
    gaps = np.flatnonzero(steps > limit)
    for count, row in enumerate(gaps[:MAX_GAP_FLAGS]):
        more = gaps.size - MAX_GAP_FLAGS if count == MAX_GAP_FLAGS - 1 else 0
        flags.append(
            Flag.over(
                FlagKind.TIMESTAMP_GAP,
                name,
                times,
                row,
                row + 1,
                float(steps[row]),
                limit,
                f"{steps[row]:.4g} s between samples {row} and {row + 1} "
                f"(median period {period:.4g} s)"
                + (f"; {more} more gaps" if more else ""),
            )
        )
    return flags
