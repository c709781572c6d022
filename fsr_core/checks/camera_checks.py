"""``video_desync`` and ``frozen_video``: a camera against its table and its joints."""

from __future__ import annotations

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.camera_frames import CameraTiming, SmallFrames
from fsr_core.checks.flags import Flag, FlagKind
from fsr_core.checks.motion import runs_of
from fsr_core.checks.thresholds import Thresholds

__all__ = ["desync_flags", "frozen_flags"]


def desync_flags(name: str, timing: CameraTiming) -> list[Flag]:
    """Return the flags of frames away from their rows' times, or missing."""
    frames, rows = timing.frame_times_s, timing.row_times_s
    count = min(frames.size, rows.size)
    flags: list[Flag] = []
    if count:
        away = np.abs(frames[:count] - rows[:count])
        far = away > timing.tolerance_s
        for first, last in runs_of(far)[:20]:
            worst = float(away[first : last + 1].max())
            flags.append(
                Flag.over(
                    FlagKind.VIDEO_DESYNC,
                    name,
                    rows,
                    first,
                    last,
                    worst,
                    timing.tolerance_s,
                    f"rows {first}-{last}: the video's frames are up to {worst:.4g} s "
                    "from the table's timestamps",
                )
            )
    if frames.size != rows.size:
        at = (
            float(rows[count])
            if count < rows.size
            else float(rows[-1])
            if rows.size
            else 0.0
        )
        flags.append(
            Flag(
                FlagKind.VIDEO_DESYNC,
                name,
                at,
                float(rows[-1]) if rows.size else at,
                float(frames.size - rows.size),
                0.0,
                f"the video holds {frames.size} frames for {rows.size} rows",
            )
        )
    return flags


def frozen_flags(
    name: str,
    frames: SmallFrames,
    step_times_s: FloatArray,
    speed: FloatArray,
    thresholds: Thresholds,
) -> list[Flag]:
    """Return a flag per run of same pictures while the joints move.

    ``speed[i]`` is the fastest joint's speed between the state's samples
    whose midpoint is ``step_times_s[i]``.
    """
    pixels = frames.pixels.astype(np.int16)
    if pixels.shape[0] < 2 or speed.size == 0:
        return []
    change = np.abs(np.diff(pixels, axis=0)).max(axis=(1, 2))
    times = frames.times_s
    middle = (times[:-1] + times[1:]) / 2
    known = np.isfinite(speed)
    moving = (
        np.interp(middle, step_times_s[known], speed[known]) > thresholds.moving_speed
        if known.any()
        else np.zeros(middle.size, bool)
    )
    frozen = (change < thresholds.frozen_diff) & moving
    flags = []
    for first, last in runs_of(frozen):
        pictures = last - first + 2
        if pictures < thresholds.frozen_min_frames:
            continue
        flags.append(
            Flag.over(
                FlagKind.FROZEN_VIDEO,
                name,
                times,
                first,
                last + 1,
                float(pictures),
                thresholds.frozen_min_frames,
                f"{pictures} frames show the same picture (frames {first}-{last + 1}) "
                "while the joints move",
            )
        )
    return flags
