"""tools/bench_gui.py: a short run through the real window, its figures (no timings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tool_scripts import load_tool

from fsr_core import FsrReader

pytestmark = pytest.mark.gui


def test_short_run_reports_every_seek_at_the_issue_window_size(
    qapp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_tool("bench_gui")
    assert bench.main(["--quick", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)

    assert figures["seeks"] == 10
    assert figures["window"] == "1280x720"
    assert figures["plot_points"] == figures["samples"] == 2000
    assert 0 < figures["median_ms"] <= figures["p95_ms"] <= figures["max_ms"]
    assert figures["meets_target"] == (figures["median_ms"] <= 16.0)


def test_the_robot_run_seeks_a_franka_of_over_100k_triangles(
    qapp: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_tool("bench_gui")
    assert bench.main(["--robot", "--seeks", "4", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)

    assert figures["seeks"] == 4
    assert figures["triangles"] > 100_000
    assert figures["samples"] == 300  # the MCAP's joint states
    assert 0 < figures["median_ms"] <= figures["max_ms"]


def test_bench_recording_plays_the_take_back_and_forth_with_its_camera(
    tmp_path: Path,
) -> None:
    bench = load_tool("bench_gui")
    path, frames = bench.write_bench_recording(tmp_path, samples=1200, camera_every=50)

    with FsrReader.open(path) as reader:
        _, _, values = reader.read_series(bench.ARM)
        camera = f"sensors.{bench.CAMERA}.camera.rgb"
        assert reader.streams[camera].record_count == frames == 24
    assert values.shape[0] == 1200
    # Ping-pong: the motion runs forward, then back, never jumping.
    steps = np.abs(np.diff(values[:, 0]))
    assert steps.max() < 0.05
