"""What the joints do: jerk, stillness, the final pose, the action's offset, the limits.

All of it is computed at once over the whole take with numpy: velocities,
accelerations and jerks by finite differences over the samples' own times.
A sample with a non-finite value drops out of every figure it touches
(``non_finite`` reports it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.flags import Flag, FlagKind
from fsr_core.checks.joint_series import JointSeries
from fsr_core.checks.thresholds import Thresholds

__all__ = [
    "Motion",
    "limit_flags",
    "motion_of",
    "non_finite_flags",
    "offset_flags",
    "peak_centres",
    "runs_of",
    "speed_and_jerk",
]


@dataclass(frozen=True)
class Motion:
    """The state's motion figures."""

    speed: FloatArray
    """Per step ``i`` (samples ``i`` to ``i+1``): the fastest joint's speed."""
    still: np.ndarray
    """Per sample: no joint moves faster than ``still_speed`` around it."""
    jerk_median: float | None
    jerk_p95: float | None
    jerk_peak_s: float | None
    static_fraction: float | None
    end_state: tuple[float, ...] | None


def _derivative(values: FloatArray, times: FloatArray) -> FloatArray:
    """Return d(values)/dt between neighbours, and the midpoints' times."""
    step = np.diff(times)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate: FloatArray = np.diff(values, axis=0) / step[:, None]
    rate[~(step > 0)] = np.nan
    return rate


def speed_and_jerk(
    values: FloatArray, times: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Return per step the fastest joint's speed, per 4 samples the jerk's norm.

    Both are NaN where a joint is NaN or the times do not increase. Each
    figure reads only its own samples (step ``i``: samples ``i`` and ``i+1``;
    jerk ``i``: samples ``i`` to ``i+3``), so over episodes laid end to end
    each episode's figures are those it has alone.
    """
    with np.errstate(all="ignore"):  # huge values overflow to inf: judged so
        velocity = _derivative(values, times)
        speed: FloatArray = np.max(np.abs(velocity), axis=1)  # NaN: a joint is NaN
        mid = (times[:-1] + times[1:]) / 2
        acceleration = _derivative(velocity, mid)
        mid2 = (mid[:-1] + mid[1:]) / 2
        jerk = _derivative(acceleration, mid2)
        norm: FloatArray = np.linalg.norm(jerk, axis=1)
    return speed, norm


def peak_centres(values: FloatArray, peaks: np.ndarray) -> np.ndarray:
    """Return the sample at the heart of each jerk sample ``peaks`` names.

    Jerk sample ``i`` spans samples ``i`` to ``i+3``; its largest term sits at
    ``i+1`` or ``i+2``, whichever has the larger second difference (``i+1``
    when neither is finite).
    """
    windows = values[peaks[:, None] + np.arange(4)]
    second = np.abs(np.diff(windows, n=2, axis=1)).max(axis=2)
    later = np.argmax(np.where(np.isnan(second), -np.inf, second), axis=1)
    later[~np.isfinite(second).any(axis=1)] = 0
    centres: np.ndarray = peaks + 1 + later
    return centres


def motion_of(state: JointSeries, thresholds: Thresholds) -> Motion:
    """Return the motion figures of ``state`` (``None`` ones with too few samples)."""
    times, values = state.times_s, state.values
    finite_rows = np.isfinite(values).all(axis=1)
    end_state = (
        tuple(float(v) for v in values[np.flatnonzero(finite_rows)[-1]])
        if finite_rows.any()
        else None
    )
    if times.size < max(int(thresholds.min_samples), 4):
        empty = np.zeros(0)
        return Motion(
            empty, np.zeros(times.size, bool), None, None, None, None, end_state
        )
    speed, jerk_norm = speed_and_jerk(values, times)
    finite_jerk = np.isfinite(jerk_norm)
    still_step = speed < thresholds.still_speed  # NaN compares False
    # A sample is still when the steps on both sides of it (those it has) are.
    before = np.concatenate([[True], still_step])
    after = np.concatenate([still_step, [True]])
    still = before & after & finite_rows
    judged = np.isfinite(speed)
    static_fraction = float(still_step[judged].mean()) if judged.any() else None
    if finite_jerk.any():
        valid = jerk_norm[finite_jerk]
        peak = int(np.flatnonzero(finite_jerk)[np.argmax(valid)])
        centre = int(peak_centres(values, np.array([peak]))[0])
        return Motion(
            speed,
            still,
            float(np.median(valid)),
            float(np.percentile(valid, 95)),
            float(times[min(centre, times.size - 1)]),
            static_fraction,
            end_state,
        )
    return Motion(speed, still, None, None, None, static_fraction, end_state)


def runs_of(mask: np.ndarray) -> list[tuple[int, int]]:
    """Return ``(first, last)`` of each run of True in ``mask``."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def non_finite_flags(
    name: str, times: FloatArray, values: FloatArray, *, strict: bool = True
) -> list[Flag]:
    """Return one flag per channel holding NaN or Inf, over where they are.

    Without ``strict`` (a channel no pose or command is read from), a column
    that is never finite (a limit that is unbounded) and the samples before a
    column's first finite value (a figure not yet measured) are passed over.
    """
    if values.size == 0 or np.issubdtype(values.dtype, np.integer):
        return []
    flat = values.reshape(values.shape[0], -1)
    bad = ~np.isfinite(flat)
    if not strict:
        bad &= np.logical_or.accumulate(~bad, axis=0)  # from the first finite on
    rows = np.flatnonzero(bad.any(axis=1))
    if rows.size == 0:
        return []
    first, last = int(rows[0]), int(rows[-1])
    count = int(bad.sum())
    return [
        Flag.over(
            FlagKind.NON_FINITE,
            name,
            times,
            first,
            last,
            float(count),
            0.0,
            f"{count} NaN or Inf values in {rows.size} samples "
            f"(first at sample {first})",
        )
    ]


