"""The command line draws a recording with ``--robot``: stills, channels, errors.

The recordings are a ROS 2 MCAP of a Franka's ``/joint_states`` (written by
``mcap-ros2-support``) and pybullet_data's Franka URDF.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from data_paths import TEST_DATA
from PIL import Image

from app.cli import main

pytestmark = pytest.mark.gui

MCAP = TEST_DATA / "mcap" / "panda_description.mcap"
URDF = TEST_DATA / "robots" / "franka_panda" / "panda.urdf"


def _still(tmp_path: Path, name: str, *extra: str) -> np.ndarray:
    out = tmp_path / f"{name}.png"
    code = main(
        [str(MCAP), "--robot", str(URDF), "--export-frame", "1.5", str(out), *extra]
    )
    assert code == 0
    return np.asarray(Image.open(out).convert("RGB"), dtype=int)


def test_a_still_draws_the_robot_and_its_tip_trail(tmp_path: Path) -> None:
    drawn = _still(tmp_path, "robot")
    without_trail = _still(tmp_path, "no_trail", "--hide-tip-trail")
    with_frames = _still(tmp_path, "frames", "--show-link-frames")

    background = drawn[2, 2]
    robot = np.abs(drawn - background).sum(axis=2) > 60
    assert robot.mean() > 0.02  # the arm fills a part of the scene
    trail = np.abs(drawn - without_trail).sum(axis=2) > 30
    assert 50 < trail.sum() < robot.sum()
    assert (np.abs(with_frames - drawn).sum(axis=2) > 30).sum() > 50


def test_the_link_poses_are_exported_as_channels(tmp_path: Path) -> None:
    out = tmp_path / "channels.csv"

    code = main([str(MCAP), "--robot", str(URDF), "--export-channels", str(out)])

    assert code == 0
    with out.open() as handle:
        header = next(csv.reader(handle))
    hand = [name for name in header if name.startswith("robot/panda_hand:")]
    assert [name.split(":")[1].split(" ")[0] for name in hand] == [
        "x", "y", "z", "qw", "qx", "qy", "qz",
    ]  # fmt: skip


def test_a_missing_robot_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.urdf"

    code = main(
        [str(MCAP), "--robot", str(missing), "--screenshot", str(tmp_path / "s.png")]
    )

    err = capsys.readouterr().err.strip()
    assert code == 1
    assert len(err.splitlines()) == 1
    assert str(missing) in err
    assert "no such robot description" in err


def test_convert_writes_the_robot_with_the_recording(tmp_path: Path) -> None:
    from fsr_core.robots import RobotRequest
    from fsr_core.sources import OpenOptions, open_recording

    out = tmp_path / "panda.fsr"

    code = main(["convert", str(MCAP), "-o", str(out), "--robot", str(URDF)])

    assert code == 0
    written = open_recording(out)
    posed = open_recording(MCAP, options=OpenOptions(robot=RobotRequest(path=URDF)))
    np.testing.assert_allclose(
        written.channels["robot/panda_hand"].values,
        posed.channels["robot/panda_hand"].values,
        atol=1e-9,
    )
    assert written.geometry is not None
    assert len(written.geometry.meshes) == len(posed.geometry.meshes)
    assert written.provenance["robot_description"] == str(URDF)


def test_convert_refuses_a_robot_for_a_source_that_cannot_carry_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = TEST_DATA / "skelarm" / "reach.sklog.npz"

    code = main(
        ["convert", str(log), "-o", str(tmp_path / "r.fsr"), "--robot", str(URDF)]
    )

    assert code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--robot" in err
    assert str(log) in err
    assert not (tmp_path / "r.fsr").exists()
