"""Following a Genesis trajectory replayed byte range by byte range.

The trajectories are Genesis's own (tests/data/genesis, made by
tools/make_genesis_data.py); the test appends each file to a new one in
pieces that end inside headers, payloads and records, as a writer's file
appears on a slow disk or a network share.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from data_paths import GENESIS_DATA

from fsr_core.sources import open_recording
from fsr_core.sources.live import FollowState, follow_recording


def _replay(
    source: Path,
    target: Path,
    piece: int,
    *,
    quiet_s: float = 5.0,
    clock_s: list[float] | None = None,
) -> object:
    data = source.read_bytes()
    target.write_bytes(data[:64])
    now = clock_s if clock_s is not None else [0.0]
    follower = follow_recording(target, quiet_s=quiet_s, clock=lambda: now[0])
    read = follower.poll().bytes_read
    with target.open("ab") as handle:
        for start in range(64, len(data), piece):
            handle.write(data[start : start + piece])
            handle.flush()
            read += follower.poll().bytes_read
    follower.read_total = read  # type: ignore[attr-defined]
    return follower


@pytest.mark.parametrize("name", ["v1_box_compressed.gstraj", "v4_batch_exact.gstraj"])
def test_a_growing_trajectory_reads_as_the_source_opens_it(
    tmp_path: Path, name: str
) -> None:
    source = GENESIS_DATA / name
    follower = _replay(source, tmp_path / name, 997)
    assert follower.status.state is FollowState.FINISHED
    assert follower.read_total == source.stat().st_size
    model = open_recording(source)
    compared = 0
    for label, channel in follower.model.channels.items():
        opened = model.channels[label]
        # The live channels hold the chunk frames; LAST is the end mark.
        np.testing.assert_array_equal(
            channel.values, opened.values[: channel.count], err_msg=label
        )
        compared += 1
    assert compared > 20
    follower.close()


def test_a_flipped_chunk_is_a_cut_and_a_cut_file_a_stopped_writer(
    tmp_path: Path,
) -> None:
    flipped = _replay(
        GENESIS_DATA / "v4_box_exact_flip_chunk.gstraj", tmp_path / "a.gstraj", 4096
    )
    assert flipped.status.state is FollowState.CUT
    assert "CRC-32" in flipped.status.message
    now = [0.0]
    cut = _replay(
        GENESIS_DATA / "v4_box_exact_cut_mid_chunk.gstraj",
        tmp_path / "b.gstraj",
        4096,
        clock_s=now,
    )
    assert cut.status.state is FollowState.GROWING
    now[0] = 10.0
    status = cut.poll().status
    assert status.state is FollowState.STOPPED
    assert "writer stopped at" in status.message
    flipped.close()
    cut.close()