def offset_flags(
    state: JointSeries, action: JointSeries, still: np.ndarray, thresholds: Thresholds
) -> list[Flag]:
    """Return a flag per joint whose action sits off its state on still frames."""
    difference = action.values - state.values
    usable = still & np.isfinite(difference).all(axis=1)
    if usable.sum() < thresholds.offset_min_frames:
        return []
    median = np.median(difference[usable], axis=0)
    rows = np.flatnonzero(usable)
    start, end = float(state.times_s[rows[0]]), float(state.times_s[rows[-1]])
    flags = []
    for joint in np.flatnonzero(np.abs(median) > thresholds.offset_threshold):
        value = float(median[joint])
        flags.append(
            Flag(
                FlagKind.ACTION_STATE_OFFSET,
                f"{action.channel}/{state.names[joint]}",
                start,
                end,
                value,
                thresholds.offset_threshold,
                f"on {rows.size} still frames, {action.channel} - {state.channel} of "
                f"{state.names[joint]} is {value:+.4g} (median): calibration drift?",
            )
        )
    return flags


def limit_flags(state: JointSeries, thresholds: Thresholds) -> list[Flag]:
    """Return a flag per joint that goes past its model limits."""
    tolerance = thresholds.limit_tolerance
    with np.errstate(invalid="ignore"):
        below = state.lower[None, :] - state.values
        above = state.values - state.upper[None, :]
        excess = np.fmax(below, above)
    flags = []
    outside = excess > tolerance  # NaN limits compare False
    for joint in np.flatnonzero(outside.any(axis=0)):
        rows = np.flatnonzero(outside[:, joint])
        worst = float(np.nanmax(excess[:, joint]))
        flags.append(
            Flag.over(
                FlagKind.LIMIT_VIOLATION,
                f"{state.channel}/{state.names[joint]}",
                state.times_s,
                rows[0],
                rows[-1],
                worst,
                tolerance,
                f"{state.names[joint]} outside [{state.lower[joint]:.4g}, "
                f"{state.upper[joint]:.4g}] on {rows.size} samples, "
                f"by up to {worst:.4g}",
            )
        )
    return flags
