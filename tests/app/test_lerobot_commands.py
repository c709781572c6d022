"""A LeRobot dataset from the command line: inspect, convert, export, screenshot.

The datasets under ``tests/data/lerobot`` were written by lerobot itself
(``tools/make_lerobot_data.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import av
import numpy as np
import pytest
from channel_tables import exported_rows
from cli_output import assert_mentions, command_output
from data_paths import TEST_DATA

from app.cli import main
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import open_recording

DATA = TEST_DATA / "lerobot"


def test_inspect_a_dataset_lists_its_episodes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(capsys, main, ["inspect", str(DATA / "tiny_v30"), "--json"])
    report = json.loads(out)
    assert report["source"] == "lerobot"
    assert report["valid"]
    assert [e["tasks"] for e in report["lerobot"]["episodes"]] == [
        ["pick the red cube"],
        ["push the blue block"],
        ["pick the red cube"],
    ]


def test_inspect_verify_one_episode(capsys: pytest.CaptureFixture[str]) -> None:
    out = command_output(
        capsys,
        main,
        ["inspect", str(DATA / "tiny_v21"), "--episode", "2", "--verify", "--json"],
    )
    report = json.loads(out)
    assert report["lerobot"]["episode_index"] == 2
    assert report["verification"]["checked_records"] == 12


def test_an_episode_the_dataset_lacks_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["inspect", str(DATA / "tiny_v21"), "--episode", "7"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert_mentions(err, "tiny_v21", "no episode 7", "has 3")


def test_a_broken_episode_fails_verify_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "tiny_v21"
    shutil.copytree(DATA / "tiny_v21", root)
    (root / "videos/chunk-000/observation.images.front/episode_000001.mp4").write_bytes(
        b"\x00" * 100
    )
    assert main(["inspect", str(root), "--verify"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert_mentions(err, "episode 1", "observation.images.front")


def test_convert_an_episode_next_to_the_caller_never_into_the_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    command_output(capsys, main, ["convert", str(DATA / "tiny_v30"), "--episode", "1"])
    output = tmp_path / "tiny_v30_episode_000001.fsr"
    converted = open_recording(output)
    np.testing.assert_array_equal(
        converted.channels["observation.state"].values,
        open_recording(episode_path(DATA / "tiny_v30", 1))
        .channels["observation.state"]
        .values,
    )


def test_export_an_episode_with_its_camera_and_panel(tmp_path: Path) -> None:
    video = tmp_path / "ep2.mp4"
    code = main(
        [
            str(DATA / "tiny_v30"),
            "--episode",
            "2",
            "--export",
            str(video),
            "--view",
            "camera",
            "--camera",
            "observation.images.front",
            "--panel",
            "--size",
            "320x240",
        ]
    )
    assert code == 0
    with av.open(str(video)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    assert len(frames) == int(1.1 * 30) + 1  # 12 rows at 10 fps: 1.1 s
    assert np.abs(frames[0].astype(int) - frames[-1].astype(int)).mean() > 1.0


def test_export_dir_writes_one_video_per_episode(tmp_path: Path) -> None:
    out = tmp_path / "videos"
    code = main([str(DATA / "tiny_v21"), "--export-dir", str(out), "--size", "160x120"])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        f"tiny_v21_episode_00000{i}.mp4" for i in range(3)
    ]


def test_export_without_an_episode_says_how_to_pick_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(DATA / "tiny_v21"), "--export", str(tmp_path / "x.mp4")]) == 1
    assert_mentions(capsys.readouterr().err, "--episode N")
    assert not (tmp_path / "x.mp4").exists()


def test_export_channels_of_an_episode_names_columns_from_info_json(
    tmp_path: Path,
) -> None:
    rows = exported_rows(tmp_path / "ep.csv", str(DATA / "tiny_v21"), "--episode", "0")
    assert any("action" in name and "gripper" in name for name in rows[0])
    assert len(rows) == 1 + 8


def test_screenshot_of_a_dataset_draws_the_player_window(tmp_path: Path) -> None:
    shot = tmp_path / "player.png"
    args = [str(DATA / "tiny_v30"), "--screenshot", str(shot), "--at", "0.4"]
    assert main([*args, "--plot", "action"]) == 0
    assert shot.stat().st_size > 10_000
