"""Rerun recordings from the command line: inspect, export, screenshot, convert, batch.

The files under ``tests/data/rerun`` were written by rerun-sdk
(``tools/make_rerun_data.py``).
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
from shown_widgets import checked_time_bases, time_base_entries

from app.cli import main
from app.window.main_window import MainWindow

DATA = TEST_DATA / "rerun"
ARM = DATA / "arm_run.rrd"
TWO = DATA / "two_runs.rrd"
TRUTH = json.loads((DATA / "expected.json").read_text())


def test_inspect_json_verify_lists_entities_cameras_and_events(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(capsys, main, ["inspect", str(ARM), "--json", "--verify"])
    report = json.loads(out)
    assert report["source"] == "rerun"
    assert report["valid"] is True
    assert report["verification"]["problem_count"] == 0
    assert report["rerun"]["timelines"] == {
        "sim_time": "duration",
        "step": "sequence",
        "log_time": "time",
    }
    cameras = {camera["name"]: camera for camera in report["cameras"]}
    assert cameras["/world/camera/depth"]["archetype"] == "DepthImage"
    k = cameras["/world/camera/image"]["calibration"][0]["K"]
    assert k == [[30.0, 0.0, 16.0], [0.0, 30.0, 12.0], [0.0, 0.0, 1.0]]
    assert [e["text"] for e in report["rerun"]["events"]][-1] == "run finished"


def test_a_cut_rrd_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cut = tmp_path / "cut.rrd"
    cut.write_bytes(ARM.read_bytes()[:20_000])
    assert main(["inspect", str(cut)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "cut.rrd" in err[0]
    assert "cut short" in err[0]


def test_export_channels_writes_rerun_s_scalars(tmp_path: Path) -> None:
    rows = exported_rows(tmp_path / "run.csv", str(ARM))
    header = rows[0]
    truth = TRUTH["files"]["arm_run.rrd"]["recordings"][0]["entities"]
    joints = np.asarray(truth["/arm/joint_positions"]["data"]["Scalars:scalars"][0])
    columns = [header.index(f"/arm/joint_positions:joint_{j}") for j in range(1, 7)]
    values = np.asarray([[float(row[c]) for c in columns] for row in rows[1:]])
    np.testing.assert_allclose(values, joints)


def test_a_screenshot_draws_the_scene_and_the_camera(tmp_path: Path) -> None:
    shot = tmp_path / "rrd.png"
    assert main([str(ARM), "--screenshot", str(shot), "--at", "1.0"]) == 0
    pixels = png_pixels(shot)
    # The camera's frame is green over dark red: the picture is no blank window.
    assert pixels.std() > 20


def test_batch_converts_each_recording_of_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    words = ["batch", "convert", str(TWO), "--out", str(tmp_path), "--jobs", "1"]
    command_output(capsys, main, words)
    written = sorted(path.name for path in tmp_path.glob("*.fsr"))
    assert written == ["two_runs_episode_000000.fsr", "two_runs_episode_000001.fsr"]
    out = command_output(
        capsys, main, ["inspect", str(tmp_path / written[1]), "--json"]
    )
    provenance = json.loads(out)["provenance"]
    assert provenance["source_kind"] == "rerun"
    assert provenance["source"] == "two_runs.rrd"
    assert provenance["rerun_library"] == f"rerun-sdk {TRUTH['rerun_sdk']}"
    assert provenance["rerun_recording_id"] == "run-2"
    assert provenance["rerun_recording_index"] == 1


@pytest.mark.gui
def test_view_time_base_lists_the_recording_s_timelines(window: MainWindow) -> None:
    window.open_files([ARM])
    session = window.session
    assert time_base_entries(window) == [
        "Timeline sim_time",
        "Timeline step",
        "Timeline log_time",
    ]
    assert checked_time_bases(window) == ["sim_time"]

    window.menus.time_base_actions["step"].trigger()

    model = session.model
    assert model is not None
    assert model.metadata["time_base"] == "step"
    assert session.clock.duration_s == pytest.approx(39.0)
