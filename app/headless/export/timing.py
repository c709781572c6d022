"""When an export's frames are: the play-time window and each frame's time.

Frame ``k`` shows play time ``min(start + k * speed / fps, end)``; there are
``floor((end - start) / speed * fps) + 1`` frames (as skelarm's ``--export``
over the whole take). Nothing here holds one entry per frame, so a count far
beyond any budget costs nothing until the budget refuses it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import overload

__all__ = ["FrameTimes", "frame_count", "frame_times", "play_window"]

# Tolerance, in frames, for float error in a span (skelarm loses the last frame
# of a 0-3 s log whose last time stamp is 2.999999999999891).
_FRAME_EPSILON = 1e-6


def frame_count(duration_s: float, *, fps: float, speed: float) -> int:
    """Return ``floor(duration / speed * fps) + 1`` (tolerant of float error).

    ``duration_s`` is the play-time span exported (``end - start``). A span
    too long to count (an infinite quotient) gives ``sys.maxsize``, which no
    frame budget accepts; nothing is ever allocated per frame here.
    """
    frames = max(duration_s, 0.0) / speed * fps + _FRAME_EPSILON
    if not math.isfinite(frames) or frames >= sys.maxsize:
        return sys.maxsize
    return math.floor(frames) + 1


@dataclass(frozen=True, eq=False)
class FrameTimes(Sequence[float]):
    """The play time of every exported frame, computed when asked (never a list).

    Frame ``k`` is at ``min(start + k * speed / fps, end)``. A recording whose
    time jumps by 10^9 s asks for billions of frames: the export refuses that
    count against its budget (:func:`check_frame_budget`) before drawing, and
    nothing here holds one entry per frame.
    """

    frames: int
    _: KW_ONLY
    start_s: float
    end_s: float
    step_s: float

    def __len__(self) -> int:
        return self.frames

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> list[float]: ...

    def __getitem__(self, index: int | slice) -> float | list[float]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(self.frames))]
        if index < 0:
            index += self.frames
        if not 0 <= index < self.frames:
            raise IndexError(f"frame {index} of {self.frames}")
        return min(self.start_s + index * self.step_s, self.end_s)


def frame_times(
    duration_s: float,
    *,
    fps: float,
    speed: float,
    start_s: float = 0.0,
    end_s: float | None = None,
) -> FrameTimes:
    """Return the play time of every exported frame of ``[start_s, end_s]``.

    ``end_s`` defaults to ``duration_s``, the end of the recording. The
    sequence is lazy: its length may be far beyond any budget.
    """
    end = duration_s if end_s is None else end_s
    count = frame_count(end - start_s, fps=fps, speed=speed)
    return FrameTimes(count, start_s=start_s, end_s=end, step_s=speed / fps)


def play_window(
    duration_s: float, start_s: float | None, end_s: float | None
) -> tuple[float, float]:
    """Return the checked ``(start, end)`` play-time window of an export.

    Raises
    ------
    ValueError
        ``start`` is negative or after ``end``, or ``end`` is past the recording.
    """
    start = 0.0 if start_s is None else float(start_s)
    end = duration_s if end_s is None else float(end_s)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ValueError("--start and --end must be finite")
    if start < 0.0:
        raise ValueError(f"--start {start:g} is before the recording (0 s)")
    if end > duration_s + 1e-9:
        raise ValueError(
            f"--end {end:g} is past the end of the recording ({duration_s:.3f} s)"
        )
    if start > end:
        raise ValueError(f"--start {start:g} is after --end {end:g}")
    return start, min(end, duration_s)
