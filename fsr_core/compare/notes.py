"""Plain-language notes on how two compared recordings differ besides their values."""

from __future__ import annotations

from collections.abc import Sequence

from fsr_core.compare.result import (
    CameraComparison,
    CameraStatus,
    ChannelComparison,
    ChannelStatus,
    RecordingSummary,
)

__all__ = ["difference_notes"]

_NAMES_SHOWN = 6


def _names(channels: Sequence[ChannelComparison]) -> str:
    shown = ", ".join(channel.name for channel in channels[:_NAMES_SHOWN])
    more = len(channels) - _NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def _sample_count_notes(channels: Sequence[ChannelComparison]) -> list[str]:
    """One note per distinct pair of sample counts, naming its channels."""
    groups: dict[tuple[int, int], list[ChannelComparison]] = {}
    for channel in channels:
        counts = (channel.reference_samples, channel.candidate_samples)
        if counts[0] != counts[1]:
            groups.setdefault(counts, []).append(channel)
    return [
        f"{_names(group)}: {counts[0]} samples in the reference, "
        f"{counts[1]} in the candidate"
        for counts, group in groups.items()
    ]


def _mismatch_note(channel: ChannelComparison) -> str | None:
    if channel.status is ChannelStatus.UNIT_MISMATCH:
        return (
            f"{channel.name}: unit {channel.unit!r} in the reference, "
            f"{channel.candidate_unit!r} in the candidate (not compared)"
        )
    if channel.status is ChannelStatus.COLUMN_MISMATCH:
        return (
            f"{channel.name}: columns {', '.join(channel.columns)} in the reference, "
            f"{', '.join(channel.candidate_columns)} in the candidate (not compared)"
        )
    if channel.status is ChannelStatus.NO_OVERLAP:
        return f"{channel.name}: no sample in the time both recordings cover"
    return None


def _camera_note(camera: CameraComparison) -> str | None:
    if camera.status is CameraStatus.SIZE_MISMATCH:
        ours, theirs = camera.size, camera.candidate_size
        return (
            f"camera {camera.name}: frames are {ours[0]}x{ours[1]} in the reference, "
            f"{theirs[0]}x{theirs[1]} in the candidate (not compared)"
        )
    if camera.status is CameraStatus.NO_OVERLAP:
        return f"camera {camera.name}: no frame in the time both recordings cover"
    if camera.reference_frames != camera.candidate_frames:
        return (
            f"camera {camera.name}: {camera.reference_frames} frames in the "
            f"reference, {camera.candidate_frames} in the candidate"
        )
    return None


def difference_notes(
    reference: RecordingSummary,
    candidate: RecordingSummary,
    channels: Sequence[ChannelComparison],
    cameras: Sequence[CameraComparison] = (),
) -> list[str]:
    """Return notes on what differs besides the values and pixels.

    Durations, generations, sample and frame counts, and mismatches (units,
    columns, frame sizes, no overlap). An empty list means the recordings have
    the same shape.
    """
    notes = []
    if reference.duration_s != candidate.duration_s:
        notes.append(
            f"durations differ: reference {reference.duration_s:.6g} s, "
            f"candidate {candidate.duration_s:.6g} s"
        )
    if reference.generations != candidate.generations:
        notes.append(
            f"generation counts differ: reference {reference.generations}, "
            f"candidate {candidate.generations}"
        )
    notes.extend(_sample_count_notes(channels))
    notes.extend(note for note in map(_mismatch_note, channels) if note is not None)
    notes.extend(note for note in map(_camera_note, cameras) if note is not None)
    return notes
