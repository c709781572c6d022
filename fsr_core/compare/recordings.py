"""Compare two recordings channel by channel: :func:`compare_recordings`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from fsr_core.compare.channel_error import compare_channel
from fsr_core.compare.notes import difference_notes
from fsr_core.compare.result import (
    ChannelComparison,
    ChannelStatus,
    Comparison,
    Divergence,
    RecordingSummary,
)
from fsr_core.errors import CompareError
from fsr_core.recording import RecordingModel

__all__ = ["compare_recordings"]

_NAMES_SHOWN = 8


def _listing(names: Iterable[str]) -> str:
    items = list(names)
    shown = ", ".join(items[:_NAMES_SHOWN])
    more = len(items) - _NAMES_SHOWN
    return f"{shown}, and {more} more" if more > 0 else shown or "none"


def _split_names(
    reference: RecordingModel,
    candidate: RecordingModel,
    wanted: Sequence[str] | None,
) -> tuple[list[str], list[str], list[str]]:
    """Return the names on both sides, only in the reference, only in the candidate."""
    on_reference, on_candidate = reference.channels, candidate.channels
    if wanted is None:
        names = list(dict.fromkeys([*on_reference, *on_candidate]))
    else:
        names = list(dict.fromkeys(wanted))
        unknown = [n for n in names if n not in on_reference and n not in on_candidate]
        if unknown:
            raise CompareError(
                f"no channel named {_listing(unknown)} in either recording",
                reference=reference.path,
                candidate=candidate.path,
            )
    common = [n for n in names if n in on_reference and n in on_candidate]
    if not common:
        raise CompareError(
            f"no channel in common (reference: {_listing(reference.channels)}; "
            f"candidate: {_listing(candidate.channels)})",
            reference=reference.path,
            candidate=candidate.path,
        )
    only_reference = [n for n in names if n not in on_candidate]
    only_candidate = [n for n in names if n not in on_reference]
    return common, only_reference, only_candidate


def _span_s(model: RecordingModel, names: Sequence[str]) -> tuple[float, float]:
    """Return the play-time span the named channels of ``model`` cover."""
    firsts = [
        float(model.channels[name].times_s[0])
        for name in names
        if len(model.channels[name].times_s)
    ]
    lasts = [
        float(model.channels[name].times_s[-1])
        for name in names
        if len(model.channels[name].times_s)
    ]
    if not firsts:
        return math.inf, -math.inf
    return min(firsts), max([model.duration_s, *lasts])


def _overlap_s(
    reference: RecordingModel, candidate: RecordingModel, names: Sequence[str]
) -> tuple[float, float]:
    ref_start, ref_end = _span_s(reference, names)
    cand_start, cand_end = _span_s(candidate, names)
    start, end = max(ref_start, cand_start), min(ref_end, cand_end)
    if start > end:
        raise CompareError(
            f"no overlapping time: the reference's channels cover "
            f"{ref_start:.6g}..{ref_end:.6g} s, the candidate's "
            f"{cand_start:.6g}..{cand_end:.6g} s",
            reference=reference.path,
            candidate=candidate.path,
        )
    return start, end


def _summary(model: RecordingModel) -> RecordingSummary:
    return RecordingSummary(
        path=str(model.path),
        duration_s=model.duration_s,
        generations=len(model.timeline.segments),
    )


def _first(channels: Sequence[ChannelComparison]) -> Divergence | None:
    """Return the earliest divergence; at equal times, the channel listed first."""
    found = [c.first_exceed for c in channels if c.first_exceed is not None]
    return min(found, key=lambda divergence: divergence.time_s, default=None)


def _check_tolerance(tolerance: float) -> float:
    value = float(tolerance)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"tolerance must be a finite number >= 0, not {tolerance!r}")
    return value


def compare_recordings(
    reference: RecordingModel,
    candidate: RecordingModel,
    *,
    tolerance: float = 0.0,
    channels: Sequence[str] | None = None,
) -> Comparison:
    """Compare ``candidate`` with ``reference`` channel by channel.

    Channels are matched by name, and must agree in unit and columns to be
    compared. The time base is the reference's own sample times inside the
    span both recordings cover; at each, the candidate's value is the one the
    viewer shows then (its last sample at or before; generation resets are
    paired in order, see :mod:`fsr_core.compare.time_base`). An error is the
    absolute difference of a column; a channel is within tolerance when no
    error exceeds ``tolerance``.

    Parameters
    ----------
    reference, candidate
        The recordings (the reference gives the time base).
    tolerance
        The largest absolute error accepted, in the channel's unit (``>= 0``).
    channels
        Only these channel names (default: every channel of either side).

    Raises
    ------
    CompareError
        No channel in common, no overlapping time, or a requested channel in
        neither recording; the message names both files.
    ValueError
        ``tolerance`` is negative or not finite.
    """
    if isinstance(channels, str):
        raise TypeError("channels is a sequence of names, not one string")
    tolerance = _check_tolerance(tolerance)
    common, only_reference, only_candidate = _split_names(
        reference, candidate, channels
    )
    window = _overlap_s(reference, candidate, common)
    results = tuple(
        compare_channel(
            reference.channels[name],
            candidate.channels[name],
            window_s=window,
            tolerance=tolerance,
        )
        for name in common
    )
    within = all(
        c.status is ChannelStatus.COMPARED and c.within_tolerance for c in results
    )
    ref_summary, cand_summary = _summary(reference), _summary(candidate)
    notes = difference_notes(ref_summary, cand_summary, results)
    exact = (
        within
        and all(c.exact for c in results)
        and not only_reference
        and not only_candidate
        and not notes
    )
    return Comparison(
        reference=ref_summary,
        candidate=cand_summary,
        tolerance=tolerance,
        channels=results,
        only_in_reference=tuple(only_reference),
        only_in_candidate=tuple(only_candidate),
        within_tolerance=within,
        exact=exact,
        first_divergence=_first(results),
        overlap_s=window,
        notes=tuple(notes),
    )
