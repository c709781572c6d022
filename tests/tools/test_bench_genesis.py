"""tools/bench_genesis.py: our side alone prints every task on a test file."""

from __future__ import annotations

from tool_scripts import load_tool, run_main

bench_genesis = load_tool("bench_genesis")

TASKS = {
    "open: shown (headers, chunk 0)",
    "open: index_file (headers+CRC)",
    "open: open_trajectory",
    "random frame vs chunk decode",
    "random frame vs Genesis",
    "sequential, every frame",
    "plot qpos",
}


def test_a_quick_run_without_genesis_prints_every_task_of_ours() -> None:
    code, stdout = run_main(
        bench_genesis.main, ["--quick", "--no-genesis", "--rounds", "1"]
    )
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0].startswith("file: v4_box_exact.gstraj,")
    assert "41 frames" in lines[0]
    assert lines[1].split()[:3] == ["task", "ours", "s"]
    rows = {line[:32].strip(): line[32:].split() for line in lines[2:9]}
    assert set(rows) == TASKS
    for task, (ours, theirs, ratio, *target) in rows.items():
        assert float(ours) > 0
        assert target
        if task == "random frame vs chunk decode":
            # The bare chunk decode runs without Genesis.
            assert float(theirs) > 0
            assert float(ratio) > 0
        else:
            assert (theirs, ratio) == ("-", "-")
    notes = "\n".join(lines[9:])
    assert "open scaled to 1 GB" in notes
    assert "shown at open" in notes
    assert "CRC-32" in notes
    assert "sequential: ours" in notes
    assert "Genesis" not in notes.split("sequential:")[1].splitlines()[0]
    assert "x one decoded chunk" in notes
