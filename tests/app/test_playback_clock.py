"""The playback clock: seeking, stepping, playing at the recorded pace, the end."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from app.window.state import PlaybackClock

pytestmark = pytest.mark.gui

FRAMES = np.arange(0.0, 1.0001, 0.1)


@pytest.fixture
def clock(qapp: object) -> PlaybackClock:
    del qapp  # the clock's timer needs a running application
    made = PlaybackClock()
    made.set_frames(FRAMES)
    return made


def test_seek_clamps_to_the_recording_and_reports_the_frame(
    clock: PlaybackClock,
) -> None:
    clock.seek(0.34)
    assert clock.position_s == pytest.approx(0.34)
    assert clock.frame_index == 3
    clock.seek(7.0)
    assert clock.position_s == pytest.approx(1.0)
    clock.seek(-1.0)
    assert clock.position_s == 0.0


def test_step_moves_one_frame_only_while_paused(clock: PlaybackClock) -> None:
    clock.step(1)
    clock.step(1)
    assert clock.frame_index == 2
    clock.step(-1)
    assert clock.position_s == pytest.approx(0.1)
    clock.play()
    clock.step(1)
    assert clock.position_s == pytest.approx(0.1)
    clock.pause()


def test_playing_advances_by_wall_time_times_speed(clock: PlaybackClock) -> None:
    clock.set_speed(2.0)
    clock.play()
    clock.advance(0.1)
    assert clock.position_s == pytest.approx(0.2)
    clock.pause()
    clock.advance(0.1)
    assert clock.position_s == pytest.approx(0.2)


def test_speed_is_clamped_to_a_tenth_and_ten(clock: PlaybackClock) -> None:
    clock.set_speed(50.0)
    assert clock.speed == 10.0
    clock.set_speed(0.0)
    assert clock.speed == pytest.approx(0.1)


def test_playback_stops_at_the_end_and_says_so(
    qtbot: QtBot, clock: PlaybackClock
) -> None:
    clock.play()
    with qtbot.waitSignal(clock.reached_end, timeout=1000):
        clock.advance(5.0)
    assert not clock.playing
    assert clock.position_s == pytest.approx(1.0)


def test_play_on_the_last_frame_restarts_from_the_start(clock: PlaybackClock) -> None:
    clock.to_end()
    clock.play()
    assert clock.position_s == 0.0
    assert clock.playing
    clock.pause()


def test_loop_wraps_to_the_start_instead_of_stopping(
    qtbot: QtBot, clock: PlaybackClock
) -> None:
    clock.set_loop(True)
    clock.seek(0.9)
    clock.play()
    with qtbot.assertNotEmitted(clock.reached_end):
        clock.advance(0.25)
    assert clock.playing
    assert clock.position_s == pytest.approx(0.15)
    clock.pause()


def test_the_timer_plays_at_the_recorded_pace(
    qtbot: QtBot, clock: PlaybackClock
) -> None:
    clock.play()
    qtbot.waitUntil(lambda: clock.position_s > 0.05, timeout=3000)
    assert clock.playing
    clock.pause()


def test_to_start_pauses_and_goes_to_the_first_frame(clock: PlaybackClock) -> None:
    clock.seek(0.5)
    clock.play()
    clock.to_start()
    assert not clock.playing
    assert clock.position_s == 0.0


def test_frames_added_as_a_followed_recording_grows_keep_the_position(
    clock: PlaybackClock,
) -> None:
    clock.seek(0.5)
    clock.extend_frames([1.05, 1.0, 0.2, np.nan, 1.1])
    clock.extend_frames(np.arange(1.2, 50.0, 0.1))

    assert clock.position_s == pytest.approx(0.5)
    assert clock.frame_index == 5
    assert clock.duration_s == pytest.approx(49.9)
    assert clock.frame_count == 11 + 2 + len(np.arange(1.2, 50.0, 0.1))
    assert np.all(np.diff(clock.frame_times_s) > 0)
    clock.seek_frame(11)
    assert clock.position_s == pytest.approx(1.05)
    clock.set_frames(FRAMES)  # the next recording starts afresh
    assert clock.duration_s == pytest.approx(1.0)
