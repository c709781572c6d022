"""tools/bench_export.py: a short run, its JSON keys and figures (no timings)."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from tool_scripts import load_tool

pytestmark = pytest.mark.gui


def test_short_run_prints_every_figure_as_json(
    qapp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_tool("bench_export")
    assert bench.main(["--seconds", "0.2", "--repeat", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures) >= {
        "export_fps",
        "encoder_fps",
        "ratio",
        "skelarm_fps",
        "skelarm_installed",
        "vs_skelarm",
        "frames",
        "frame_size",
    }
    assert figures["frame_size"] == "1584x720"
    assert figures["frames"] >= 2
    for key in ("export_fps", "encoder_fps", "ratio", "skelarm_fps", "vs_skelarm"):
        assert figures[key] > 0
    assert figures["skelarm_fps"] == 31.0
    # Two alternating rounds, and the ratio is the median of theirs.
    assert len(figures["round_ratios"]) == 2
    assert figures["ratio"] == pytest.approx(sum(figures["round_ratios"]) / 2)


def test_table_names_the_reference_when_skelarm_is_missing(
    qapp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_tool("bench_export")
    assert bench.main(["--seconds", "0.1", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "encoder alone" in out
    assert "export / encoder" in out
    if importlib.util.find_spec("skelarm") is None:
        assert "skelarm not installed (needs Python >= 3.12)" in out
