"""The checks of many dataset episodes at once, from one table of their columns.

:func:`check_columns` gives, for the episodes of an
:class:`~fsr_core.sources.episode_columns.EpisodeColumns` that have nothing
to flag on their own, the :class:`~fsr_core.checks.flags.CheckResult` that
:func:`~fsr_core.checks.check_recording` gives each of them: the same
metrics, to the bit, and no flag. It computes every figure once over all the
rows (each reads only its own episode's samples), then each episode's medians
and percentiles with the episodes of one length together.

An episode it cannot vouch for is left out, for the caller to check on its
own: any step that does not increase or is long enough to be a gap, a value
that is not finite, an action off its state on still frames, a joint past a
limit, too few samples to measure. The screen only ever leaves out too much:
what it keeps, a full check would not flag either.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.flags import CheckResult, EpisodeMetrics
from fsr_core.checks.joint_series import action_channel, joint_columns, joint_limits
from fsr_core.checks.motion import peak_centres, speed_and_jerk
from fsr_core.checks.thresholds import Thresholds
from fsr_core.joint_set import JointSet
from fsr_core.sources.episode_columns import EpisodeColumns, columns_of
from fsr_core.sources.open_options import OpenOptions

__all__ = ["check_columns", "checked_together"]


class _Segments:
    """Which episode each row, step and jerk sample belongs to."""

    def __init__(self, bounds: np.ndarray) -> None:
        self.count = bounds.size - 1
        self.starts = bounds[:-1]
        self.lengths = np.diff(bounds)
        self.of_row = np.repeat(np.arange(self.count), self.lengths)

    def within(self, span: int) -> np.ndarray:
        """Per figure over ``span + 1`` rows: whether they are one episode's."""
        rows = self.of_row
        same: np.ndarray = rows[:-span] == rows[span:]
        return same

    def counts(self, mask: np.ndarray | np.bool_) -> np.ndarray:
        """Return per episode how many of the figures ``mask`` marks are its."""
        marks = np.asarray(mask, dtype=bool)
        return np.bincount(self.of_row[: marks.size][marks], minlength=self.count)

    def reduce(self, ufunc: np.ufunc, figures: FloatArray) -> FloatArray:
        """Return ``ufunc`` over each episode's figures (starting at its first row)."""
        starts = np.minimum(self.starts, figures.shape[0] - 1)  # a 1-row last episode
        reduced: FloatArray = ufunc.reduceat(figures, starts, axis=0)
        return reduced


def _clean_timing(
    times: FloatArray, parts: _Segments, thresholds: Thresholds
) -> np.ndarray:
    """Per episode: every step forward, none long enough to be a gap.

    The median period is at least the shortest step, so a longest step
    within ``gap_factor`` shortest ones is no gap whatever the median.
    """
    steps = np.diff(times)
    inside = parts.within(1)
    shortest = parts.reduce(np.minimum, np.where(inside, steps, np.inf))
    longest = parts.reduce(np.maximum, np.where(inside, steps, -np.inf))
    ok: np.ndarray = (shortest > 0) & (longest <= thresholds.gap_factor * shortest)
    return ok


def _all_finite(table: EpisodeColumns, parts: _Segments) -> np.ndarray:
    """Per episode: every value of every channel finite."""
    ok = np.ones(parts.count, dtype=bool)
    for values in table.values.values():
        flat = values.reshape(values.shape[0], -1)
        ok &= parts.counts(~np.isfinite(flat).all(axis=1)) == 0
    return ok


def _quantiles(
    jerk: FloatArray, parts: _Segments, chosen: np.ndarray
) -> tuple[FloatArray, FloatArray, np.ndarray]:
    """Return per episode the jerk's median, 95th percentile and its peak's row.

    Episodes of one length are stacked and reduced along their rows, which is
    the arithmetic numpy does for each alone.
    """
    median = np.full(parts.count, np.nan)
    p95 = np.full(parts.count, np.nan)
    peak = np.zeros(parts.count, dtype=np.int64)
    sizes = parts.lengths - 3
    for size in np.unique(sizes[chosen]):
        group = np.flatnonzero(chosen & (sizes == size))
        stacked = jerk[parts.starts[group, None] + np.arange(size)]
        median[group] = np.median(stacked, axis=1)
        p95[group] = np.percentile(stacked, 95, axis=1)
        peak[group] = parts.starts[group] + np.argmax(stacked, axis=1)
    return median, p95, peak


