"""``fsr-viewer batch check``: the defects placed in a LeRobot dataset, and only them.

``tests/data/lerobot/checks_v30`` was written by LeRobot itself
(``tools/make_check_data.py``) with one defect per episode 6-13 and clean
episodes 0-5; ``checks_v30.defects.json`` says where each defect is. One run
over the dataset (two workers, report and HTML page) serves every test here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from check_defects import CHECKS_DATASET as DATASET
from check_defects import EXPECTED_KINDS, FPS, TRUTH
from hostile_e2e.cli_run import CliOutcome, run_cli
from PIL import Image

from app.cli import main


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[CliOutcome, Path]:
    folder = tmp_path_factory.mktemp("check")
    outcome = run_cli(
        "batch",
        "check",
        DATASET,
        "--report",
        folder / "report.jsonl",
        "--html",
        folder / "report.html",
        "--jobs",
        "2",
    )
    assert "Traceback" not in outcome.stderr, outcome.describe()
    return outcome, folder


def _lines(folder: Path) -> dict[int, dict[str, Any]]:
    lines = [
        json.loads(line) for line in (folder / "report.jsonl").read_text().splitlines()
    ]
    return {line["episode"]: line for line in lines}


def test_every_episode_is_a_line_with_metrics_and_exit_0(
    checked: tuple[CliOutcome, Path],
) -> None:
    outcome, folder = checked
    assert outcome.returncode == 0, outcome.describe()
    lines = _lines(folder)
    assert sorted(lines) == list(range(14))
    first = lines[0]
    assert first["verb"] == "check"
    assert first["status"] == "ok"
    assert first["integrity"] == "valid"
    assert first["recording"].endswith("checks_v30/episode_000000")
    assert first["metrics"]["frames"] == TRUTH["episodes"][0]["frames"]
    assert first["metrics"]["static_fraction"] > 0.2  # it holds, moves, holds
    assert "batch check: 14 recordings" in outcome.stdout
    assert "8 flagged, 10 flags" in outcome.stdout


def test_clean_episodes_have_no_flag(checked: tuple[CliOutcome, Path]) -> None:
    lines = _lines(checked[1])
    for episode in TRUTH["clean_episodes"]:
        assert lines[episode]["flags"] == [], lines[episode]


def test_each_placed_defect_is_flagged_with_its_kind_channel_and_time(
    checked: tuple[CliOutcome, Path],
) -> None:
    lines = _lines(checked[1])
    for episode, kinds in EXPECTED_KINDS.items():
        assert {flag["kind"] for flag in lines[episode]["flags"]} == kinds, episode
    for defect in TRUTH["defects"]:
        flags = [
            flag
            for flag in lines[defect["episode"]]["flags"]
            if flag["kind"] == defect["kind"]
            and flag["channel"].startswith(defect["channel"])
        ]
        assert flags, defect
        flag = flags[0]
        assert flag["value"] is not None
        assert flag["threshold"] is not None
        assert abs(flag["value"]) > abs(flag["threshold"]) or flag["kind"] in (
            "frozen_video",  # frames in the run, at least the threshold's
            "length_outlier",
        )
        if "frame" in defect:  # within a frame of where it was placed
            placed_s, frame_s = defect["frame"] / FPS, 1.01 / FPS
            assert flag["start_s"] - frame_s <= placed_s <= flag["end_s"] + frame_s
    frozen = _kind(lines[8], "frozen_video")
    assert frozen["start_s"] == pytest.approx(20 / FPS, abs=1.01 / FPS)
    assert frozen["end_s"] == pytest.approx(34 / FPS, abs=1.01 / FPS)
    gap = _kind(lines[9], "timestamp_gap")
    assert gap["value"] == pytest.approx(0.53 + 1 / FPS, abs=1e-3)
    desync = _kind(lines[9], "video_desync")
    assert desync["value"] == pytest.approx(0.53, abs=1e-3)
    assert desync["threshold"] == pytest.approx(1e-4)  # LeRobot's tolerance_s
    jerk = _kind(lines[6], "jerk")
    assert jerk["start_s"] <= 35 / FPS <= jerk["end_s"]
    offset = _kind(lines[11], "action_state_offset")
    assert offset["channel"] == "action/wrist_flex"  # joint 3
    assert offset["value"] == pytest.approx(0.3, abs=1e-3)


def _kind(line: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(flag for flag in line["flags"] if flag["kind"] == kind)


def test_checks_file_overrides_a_threshold_and_refuses_an_unknown_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fsr_core.checks import Thresholds, read_thresholds

    good = tmp_path / "good.toml"
    good.write_text("[checks]\niqr_k = 3.0\nlength_min_ratio = 4\n")
    assert read_thresholds(good) == Thresholds(iqr_k=3.0, length_min_ratio=4.0)
    bad = tmp_path / "bad.toml"
    bad.write_text("iqr_k = 2\njerk_ratio = 5\n")
    report = tmp_path / "report.jsonl"
    code = main(
        ["batch", "check", str(DATASET), "--checks", str(bad), "--report", str(report)]
    )
    assert code == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1, errors
    assert str(bad) in errors[0]
    assert "unknown key 'jerk_ratio'" in errors[0]
    assert not report.exists()  # refused before any work


def test_html_report_draws_its_histograms_in_headless_chromium(
    checked: tuple[CliOutcome, Path], tmp_path: Path
) -> None:
    page = checked[1] / "report.html"
    text = page.read_text()
    assert "http://" not in text  # self-contained
    assert "https://" not in text
    assert text.count("data:image/png;base64,") == 8  # a thumbnail per flagged
    chromium = shutil.which("chromium")
    assert chromium is not None, "Debian's chromium is needed (.ci/run installs it)"
    # frames, jerk (median, p95), static fraction, end distance
    assert text.count("<canvas") == 5
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu"]
    shot = tmp_path / "page.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1000,700", page.as_uri()],
        capture_output=True,
        timeout=60,
        check=True,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    blue = (abs(pixels - (0x4C, 0x78, 0xA8)).sum(axis=2) < 12).sum()
    red = (abs(pixels - (0xD6, 0x27, 0x28)).sum(axis=2) < 12).sum()
    # Only the page's script paints the canvases: their bars are there.
    assert blue > 500  # the bars of the ordinary episodes
    assert red > 100  # the outliers' bars and the fences


def test_inspect_verify_reports_the_gap_and_the_nan_as_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gap = main(["inspect", str(DATASET), "--episode", "9", "--verify", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert gap == 1
    assert report["valid"] is False
    assert {flag["kind"] for flag in report["checks"]} == {
        "timestamp_gap",
        "video_desync",
    }
    problems = report["verification"]["problems"]
    assert any(
        problem.startswith("timestamp_gap: observation.state") for problem in problems
    )
    nan = main(["inspect", str(DATASET), "--episode", "10", "--verify"])
    out, err = capsys.readouterr()
    assert nan == 1
    assert "non_finite: observation.state" in out
    assert err.count("\n") == 1  # one line naming the episode
    assert main(["inspect", str(DATASET), "--episode", "2", "--verify"]) == 0
