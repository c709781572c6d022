"""tools/bench_datasets.py: the viewer's side alone prints every figure."""

from __future__ import annotations

from tool_scripts import load_tool, run_main

bench_datasets = load_tool("bench_datasets")


def test_a_run_without_lerobot_times_the_viewer_on_the_test_dataset() -> None:
    code, stdout = run_main(
        bench_datasets.main, ["--no-lerobot", "--repeats", "1", "--seeks", "3"]
    )
    assert code == 0
    lines = stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("open 3 episodes to a playable first one: ")
    assert lines[1].startswith("random AV1 frame of episode 2 in a shared mp4: ")
    assert lines[2].startswith("episode of 10 rows, state and action: ")
    for line in lines:
        figure = float(line.split(": ")[1].split(" ms")[0])
        assert figure > 0
