"""tools/bench_scale.py: a tiny run prints both rows and the ratio."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from tool_scripts import load_tool

bench_scale = load_tool("bench_scale")


def test_a_tiny_run_measures_both_recordings(tmp_path: Path) -> None:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = bench_scale.main(
            ["--minutes", "0.04", "--short-minutes", "0.02", "--keep", str(tmp_path)]
        )
    assert code == 0
    lines = [
        line for line in stdout.getvalue().splitlines() if not line.startswith("wrote")
    ]
    assert lines[0].startswith("short ")
    assert lines[1].startswith("long ")
    assert "peak" in lines[1]
    assert lines[2].startswith("peak RSS long / short: ")
    assert (tmp_path / "long.mp4").stat().st_size > 0
