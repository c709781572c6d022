"""tools/bench_startup.py: a tiny run, its JSON keys and figures (no timings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_output import assert_mentions
from tool_scripts import ToolRun, fake_free_disk, load_tool, run_main

bench_startup = load_tool("bench_startup")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> ToolRun:
    out = tmp_path_factory.mktemp("bench-startup")
    argv = ["--runs", "1", "--opens", "2", "--bytes", "2000000", "--out", str(out)]
    return run_main(bench_startup.main, [*argv, "--json"])


def test_a_tiny_run_exits_0_with_both_figures(tiny_run: ToolRun) -> None:
    assert tiny_run.code == 0
    assert set(tiny_run.result) == {"config", "startup", "open"}
    startup = tiny_run.result["startup"]
    assert startup["command"].endswith("inspect FILE")
    assert startup["inspect_s"] > 0
    assert startup["floor_s"] > 0
    assert startup["target_s"] == 0.2
    assert isinstance(startup["met"], bool)


def test_both_files_of_the_open_hold_the_same_frames(tiny_run: ToolRun) -> None:
    opened = tiny_run.result["open"]

    assert opened["frames"] >= 1
    assert opened["fsr_records"] == opened["frames"] + 1  # and the intrinsics
    assert opened["fsr_bytes"] > 1_000_000  # about --bytes of frames
    assert opened["mcap_bytes"] > 0
    assert opened["fsr_ms"] > 0
    assert opened["mcap_ms"] > 0
    assert opened["ratio"] == pytest.approx(opened["fsr_ms"] / opened["mcap_ms"])
    assert isinstance(opened["met"], bool)


def test_the_text_report_renders_from_the_json(tiny_run: ToolRun) -> None:
    text = bench_startup.render_text(tiny_run.result)

    assert_mentions(text, "python -c pass", "FSR/MCAP", "target <= 0.2 s")


def test_no_open_times_the_start_up_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = bench_startup.main(["--runs", "1", "--no-open", "--out", str(tmp_path)])

    assert code == 0
    assert "open: not measured (--no-open)" in capsys.readouterr().out
    assert not list(tmp_path.glob("bench-open.*"))


def test_the_open_is_refused_without_the_disk_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_free_disk(monkeypatch, 10)

    code = bench_startup.main(["--runs", "1", "--out", str(tmp_path)])

    assert code == 1
    assert "GB free" in capsys.readouterr().err
    assert not list(tmp_path.glob("bench-open.*"))
