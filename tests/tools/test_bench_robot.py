"""tools/bench_robot.py: a small run measures both kinematics and the load."""

from __future__ import annotations

import contextlib
import io
import json

from tool_scripts import load_tool

bench_robot = load_tool("bench_robot")


def test_a_small_run_prints_every_figure_against_its_peer() -> None:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = bench_robot.main(["--frames", "40", "--json"])

    figures = json.loads(stdout.getvalue())
    assert code == 0
    fk = figures["forward_kinematics"]
    assert fk["frames"] == 40
    assert fk["urdf"]["joints"] == 8  # the Franka's 7 and one finger (one mimics)
    for row in (fk["urdf"], fk["mjcf"]):
        assert row["ours_ms"] > 0
        assert row["speedup"] > 0
    load = figures["load"]
    assert load["mesh_files"] == 9
    assert load["triangles"] > 100_000
    assert load["ratio"] > 0
    assert load["ours_cached_s"] < load["ours_cold_s"]
