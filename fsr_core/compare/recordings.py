"""Compare two recordings, channel by channel and camera by camera.

:func:`compare_recordings` is the entry point; the channel and camera
comparisons live in :mod:`fsr_core.compare.channel_error` and
:mod:`fsr_core.compare.camera_error`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fsr_core.compare.camera_error import compare_camera
from fsr_core.compare.channel_error import compare_channel
from fsr_core.compare.notes import difference_notes
from fsr_core.compare.result import (
    CameraComparison,
    CameraStatus,
    ChannelComparison,
    ChannelStatus,
    Comparison,
    Divergence,
    RecordingSummary,
)
from fsr_core.compare.selection import Selection, select_names
from fsr_core.errors import CompareError
from fsr_core.recording import CameraTrack, RecordingModel

__all__ = ["compare_recordings"]

Span = tuple[float, float]
_NOTHING: Span = (math.inf, -math.inf)


def _span_s(model: RecordingModel, names: Sequence[str]) -> Span:
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
        return _NOTHING
    return min(firsts), max([model.duration_s, *lasts])


def _no_overlap(
    kind: str, ours: Span, theirs: Span, models: Sequence[RecordingModel]
) -> CompareError:
    return CompareError(
        f"no overlapping time: the reference's {kind} cover "
        f"{ours[0]:.6g}..{ours[1]:.6g} s, the candidate's "
        f"{theirs[0]:.6g}..{theirs[1]:.6g} s",
        reference=models[0].path,
        candidate=models[1].path,
    )


def _overlap_s(
    reference: RecordingModel, candidate: RecordingModel, names: Sequence[str]
) -> Span:
    ref_span, cand_span = _span_s(reference, names), _span_s(candidate, names)
    start, end = max(ref_span[0], cand_span[0]), min(ref_span[1], cand_span[1])
    if start > end:
        raise _no_overlap("channels", ref_span, cand_span, (reference, candidate))
    return start, end


def _track(model: RecordingModel, name: str) -> CameraTrack:
    return next(track for track in model.cameras if track.name == name)


def _frames_span_s(model: RecordingModel, track: CameraTrack) -> Span:
    """Return the span a camera's frames are shown: first frame to the end."""
    if not len(track.times_s):
        return _NOTHING
    return float(track.times_s[0]), max(model.duration_s, float(track.times_s[-1]))


def _compare_cameras(
    reference: RecordingModel,
    candidate: RecordingModel,
    selection: Selection,
    pixel_tolerance: float,
) -> tuple[tuple[CameraComparison, ...], Span, Span]:
    """Compare the selected cameras; also return both sides' spans of frames."""
    results = []
    ref_hull, cand_hull = _NOTHING, _NOTHING
    for name in selection.cameras.common:
        ours = _track(reference, name)
        theirs = _track(candidate, selection.candidate_camera(name))
        ref_span = _frames_span_s(reference, ours)
        cand_span = _frames_span_s(candidate, theirs)
        ref_hull = (min(ref_hull[0], ref_span[0]), max(ref_hull[1], ref_span[1]))
        cand_hull = (min(cand_hull[0], cand_span[0]), max(cand_hull[1], cand_span[1]))
        window = (max(ref_span[0], cand_span[0]), min(ref_span[1], cand_span[1]))
        results.append(
            compare_camera(
                ours, theirs, window_s=window, pixel_tolerance=pixel_tolerance
            )
        )
    return tuple(results), ref_hull, cand_hull


def _summary(model: RecordingModel) -> RecordingSummary:
    return RecordingSummary(
        path=str(model.path),
        duration_s=model.duration_s,
        generations=len(model.timeline.segments),
    )


def _first(
    channels: Sequence[ChannelComparison], cameras: Sequence[CameraComparison]
) -> Divergence | None:
    """Return the earliest divergence; at equal times, the one listed first.

    Channels are listed before cameras, so a channel wins a tie.
    """
    found = [c.first_exceed for c in channels if c.first_exceed is not None]
    found += [c.first_exceed for c in cameras if c.first_exceed is not None]
    return min(found, key=lambda divergence: divergence.time_s, default=None)


def _check_tolerance(tolerance: float, name: str, most: float = math.inf) -> float:
    value = float(tolerance)
    if not math.isfinite(value) or not 0 <= value <= most:
        limit = "" if math.isinf(most) else f" and <= {most:g}"
        raise ValueError(
            f"{name} must be a finite number >= 0{limit}, not {tolerance!r}"
        )
    return value


