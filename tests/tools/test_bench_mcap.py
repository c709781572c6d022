"""tools/bench_mcap.py: a one-minute run prints each task beside the library's."""

from __future__ import annotations

import contextlib
import io
import re

from tool_scripts import load_tool

bench_mcap = load_tool("bench_mcap")


def test_a_quick_run_prints_every_task_with_both_times_and_a_ratio() -> None:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = bench_mcap.main(["--quick", "--rounds", "1"])
    assert code == 0
    blocks = stdout.getvalue().split("\n\n")
    # One file of each camera: distinct scene frames, then one noise frame.
    assert [block.splitlines()[0].split(",")[1] for block in blocks] == [
        " scene camera (32 distinct frames",
        " noise camera (1 distinct frame",
    ]
    for block in blocks:
        _check_block(block.splitlines())


def _check_block(lines: list[str]) -> None:
    assert lines[0].startswith("file: 1 min,")
    rows = {line[:32].strip(): line[32:].split() for line in lines[2:5]}
    assert set(rows) == {
        "open",
        "seek + show a camera frame",
        "plot /joint_states (with open)",
    }
    for ours, theirs, ratio, *_ in rows.values():
        assert float(ours) > 0
        assert float(theirs) > 0
        # Times print with 4 decimals, so a tiny time rounds coarsely.
        low = (float(ours) - 0.00005) / (float(theirs) + 0.00005)
        high = (float(ours) + 0.00005) / max(float(theirs) - 0.00005, 1e-9)
        assert low * 0.99 - 0.005 <= float(ratio) <= high * 1.01 + 0.005
    floor_s, checked_s, times = _figures(
        r"floor: reading and decompressing the chunks that hold /joint_states "
        r"\(2 threads, nothing decoded\) takes ([0-9.]+) s, ([0-9.]+) s with "
        r"their CRCs checked; the plot is ([0-9.]+)x that",
        lines[5],
    )
    assert floor_s > 0
    assert checked_s > 0
    plot_s = float(rows["plot /joint_states (with open)"][0])
    # The floor prints with 3 decimals and the plot with 4.
    low = (plot_s - 0.00005) / (checked_s + 0.0005)
    high = (plot_s + 0.00005) / max(checked_s - 0.0005, 1e-9)
    assert low * 0.99 - 0.005 <= times <= high * 1.01 + 0.005
    raised, arrays, file = _figures(
        r"memory: plotting /joint_states raised peak RSS by ([0-9.]+) MB "
        r"\(its arrays: ([0-9.]+) MB; the file: ([0-9.]+) MB\)",
        lines[6],
    )
    assert arrays > 0
    assert file > arrays
    assert raised >= 0


def _figures(pattern: str, line: str) -> tuple[float, ...]:
    """Return the numbers ``pattern`` captures in ``line``, which it must match."""
    found = re.fullmatch(pattern, line)
    assert found is not None, line
    return tuple(float(part) for part in found.groups())


def test_the_scene_frames_differ_and_are_the_size_of_a_real_cameras() -> None:
    frames = bench_mcap.scene_frames(4)
    assert len(set(frames)) == 4
    assert all(40_000 < len(frame) < 100_000 for frame in frames)
