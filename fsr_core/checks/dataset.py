"""The dataset-level checks: a recording against the others of its dataset.

Each metric's outliers are found by the IQR rule (above ``Q3 + k*IQR``, and
for the length also below ``Q1 - k*IQR``) together with a floor of its own
(a ratio or a distance from the median, :class:`Thresholds`), so that a
dataset of near-equal takes, whose IQR is close to zero, does not flag its
ordinary spread. A metric needs :data:`MIN_EPISODES` recordings that have it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.checks.flags import CheckResult, EpisodeMetrics, Flag, FlagKind
from fsr_core.checks.thresholds import Thresholds

__all__ = ["MIN_EPISODES", "Fence", "dataset_fences", "dataset_flags"]

MIN_EPISODES: Final = 4
"""Recordings a dataset needs for its outliers to be judged."""


@dataclass(frozen=True)
class Fence:
    """One metric over a dataset: its values and where an outlier starts."""

    metric: str
    values: tuple[float | None, ...]
    """Per recording, in the order given (``None``: it has none)."""
    median: float
    low: float | None
    """Below this is an outlier (``None``: no low outliers)."""
    high: float
    kind: FlagKind


def _end_distances(metrics: Sequence[EpisodeMetrics]) -> list[float | None]:
    ends = [m.end_state for m in metrics]
    width = max((len(end) for end in ends if end is not None), default=0)
    usable = [np.asarray(end) for end in ends if end is not None and len(end) == width]
    if width == 0 or len(usable) < MIN_EPISODES:
        return [None] * len(metrics)
    typical = np.nanmedian(np.stack(usable), axis=0)
    return [
        None
        if end is None or len(end) != width
        else float(np.linalg.norm(np.asarray(end) - typical))
        for end in ends
    ]


_METRICS: Final[
    tuple[tuple[str, FlagKind, Callable[[EpisodeMetrics], float | None]], ...]
] = (
    (
        "frames",
        FlagKind.LENGTH_OUTLIER,
        lambda m: float(m.frames) if m.frames else None,
    ),
    ("jerk_median", FlagKind.JERK, lambda m: m.jerk_median),
    ("jerk_p95", FlagKind.JERK, lambda m: m.jerk_p95),
    ("static_fraction", FlagKind.STATIC, lambda m: m.static_fraction),
)


def _fence(
    metric: str, kind: FlagKind, values: list[float | None], thresholds: Thresholds
) -> Fence | None:
    known = np.array([v for v in values if v is not None and np.isfinite(v)])
    if known.size < MIN_EPISODES:
        return None
    q1, median, q3 = (float(q) for q in np.percentile(known, (25, 50, 75)))
    spread = thresholds.iqr_k * (q3 - q1)
    low: float | None = None
    if kind is FlagKind.LENGTH_OUTLIER:
        high = max(q3 + spread, median * thresholds.length_min_ratio)
        low = min(q1 - spread, median / thresholds.length_min_ratio)
    elif kind is FlagKind.JERK:
        high = max(q3 + spread, median * thresholds.jerk_min_ratio)
    elif kind is FlagKind.STATIC:
        high = max(q3 + spread, median + thresholds.static_min_delta)
    else:
        high = max(q3 + spread, thresholds.end_pose_min_distance)
    return Fence(metric, tuple(values), median, low, high, kind)


def dataset_fences(
    metrics: Sequence[EpisodeMetrics], thresholds: Thresholds
) -> list[Fence]:
    """Return the fence of every metric the dataset has enough of."""
    fences = []
    for metric, kind, value_of in _METRICS:
        fence = _fence(metric, kind, [value_of(m) for m in metrics], thresholds)
        if fence is not None:
            fences.append(fence)
    ends = _fence(
        "end_distance", FlagKind.END_POSE_OUTLIER, _end_distances(metrics), thresholds
    )
    if ends is not None:
        fences.append(ends)
    return fences


def _span(kind: FlagKind, metrics: EpisodeMetrics) -> tuple[float, float]:
    period = metrics.duration_s / max(metrics.frames - 1, 1)
    if kind is FlagKind.JERK and metrics.jerk_peak_s is not None:
        return max(metrics.jerk_peak_s - period, 0.0), metrics.jerk_peak_s + period
    if kind is FlagKind.END_POSE_OUTLIER:
        return max(metrics.duration_s - period, 0.0), metrics.duration_s
    return 0.0, metrics.duration_s


def _message(fence: Fence, value: float, above: bool) -> str:
    side = "above" if above else "below"
    return (
        f"{fence.metric} {value:.4g} is {side} the dataset's fence "
        f"{fence.high if above else fence.low:.4g} (median {fence.median:.4g})"
    )


def dataset_flags(
    results: Sequence[CheckResult], thresholds: Thresholds
) -> list[tuple[Flag, ...]]:
    """Return, per result, the flags that comparing it with the others gives.

    ``results`` are the recordings of one dataset. A metric two fences share
    (jerk: median and p95) flags a recording once, by the first it crosses.
    """
    metrics = [result.metrics for result in results]
    found: list[list[Flag]] = [[] for _ in results]
    for fence in dataset_fences(metrics, thresholds):
        for number, value in enumerate(fence.values):
            if value is None or not np.isfinite(value):
                continue
            above = value > fence.high
            below = fence.low is not None and value < fence.low
            if not (above or below):
                continue
            if any(flag.kind is fence.kind for flag in found[number]):
                continue
            start, end = _span(fence.kind, metrics[number])
            channel = (
                ""
                if fence.kind is FlagKind.LENGTH_OUTLIER
                else _state_channel(results[number])
            )
            threshold = fence.high if above else fence.low
            found[number].append(
                Flag(
                    fence.kind,
                    channel,
                    start,
                    end,
                    value,
                    threshold,
                    _message(fence, value, above),
                )
            )
    return [tuple(flags) for flags in found]


def _state_channel(result: CheckResult) -> str:
    return result.metrics.state_channel
