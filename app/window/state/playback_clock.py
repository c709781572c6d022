"""The playback clock: current play time, playing, speed and loop.

Time advances only here, from a ``QTimer`` on the GUI thread that measures
the wall time since its last tick (so a slow paint never slows the recorded
pace). Every view reads :attr:`PlaybackClock.position_s` and listens to
:attr:`PlaybackClock.position_changed`; none of them advances time.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QElapsedTimer, QObject, Qt, QTimer, Signal

from fsr_core.arrays import FloatArray
from fsr_core.recording import TIME_EPSILON_S

__all__ = ["MAX_SPEED", "MIN_SPEED", "PlaybackClock"]

MIN_SPEED: Final = 0.1
MAX_SPEED: Final = 10.0
#: Timer period while playing (about 60 updates a second).
TICK_MS: Final = 16
#: Longest wall-time step one tick may take (a stalled event loop does not jump).
_MAX_STEP_S: Final = 0.25
#: Times closer than this are the same frame (float round-off of recorded times).
_SAME_TIME_S: Final = TIME_EPSILON_S


class PlaybackClock(QObject):
    """Play time of the recording on screen, and whether and how fast it plays.

    ``frame_times_s`` are the times a frame step moves between (sorted play
    times of the recorded samples); ``duration_s`` is the last of them.
    """

    position_changed = Signal(float)
    playing_changed = Signal(bool)
    speed_changed = Signal(float)
    loop_changed = Signal(bool)
    #: Playback reached the last frame by itself (not by a seek); not with loop.
    reached_end = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._frame_times_s: FloatArray = np.zeros(1)
        self._frame_buffer: FloatArray | None = None
        """Where :meth:`extend_frames` grows the frames (None: not grown)."""
        self._position_s = 0.0
        self._playing = False
        self._speed = 1.0
        self._loop = False
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._elapsed = QElapsedTimer()

    # -- state ------------------------------------------------------------

    @property
    def position_s(self) -> float:
        """Current play time, in seconds."""
        return self._position_s

    @property
    def duration_s(self) -> float:
        """Play time of the last frame."""
        return float(self._frame_times_s[-1])

    @property
    def frame_times_s(self) -> FloatArray:
        """The frame times steps move between (read-only)."""
        return self._frame_times_s

    @property
    def frame_count(self) -> int:
        """Number of frames."""
        return int(self._frame_times_s.size)

    @property
    def frame_index(self) -> int:
        """Index of the frame shown at the current position (0-based)."""
        return self.frame_index_at(self._position_s)

    def frame_index_at(self, play_time_s: float) -> int:
        """Index of the last frame at or before ``play_time_s`` (>= 0)."""
        times = self._frame_times_s
        found = int(np.searchsorted(times, play_time_s + _SAME_TIME_S, "right")) - 1
        return max(found, 0)

    @property
    def playing(self) -> bool:
        """Whether the clock advances."""
        return self._playing

    @property
    def speed(self) -> float:
        """Play-time seconds per wall-clock second."""
        return self._speed

    @property
    def loop(self) -> bool:
        """Whether playback wraps to the start at the end."""
        return self._loop

    # -- intents ----------------------------------------------------------

    def set_frames(self, frame_times_s: npt.ArrayLike) -> None:
        """Show a new recording's frames; go to its start, keeping play state."""
        times = np.unique(np.asarray(frame_times_s, dtype=np.float64).ravel())
        times = times[np.isfinite(times)]
        if times.size == 0:
            times = np.zeros(1)
        times.setflags(write=False)
        self._frame_times_s = times
        self._frame_buffer = None
        self._set_position(float(times[0]))

    def extend_frames(self, later_times_s: npt.ArrayLike) -> None:
        """Add frames after the last one (a followed recording grew); stay put.

        Times at or before the last frame are ignored. The frames grow in a
        buffer that doubles, so a growth costs the frames it adds.
        """
        times = np.unique(np.asarray(later_times_s, dtype=np.float64).ravel())
        last = float(self._frame_times_s[-1])
        times = times[np.isfinite(times) & (times > last + _SAME_TIME_S)]
        if times.size == 0:
            return
        count = self._frame_times_s.size
        needed = count + times.size
        buffer = self._frame_buffer
        if buffer is None or needed > buffer.size:
            grown = np.empty(max(needed, 2 * count, 1024))
            grown[:count] = self._frame_times_s
            buffer = self._frame_buffer = grown
        buffer[count:needed] = times
        shown = buffer[:needed]
        shown.setflags(write=False)
        self._frame_times_s = shown

    def seek(self, play_time_s: float) -> None:
        """Go to ``play_time_s`` (clamped to the recording)."""
        if not math.isfinite(play_time_s):
            return
        self._set_position(play_time_s)

    def seek_frame(self, index: int) -> None:
        """Go to frame ``index`` (clamped)."""
        index = min(max(index, 0), self.frame_count - 1)
        self._set_position(float(self._frame_times_s[index]))

    def play(self) -> None:
        """Start playing; from the start when on the last frame."""
        if self._playing:
            return
        if self.frame_index >= self.frame_count - 1 and self.frame_count > 1:
            self._set_position(float(self._frame_times_s[0]))
        self._playing = True
        self._elapsed.start()
        self._timer.start()
        self.playing_changed.emit(True)

    def pause(self) -> None:
        """Stop advancing."""
        if not self._playing:
            return
        self._playing = False
        self._timer.stop()
        self.playing_changed.emit(False)

    def toggle(self) -> None:
        """Play when paused, pause when playing."""
        if self._playing:
            self.pause()
        else:
            self.play()

    def step(self, frames: int) -> None:
        """Move ``frames`` frames (negative: back); only while paused."""
        if self._playing:
            return
        self.seek_frame(self.frame_index + frames)

    def to_start(self) -> None:
        """Pause and go to the first frame."""
        self.pause()
        self.seek_frame(0)

    def to_end(self) -> None:
        """Pause and go to the last frame."""
        self.pause()
        self.seek_frame(self.frame_count - 1)

    def set_speed(self, speed: float) -> None:
        """Set the playback speed (clamped to 0.1x-10x)."""
        speed = min(max(float(speed), MIN_SPEED), MAX_SPEED)
        if math.isclose(speed, self._speed):
            return
        self._speed = speed
        self.speed_changed.emit(speed)

    def set_loop(self, loop: bool) -> None:
        """Wrap to the start at the end (instead of stopping)."""
        if loop == self._loop:
            return
        self._loop = loop
        self.loop_changed.emit(loop)

    def advance(self, wall_s: float) -> None:
        """Advance by ``wall_s`` seconds of wall time at the current speed.

        The timer calls this while playing; tests call it to play without
        waiting. At the end the clock wraps (loop) or pauses and emits
        :attr:`reached_end`.
        """
        if not self._playing:
            return
        target = self._position_s + max(wall_s, 0.0) * self._speed
        end = self.duration_s
        if target < end - _SAME_TIME_S:
            self._set_position(target)
            return
        if self._loop:
            span = end - float(self._frame_times_s[0])
            wrapped = float(self._frame_times_s[0]) + (
                (target - end) % span if span > 0 else 0.0
            )
            self._set_position(wrapped)
            return
        self._set_position(end)
        self.pause()
        self.reached_end.emit()

    # -- internals --------------------------------------------------------

    def _set_position(self, play_time_s: float) -> None:
        first = float(self._frame_times_s[0])
        clamped = min(max(play_time_s, first), self.duration_s)
        if clamped == self._position_s:
            return
        self._position_s = clamped
        self.position_changed.emit(clamped)

    def _on_timer_timeout(self) -> None:
        wall_s = self._elapsed.restart() / 1000.0
        self.advance(min(wall_s, _MAX_STEP_S))
