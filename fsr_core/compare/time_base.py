"""The common time base: which candidate sample meets which reference sample.

The reference's own sample times are the time base. The candidate is sampled
as the viewer shows it: at a reference time ``t``, the candidate's last sample
with play time ``<= t``.

Generation resets: each generation restarts its simulation clock, and the
play-time axis lays generations end to end, so at a reset two samples share
one play time (the old generation's last, the new generation's first). Equal
times are paired in order: the k-th reference sample at a time meets the k-th
candidate sample at that time (or the last one, when the candidate has fewer).
So the state before a reset is compared with the state before it, and the
state after with the state after; a candidate without the reset shows its one
sample at that instant to both.
"""

from __future__ import annotations

import numpy as np

from fsr_core.arrays import FloatArray, IndexArray

__all__ = ["pair_samples"]


def _rank_among_equal(times_s: FloatArray) -> IndexArray:
    """Return, per sample of a sorted array, how many earlier ones share its time."""
    first = np.searchsorted(times_s, times_s, side="left")
    rank: IndexArray = np.arange(len(times_s)) - first
    return rank


def pair_samples(
    reference_s: FloatArray,
    candidate_s: FloatArray,
    window_s: tuple[float, float],
) -> tuple[IndexArray, IndexArray]:
    """Pair reference samples inside ``window_s`` with the candidate samples shown then.

    Both time arrays are sorted (non-decreasing). Only reference samples at or
    after the candidate's first sample and inside the closed window are
    paired. Returns ``(reference_indices, candidate_indices)``.
    """
    start_s, end_s = window_s
    empty = np.zeros(0, dtype=np.intp)
    if not len(reference_s) or not len(candidate_s):
        return empty, empty
    start_s = max(start_s, float(candidate_s[0]))
    inside = (reference_s >= start_s) & (reference_s <= end_s)
    reference_idx: IndexArray = np.flatnonzero(inside)
    if not len(reference_idx):
        return empty, empty
    times = reference_s[reference_idx]
    rank = _rank_among_equal(reference_s)[reference_idx]
    low = np.searchsorted(candidate_s, times, side="left")
    high = np.searchsorted(candidate_s, times, side="right")
    same_time = np.minimum(low + rank, high - 1)
    candidate_idx: IndexArray = np.where(high > low, same_time, high - 1)
    return reference_idx, candidate_idx
