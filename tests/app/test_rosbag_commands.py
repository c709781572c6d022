"""ROS bags from the command line: inspect, export, screenshot, convert, batch.

The bags under ``tests/data/rosbag1`` and ``tests/data/rosbag2`` were written
by ``rosbags``' writers (``tools/make_rosbag_data.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from channel_tables import exported_rows
from cli_output import command_output
from data_paths import TEST_DATA
from pixel_colors import png_pixels

from app.cli import main
from fsr_core.sources import open_recording

ROS1 = TEST_DATA / "rosbag1"
ROS2 = TEST_DATA / "rosbag2"


def test_inspect_json_verify_of_a_bag_and_of_a_killed_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(
        capsys, main, ["inspect", str(ROS1 / "lz4.bag"), "--json", "--verify"]
    )
    report = json.loads(out)
    assert report["source"] == "rosbag1"
    assert report["valid"] is True
    assert report["verification"]["problem_count"] == 0
    assert "/joint_states" in {channel["name"] for channel in report["channels"]}

    out = command_output(capsys, main, ["inspect", str(ROS1 / "killed.bag")])
    assert "no index: scanned" in out


def test_inspect_of_a_cut_bag_reports_the_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = (ROS1 / "small_chunks_lz4.bag").read_bytes()
    cut = tmp_path / "cut.bag"
    cut.write_bytes(data[: len(data) // 2])

    out = command_output(capsys, main, ["inspect", str(cut), "--verify", "--json"])

    report = json.loads(out)
    assert report["integrity"]["status"] == "recovered"
    assert report["rosbag1"]["scan"]["cut_offset"] is not None
    assert any("cut at byte" in p for p in report["verification"]["problems"])


def test_a_bag_that_is_not_one_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stub = tmp_path / "stub.bag"
    stub.write_bytes((ROS1 / "none.bag").read_bytes()[:5000])

    assert main(["inspect", str(stub)]) == 1

    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "stub.bag" in err
    assert "no message readable" in err


def test_export_channels_writes_the_joint_and_numeric_topics(tmp_path: Path) -> None:
    rows = exported_rows(tmp_path / "bag.csv", str(ROS2 / "split"))
    header = rows[0]
    assert "/joint_states:position.elbow" in header
    assert "/odom_speed:data" in header
    model = open_recording(ROS2 / "split")
    speed = model.channels["/odom_speed"]
    assert len(rows) == 1 + (speed.count or 0)
    column = header.index("/odom_speed:data")
    np.testing.assert_allclose(
        [float(row[column]) for row in rows[1:]], speed.values[:, 0]
    )


@pytest.mark.parametrize(
    "path", [ROS1 / "bz2.bag", ROS2 / "zstd_file"], ids=lambda path: path.name
)
def test_a_screenshot_draws_the_robot_and_both_cameras(
    tmp_path: Path, path: Path
) -> None:
    shot = tmp_path / "bag.png"
    code = main([str(path), "--screenshot", str(shot), "--at", "1.0"])
    assert code == 0
    pixels = png_pixels(shot)
    # The cameras' frames are a colour ramp: the picture is no blank window.
    assert pixels.std() > 20


def test_convert_writes_an_fsr_file_that_names_its_bag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "run.fsr"
    command_output(capsys, main, ["convert", str(ROS1 / "lz4.bag"), "-o", str(output)])

    out = command_output(capsys, main, ["inspect", str(output), "--json"])
    provenance = json.loads(out)["provenance"]
    assert provenance["source_kind"] == "rosbag1"
    assert provenance["source"] == "lz4.bag"
    assert provenance["bag_library"].startswith("rosbags ")


def test_batch_validates_bags_of_both_generations(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    out = command_output(
        capsys,
        main,
        [
            "batch",
            "validate",
            str(ROS1 / "killed.bag"),
            str(ROS2 / "split"),
            str(ROS2 / "bare.db3"),
            "--jobs",
            "1",
            "--report",
            str(report),
        ],
    )
    assert "3 ok" in out
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(lines) >= 3
