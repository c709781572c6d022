"""Following an MCAP file written by the mcap library's Writer in a child process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from live_writers import WriterProcess, poll_until

from fsr_core.sources import open_recording
from fsr_core.sources.live import FollowState, follow_recording, still_being_written


class LiveMcap(NamedTuple):
    """An MCAP file being written, and the child process writing it."""

    path: Path
    writer: WriterProcess


@pytest.fixture(params=["2048", "0"], ids=["chunked", "unchunked"])
def live(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveMcap]:
    path = tmp_path / "run.mcap"
    process = WriterProcess(
        "live_mcap_writer.py", str(path), "--chunk-size", request.param
    )
    yield LiveMcap(path, process)
    process.close()


def test_an_mcap_file_grows_then_finishes_as_the_source_reads_it(
    live: LiveMcap,
) -> None:
    mcap_writer, writer = live
    follower = follow_recording(mcap_writer)
    writer.send("messages 400")
    poll_until(follower, lambda: follower.model.records >= 300, "messages")
    assert "end is not written" in still_being_written(mcap_writer)
    channel = follower.model.channels["/arm/state"]
    assert set(channel.columns) == {"q.0", "q.1", "q.2", "effort"}
    before = channel.count
    writer.send("messages 400")
    poll_until(follower, lambda: channel.count > max(before, 700), "more")
    assert follower.status.state is FollowState.GROWING
    assert writer.send("finish") == "finished"
    poll_until(follower, lambda: follower.status.state.final, "the end")
    assert follower.status.state is FollowState.FINISHED
    assert follower.model.records == 800
    assert still_being_written(mcap_writer) == ""
    model = open_recording(mcap_writer)
    opened = model.channels["/arm/state"]
    order = [channel.columns.index(c) for c in opened.columns]
    np.testing.assert_allclose(channel.values[:, order], opened.values)
    np.testing.assert_allclose(
        channel.times_s - channel.times_s[0], opened.times_s - opened.times_s[0]
    )
    follower.close()


def test_garbage_after_the_last_mcap_record_is_a_cut(live: LiveMcap) -> None:
    mcap_writer, writer = live
    follower = follow_recording(mcap_writer)
    writer.send("messages 300")
    writer.send("crash")
    writer.process.wait(timeout=20)
    poll_until(follower, lambda: follower.model.records >= 200, "messages")
    with mcap_writer.open("ab") as handle:
        handle.write(b"\x00" * 64)
    status = follower.poll().status
    assert status.state is FollowState.CUT
    assert "not a record" in status.message
    follower.close()
