"""tools/bench_batch.py: a short run prints every figure (no timing asserted)."""

from __future__ import annotations

import json

import pytest
from tool_scripts import load_tool

pytestmark = pytest.mark.slow


def test_a_short_run_prints_the_scaling_and_the_overhead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_tool("bench_batch")
    argv = ["--files", "4", "--seconds", "0.2", "--engines", "loop,local1,local2"]
    argv += ["--rounds", "1"]
    assert bench.main([*argv, "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)

    assert figures["files"] == 4
    for verb in ("validate", "export"):
        assert set(figures[verb]) >= {
            "loop_s",
            "local1_s",
            "local2_s",
            "scaling",
            "overhead_pct",
            "overhead_ms_per_file",
        }
        assert figures[verb]["failed"] == {"loop": 0, "local1": 0, "local2": 0}
        assert figures[verb]["scaling"] > 0
