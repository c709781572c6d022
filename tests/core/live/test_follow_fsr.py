"""Following an FSR file written by a real FsrWriter in another process."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from live_writers import WriterProcess, fsr_writer_fixture, poll_until

from fsr_core.format.reader import FsrReader
from fsr_core.sources import open_recording
from fsr_core.sources.live import (
    FollowState,
    follow_recording,
    still_being_written,
)

writer = fsr_writer_fixture("writer", 32, 24)


def test_a_running_writer_is_followed_to_its_published_file(
    tmp_path: Path, writer: WriterProcess
) -> None:
    final = tmp_path / "run.fsr"
    assert not final.exists()
    assert "writer is running" in still_being_written(final)
    follower = follow_recording(final)
    assert follower.path.name.endswith(".fsr-staging")
    writer.send("numeric 300")
    writer.send("camera 4")
    writer.send("numeric 300")
    read = poll_until(follower, lambda: follower.model.records >= 500, "records")
    joints = follower.model.channels["observations.joints"]
    assert joints.columns == ("q0", "q1", "q2", "q3", "q4", "q5", "q6")
    assert np.all(np.diff(joints.times_s) > 0)
    camera = follower.model.cameras["front"]
    newest = camera.newest()
    assert newest is not None
    # The writer paints frame n with red = n.
    assert int(newest.pixels[0, 0, 0]) == camera.count - 1
    assert follower.status.state is FollowState.GROWING

    assert writer.send("finish").startswith("published")
    read += poll_until(follower, lambda: follower.status.state.final, "the end")
    assert follower.status.state is FollowState.FINISHED
    assert follower.published_path() == final
    assert still_being_written(final) == ""
    # Every byte before the footer was read exactly once.
    with FsrReader.open(final) as reader:
        assert follower.model.records == reader.record_count
        footer_at = reader._layout.data_end  # where the footer starts
    assert follower.consumed == footer_at
    assert read <= final.stat().st_size
    model = open_recording(final)
    channel = model.channels["observations.joints"]
    np.testing.assert_array_equal(joints.values, channel.values)
    assert joints.count == 600
    follower.close()


def test_a_crashed_writer_stops_and_garbage_is_a_cut(
    tmp_path: Path, writer: WriterProcess
) -> None:
    staging = Path(writer.first_line.split(" ", 1)[1])
    now = [0.0]
    follower = follow_recording(staging, quiet_s=5.0, clock=lambda: now[0])
    writer.send("numeric 400")
    assert writer.send("crash") == "crashing"
    writer.process.wait(timeout=20)
    poll_until(follower, lambda: follower.model.records >= 300, "records")
    now[0] += 6.0
    status = follower.poll().status
    assert status.state is FollowState.STOPPED
    end_s = follower.model.end_s
    assert end_s is not None
    assert f"writer stopped at {end_s:.3f} s" in status.message
    with FsrReader.open(staging, recover=True) as recovered:
        assert follower.model.records == recovered.record_count
    trusted = follower.consumed
    with staging.open("ab") as handle:
        handle.write(b"this is not a batch" * 10)
    status = follower.poll().status
    assert status.state is FollowState.CUT
    assert f"cut at byte {trusted}" in status.message
    assert f"shown up to {end_s:.3f} s" in status.message
    follower.close()


def test_truncating_or_replacing_the_file_stops_following(
    tmp_path: Path, writer: WriterProcess
) -> None:
    staging = Path(writer.first_line.split(" ", 1)[1])
    follower = follow_recording(staging)
    writer.send("numeric 200")
    poll_until(follower, lambda: follower.model.records >= 100, "records")
    writer.send("crash")
    writer.process.wait(timeout=20)
    copy = tmp_path / "copy.fsr"
    copy.write_bytes(staging.read_bytes())
    os.truncate(staging, 100)
    status = follower.poll().status
    assert status.state is FollowState.GONE
    assert "truncated" in status.message

    second = follow_recording(copy)
    poll_until(second, lambda: second.model.records >= 100, "records")
    staging.replace(copy)
    status = second.poll().status
    assert status.state is FollowState.GONE
    assert "replaced by another file" in status.message
    follower.close()
    second.close()
