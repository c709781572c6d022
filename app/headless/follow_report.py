"""``fsr-viewer inspect --follow FILE``: one line a second while a recording grows.

Each line gives the records read so far, the time span they cover and the
rate of the last interval (records per second), and the state when it is not
plain growth (a writer that stopped). Following ends when the writer
finishes (the file is then inspected once, as ``inspect`` does, and the exit
status is its validity), when the file is cut, truncated, replaced or
removed (exit 1, the reason on stderr), or when the user stops it (Ctrl-C or
SIGTERM: a last line and exit 0, since nothing is written).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.headless.signals import StopRequested
from fsr_core.sources.live import Follower, FollowState, follow_recording

__all__ = ["follow_line", "run_follow"]


def follow_line(follower: Follower, added: int, seconds: float) -> str:
    """Return the line of one interval: records, span, rate, state."""
    model = follower.model
    rate = added / seconds if seconds > 0 else 0.0
    if added == model.records and model.span_s > 0:
        rate = model.records / model.span_s  # the first line: what was there
    start = model.start_s if model.start_s is not None else 0.0
    end = model.end_s if model.end_s is not None else 0.0
    text = (
        f"{model.records} records, {start:.3f}-{end:.3f} s "
        f"({model.span_s:.3f} s), {rate:.0f} records/s"
    )
    state = follower.status.state
    if state is FollowState.STOPPED:
        text += f"; {follower.status.message}"
    return text


def run_follow(
    path: Path,
    *,
    interval_s: float = 1.0,
    inspect: Callable[[Path], int],
    out: TextIO | None = None,
    pause: Callable[[float], None] = time.sleep,
) -> int:
    """Follow ``path`` until its writer finishes or the user stops it.

    ``inspect(published)`` runs once the writer finished and gives the exit
    status.
    """
    stream = out or sys.stdout
    follower = follow_recording(path)
    stream.write(f"following {follower.path}\n")
    stream.flush()
    try:
        with follower:
            last = time.monotonic()
            while True:
                added = follower.poll().records
                now = time.monotonic()
                state = follower.status.state
                stream.write(follow_line(follower, added, now - last) + "\n")
                stream.flush()
                last = now
                if state.final:
                    break
                pause(interval_s)
                # Records arriving during the pause count in the next line.
            message = follower.status.message
            published = follower.published_path()
    except StopRequested:
        stream.write("stopped following (the recording was not changed)\n")
        stream.flush()
        return 0
    if state is FollowState.FINISHED:
        stream.write(f"{message}; inspecting {published}\n")
        stream.flush()
        return inspect(published)
    sys.stderr.write(f"fsr-viewer: {path}: {message}\n")
    return 1