def _within(
    channels: Sequence[ChannelComparison], cameras: Sequence[CameraComparison]
) -> bool:
    return all(
        c.status is ChannelStatus.COMPARED and c.within_tolerance for c in channels
    ) and all(c.status is CameraStatus.COMPARED and c.within_tolerance for c in cameras)


def compare_recordings(
    reference: RecordingModel,
    candidate: RecordingModel,
    *,
    tolerance: float = 0.0,
    channels: Sequence[str] | None = None,
    cameras: Sequence[str] | None = None,
    pixel_tolerance: float = 0.0,
) -> Comparison:
    """Compare ``candidate`` with ``reference`` channel by channel and camera by camera.

    Channels are matched by name, and must agree in unit and columns to be
    compared. The time base is the reference's own sample times inside the
    span both recordings cover; at each, the candidate's value is the one the
    viewer shows then (its last sample at or before; generation resets are
    paired in order, see :mod:`fsr_core.compare.time_base`). An error is the
    absolute difference of a column; a channel is within tolerance when no
    error exceeds ``tolerance``.

    Cameras are matched by name too, or as a replay pairs its cameras with its
    source's (``replay.source_cameras``, :mod:`fsr_core.compare.selection`).
    At each reference frame time inside the
    span both cameras cover, the reference's frame meets the candidate frame
    shown then; an error is the absolute difference of a pixel's colour value
    in 8-bit levels, and a camera is within tolerance when no frame's largest
    error exceeds ``pixel_tolerance``. Frames of different sizes are not
    compared. Recordings with cameras but no channel in common (a re-render)
    are compared on their cameras alone. Each frame is decoded once, in the
    calling thread (a long recording takes a while: call it off a GUI thread).

    Parameters
    ----------
    reference, candidate
        The recordings (the reference gives the time base).
    tolerance
        The largest absolute error accepted, in the channel's unit (``>= 0``).
    channels
        Only these channel names (default: every channel of either side).
        Given alone, no camera is compared.
    cameras
        Only these camera names (default: every camera of either side, unless
        ``channels`` is given; a paired camera by either of its names).
        Given alone, no channel is compared.
    pixel_tolerance
        The largest absolute pixel error accepted, in levels (0 to 255;
        default 0: the frames must be equal).

    Raises
    ------
    CompareError
        No channel or camera in common, no overlapping time, or a requested
        channel or camera in neither recording; the message names both files.
    ValueError
        A tolerance is negative or not finite, or ``pixel_tolerance`` > 255.
    """
    tolerance = _check_tolerance(tolerance, "tolerance")
    pixel_tolerance = _check_tolerance(pixel_tolerance, "pixel_tolerance", 255.0)
    selection = select_names(reference, candidate, channels=channels, cameras=cameras)
    common = selection.channels.common
    window = _overlap_s(reference, candidate, common) if common else _NOTHING
    channel_results = tuple(
        compare_channel(
            reference.channels[name],
            candidate.channels[name],
            window_s=window,
            tolerance=tolerance,
        )
        for name in common
    )
    camera_results, ref_frames, cand_frames = _compare_cameras(
        reference, candidate, selection, pixel_tolerance
    )
    if not common:
        window = (
            max(ref_frames[0], cand_frames[0]),
            min(ref_frames[1], cand_frames[1]),
        )
        if window[0] > window[1]:
            raise _no_overlap(
                "cameras", ref_frames, cand_frames, (reference, candidate)
            )
    within = _within(channel_results, camera_results)
    ref_summary, cand_summary = _summary(reference), _summary(candidate)
    notes = difference_notes(ref_summary, cand_summary, channel_results, camera_results)
    one_sided = [
        *selection.channels.only_reference,
        *selection.channels.only_candidate,
        *selection.cameras.only_reference,
        *selection.cameras.only_candidate,
    ]
    exact = (
        within
        and all(c.exact for c in channel_results)
        and all(c.exact for c in camera_results)
        and not one_sided
        and not notes
    )
    return Comparison(
        reference=ref_summary,
        candidate=cand_summary,
        tolerance=tolerance,
        channels=channel_results,
        only_in_reference=selection.channels.only_reference,
        only_in_candidate=selection.channels.only_candidate,
        within_tolerance=within,
        exact=exact,
        first_divergence=_first(channel_results, camera_results),
        overlap_s=window,
        notes=tuple(notes),
        cameras=camera_results,
        cameras_only_in_reference=selection.cameras.only_reference,
        cameras_only_in_candidate=selection.cameras.only_candidate,
        pixel_tolerance=pixel_tolerance,
    )
