"""tools/bench_live.py: a tiny run, its JSON keys and figures (no timings)."""

from __future__ import annotations

from tool_scripts import load_tool, run_main

bench_live = load_tool("bench_live")


def test_a_tiny_run_prints_every_figure() -> None:
    run = run_main(bench_live.main, ["--seconds", "1", "--json"])
    assert run.code == 0
    result = run.result
    assert set(result) == {"config", "alone", "followed", "writer_ratio", "met"}
    followed = result["followed"]
    # 1000 samples, a frame every 33 ticks (31) and the intrinsics: all read.
    assert followed["records"] == 1032
    assert followed["latency_median_ms"] > 0
    assert followed["reader_cpu_percent"] > 0
    assert followed["rss_mb"]
    assert result["alone"]["samples"] == followed["samples"] == 1000
    assert set(result["met"]) == {"latency", "reader_cpu", "rss", "writer"}


def test_the_hour_long_memory_run_may_skip_the_writer_alone() -> None:
    run = run_main(bench_live.main, ["--seconds", "1", "--followed-only"])
    assert run.code == 0
    assert "reader RSS: 0 s" in run.stdout
    assert "(alone not run: --followed-only)" in run.stdout