def _no_offset(
    table: EpisodeColumns,
    joints: JointSet,
    state: FloatArray,
    still: np.ndarray,
    parts: _Segments,
    thresholds: Thresholds,
) -> np.ndarray:
    """Per episode: no joint's action off its state on still frames.

    No still frame's difference past the threshold means no median past it.
    """
    widths = {
        key: 1 if values.ndim == 1 else values.shape[1]
        for key, values in table.values.items()
    }
    name = action_channel(widths, joints, joints.positions)
    if name is None:
        return np.ones(parts.count, dtype=bool)
    action = joint_columns(table.values[name], joints, joints.position_columns)
    difference = action - state
    usable = still & np.isfinite(difference).all(axis=1)
    frames = parts.counts(usable)
    largest = parts.reduce(np.maximum, np.where(usable[:, None], np.abs(difference), 0))
    past = (largest > thresholds.offset_threshold).any(axis=1)
    ok: np.ndarray = (frames < thresholds.offset_min_frames) | ~past
    return ok


def _within_limits(
    joints: JointSet, state: FloatArray, parts: _Segments, tolerance: float
) -> np.ndarray:
    """Per episode: every joint within its model limits (where they are known)."""
    lower, upper = joint_limits(joints)
    if not (np.isfinite(lower).any() or np.isfinite(upper).any()):
        return np.ones(parts.count, dtype=bool)
    with np.errstate(invalid="ignore"):
        excess = np.fmax(lower[None, :] - state, state - upper[None, :])
    ok: np.ndarray = parts.counts((excess > tolerance).any(axis=1)) == 0
    return ok


def check_columns(
    table: EpisodeColumns, thresholds: Thresholds | None = None
) -> dict[int, CheckResult]:
    """Return the result of each episode of ``table`` with nothing to flag.

    Keys are places in ``table``; an episode missing from the answer is one
    to open and check on its own (:func:`~fsr_core.checks.check_recording`).
    """
    limits = thresholds or Thresholds()
    joints = table.joints
    if joints is None or joints.positions not in table.values or not len(table):
        return {}
    # The figures are made for every row; an episode whose values overflow
    # or are not finite is left out, so numpy's warnings of them say nothing.
    with np.errstate(all="ignore"):
        return _clean_results(table, joints, limits)


def _clean_results(
    table: EpisodeColumns, joints: JointSet, limits: Thresholds
) -> dict[int, CheckResult]:
    """:func:`check_columns` once the table has the joints' channel."""
    parts = _Segments(table.bounds)
    times = table.times_s
    state = joint_columns(
        table.values[joints.positions], joints, joints.position_columns
    )
    ok = parts.lengths >= max(int(limits.min_samples), 4)
    if not ok.any():
        return {}
    ok &= _clean_timing(times, parts, limits) & _all_finite(table, parts)
    ok &= parts.counts(~np.isfinite(state).all(axis=1)) == 0
    speed, jerk = speed_and_jerk(state, times)
    ok &= parts.counts(~np.isfinite(jerk) & parts.within(3)) == 0
    still_step = speed < limits.still_speed
    inside = parts.within(1)
    # A sample is still when the steps on both sides of it (those it has) are.
    before = np.concatenate([[True], still_step | ~inside])
    after = np.concatenate([still_step | ~inside, [True]])
    ok &= _no_offset(table, joints, state, before & after, parts, limits)
    ok &= _within_limits(joints, state, parts, limits.limit_tolerance)
    median, p95, peak = _quantiles(jerk, parts, ok)
    centres = peak_centres(state, peak[ok])
    still_steps = parts.counts(still_step & inside)
    results: dict[int, CheckResult] = {}
    for place, centre in zip(np.flatnonzero(ok), centres, strict=True):
        first, count = int(parts.starts[place]), int(parts.lengths[place])
        last = first + count - 1
        metrics = EpisodeMetrics(
            duration_s=float(times[last]),
            frames=count,
            jerk_median=float(median[place]),
            jerk_p95=float(p95[place]),
            jerk_peak_s=float(times[min(int(centre), last)]),
            static_fraction=float(still_steps[place]) / (count - 1),
            end_state=tuple(float(v) for v in state[last]),
            state_channel=joints.positions,
        )
        path = table.paths[place]
        results[int(place)] = CheckResult(str(path), table.episodes[place], metrics, ())
    return results


def checked_together(
    paths: Sequence[Path],
    thresholds: Thresholds | None = None,
    options: OpenOptions | None = None,
) -> dict[Path, CheckResult]:
    """Return the results of the ``paths`` a source reads together with nothing to flag.

    Every other path (a file, an episode with a camera, one with a flag) is
    missing from the answer: open it and :func:`check_recording` it, which
    says what it has.
    """
    found: dict[Path, CheckResult] = {}
    for table in columns_of(paths, options):
        if isinstance(table, EpisodeColumns):
            results = check_columns(table, thresholds)
            found.update((table.paths[place], res) for place, res in results.items())
    return found
