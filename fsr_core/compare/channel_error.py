"""Compare one channel of the reference with the same-named channel of the candidate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.compare.result import ChannelComparison, ChannelStatus, Divergence
from fsr_core.compare.time_base import pair_samples
from fsr_core.recording import Channel

__all__ = ["compare_channel"]


def _table(channel: Channel) -> FloatArray:
    """Return the channel's values as a float64 ``(samples, columns)`` table."""
    values = np.asarray(channel.values, dtype=np.float64)
    table: FloatArray = values.reshape(len(values), -1)
    return table


def _column_names(channel: Channel) -> tuple[str, ...]:
    width = _table(channel).shape[1]
    if len(channel.columns) == width:
        return channel.columns
    return tuple(str(i) for i in range(width))


def _bitwise_equal(a: FloatArray, b: FloatArray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _is_exact(reference: Channel, candidate: Channel) -> bool:
    """Return whether times and values are the same, bit for bit."""
    return _bitwise_equal(
        np.asarray(reference.times_s, dtype=np.float64),
        np.asarray(candidate.times_s, dtype=np.float64),
    ) and _bitwise_equal(_table(reference), _table(candidate))


def _absolute_errors(reference: FloatArray, candidate: FloatArray) -> FloatArray:
    """Return ``|reference - candidate|``: 0 where equal (NaN with NaN too).

    NaN against a number is an infinite error.
    """
    with np.errstate(invalid="ignore"):
        difference = np.abs(reference - candidate)
    same = (reference == candidate) | (np.isnan(reference) & np.isnan(candidate))
    errors: FloatArray = np.where(
        same, 0.0, np.where(np.isnan(difference), np.inf, difference)
    )
    return errors


def _mismatch(reference: Channel, candidate: Channel) -> ChannelStatus | None:
    if reference.unit != candidate.unit:
        return ChannelStatus.UNIT_MISMATCH
    if _column_names(reference) != _column_names(candidate):  # count or names
        return ChannelStatus.COLUMN_MISMATCH
    return None


def _frozen(array: FloatArray) -> FloatArray:
    array.setflags(write=False)
    return array


def compare_channel(
    reference: Channel,
    candidate: Channel,
    *,
    window_s: tuple[float, float],
    tolerance: float,
) -> ChannelComparison:
    """Compare ``candidate`` with ``reference`` at the reference's times in a window."""
    base = ChannelComparison(
        name=reference.name,
        unit=reference.unit,
        candidate_unit=candidate.unit,
        status=ChannelStatus.NO_OVERLAP,
        reference_samples=len(reference.times_s),
        candidate_samples=len(candidate.times_s),
        columns=_column_names(reference),
        candidate_columns=_column_names(candidate),
    )
    mismatch = _mismatch(reference, candidate)
    if mismatch is not None:
        return replace(base, status=mismatch)
    reference_idx, candidate_idx = pair_samples(
        np.asarray(reference.times_s, dtype=np.float64),
        np.asarray(candidate.times_s, dtype=np.float64),
        window_s,
    )
    if not len(reference_idx):
        return base
    errors = _absolute_errors(
        _table(reference)[reference_idx], _table(candidate)[candidate_idx]
    )
    per_sample = errors.max(axis=1)
    times = np.asarray(reference.times_s, dtype=np.float64)[reference_idx]
    columns = base.columns
    max_error = float(per_sample.max())
    exceeding = np.flatnonzero(per_sample > tolerance)
    first = None
    if len(exceeding):
        at = int(exceeding[0])
        first = Divergence(
            channel=reference.name,
            time_s=float(times[at]),
            error=float(per_sample[at]),
            column=columns[int(np.argmax(errors[at]))],
        )
    return replace(
        base,
        status=ChannelStatus.COMPARED,
        samples_compared=len(reference_idx),
        max_abs_error=max_error,
        rms_error=float(np.sqrt(np.mean(np.square(errors)))),
        worst_column=columns[int(np.argmax(errors.max(axis=0)))] if max_error else "",
        first_exceed=first,
        exact=_is_exact(reference, candidate),
        within_tolerance=first is None,
        error_times_s=_frozen(times),
        errors=_frozen(per_sample),
    )
