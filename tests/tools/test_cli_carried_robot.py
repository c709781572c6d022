"""``inspect`` of a recording that carries its robot prints the robot, as --robot does.

The MCAP bag of a Franka holds its URDF on ``/robot_description``: without
``--package-path`` its meshes are nowhere, and each link's warning reaches
the report; with it, none. A MuJoCo run embeds its MJCF: its robot is
posed over the recorded scene, which stays what is drawn.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from cli_output import assert_mentions, command_output
from data_paths import MCAP_DATA, MUJOCO_EXAMPLES, TEST_DATA

from app.cli import main

PANDA = MCAP_DATA / "panda_description.mcap"
PANDA_PACKAGE = TEST_DATA / "robots" / "franka_panda"


def test_inspect_prints_the_carried_robot_and_a_warning_per_missing_mesh(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(capsys, main, ["inspect", str(PANDA)])

    assert_mentions(
        out,
        f"robot: panda ({PANDA} /robot_description)",
        "matched joints (8):",
        "panda_joint7 -> panda_joint7 (exact)",
        "shown_as robot description",
    )
    warnings = [line for line in out.splitlines() if line.startswith("  warning: ")]
    assert len(warnings) == 11
    assert "link 'panda_hand': package://meshes/visual/hand.obj" in out
    assert re.search(r"triangles: (\d+)", out)[1] == "0"  # type: ignore[index]


def test_a_package_path_finds_the_meshes_and_silences_the_warnings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(
        capsys, main, ["inspect", str(PANDA), "--package-path", str(PANDA_PACKAGE)]
    )

    assert f"robot: panda ({PANDA} /robot_description)" in out
    assert "warning:" not in out
    assert int(re.search(r"triangles: (\d+)", out)[1]) > 0  # type: ignore[index]


def test_inspect_of_a_mujoco_run_prints_its_embedded_robot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mujoco")
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.runtime import select_gl_backend
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    select_gl_backend()
    scenario = load_mujoco_scenario(MUJOCO_EXAMPLES / "reach_arm.toml")
    path = tmp_path / "reach.fsr"
    record_mujoco_run(dataclasses.replace(scenario, duration_s=0.1, cameras=()), path)

    out = command_output(capsys, main, ["inspect", str(path)])

    assert_mentions(
        out,
        f"robot: reach_arm ({path} reach_arm.xml)",
        "drawn: the recording's own scene; robot/<link> channels and the tip trail",
        "yaw -> yaw (exact)",
    )
