"""EmbodiChain recorder roots, written by EmbodiChain's own recorder, open as playlists.

``tests/data/embodichain`` holds roots that EmbodiChain 0.3.2's recorder wrote
(``tools/make_embodichain_data.py``): one finished normally, one killed at
each journal phase, one whose recorder stored errors. ``<root>.expected.json``
holds what EmbodiChain's and LeRobot's own readers said of them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.errors import FsrError
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import CameraTrack, Integrity
from fsr_core.sources import expand_recordings, inspect_recording, open_recording
from fsr_core.sources.lerobot.depth import depth_metres, read_depth_meta
from fsr_core.sources.lerobot.source import SOURCE

DATA = Path(__file__).resolve().parents[2] / "data" / "embodichain"
CRASHES = {
    "crash_prepared": "prepared",
    "crash_lerobot_committing": "lerobot_committing",
    "crash_lerobot_committed": "lerobot_committed",
    "crash_depth_committed": "depth_committed",
}


@cache
def _expected(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.expected.json").read_text())  # type: ignore[no-any-return]


def _track(address: Path, name: str) -> CameraTrack:
    model = open_recording(address)
    return next(track for track in model.cameras if track.name == name)


def test_a_complete_root_plays_every_episode_with_the_values_fed() -> None:
    fed = _expected("complete")["generated_input"]
    episodes = expand_recordings([DATA / "complete"])
    assert episodes == [episode_path(DATA / "complete", i) for i in (0, 1)]
    for address in episodes:
        model = open_recording(address)
        assert model.integrity is Integrity.VALID, model.integrity_reason
        given = fed[str(model.metadata["episode_index"])]
        np.testing.assert_array_equal(
            model.channels["observation.state"].values,
            np.float32(given["observation.state"]).astype(np.float64),
        )
        assert model.task_text_at(0.0) == given["task"]
        assert {track.name for track in model.cameras} == {
            "observation.images.cam_high",
            "depth.cam_high",
        }


def test_the_sidecar_fields_show_in_the_report() -> None:
    row = _expected("complete")["sidecar_rows"][1]
    report = open_recording(episode_path(DATA / "complete", 1)).report
    section = report["embodichain"]
    assert section["phase"] == "complete"
    assert section["episode_uuid"] == row["episode_uuid"]
    shown = section["sidecar_row"]
    for key in (
        "commit_id",
        "candidate_id",
        "attempt_id",
        "source_id",
        "validation_checks",
    ):
        assert shown[key] == row[key]


@pytest.mark.parametrize(
    "name", ["complete", "crash_depth_committed", "recorded_errors"]
)
def test_depth_decodes_to_the_metres_embodichain_returns(name: str) -> None:
    samples = [s for s in _expected(name)["depth"]["samples"] if "row" in s]
    assert samples
    sensors, problem = read_depth_meta(DATA / name)
    assert not problem
    for sample in samples:
        episode = sensors[sample["sensor"]][sample["episode_index"]]
        values = depth_metres(episode, sample["frame_index"], 10.0)
        metres = values[sample["row"], sample["col"]]
        if sample["decoded_unit"] == "mm":  # the writer's output unit; we show metres
            shown = np.uint16(np.clip(np.rint(metres * np.float32(1000)), 0, 65535))
            assert shown == sample["decoded"]
        else:
            assert metres == np.float32(sample["decoded"])


def test_a_playing_episode_reads_out_the_same_metres() -> None:
    sample = next(
        s for s in _expected("complete")["depth"]["samples"] if s.get("row") == 24
    )
    track = _track(
        episode_path(DATA / "complete", sample["episode_index"]), "depth.cam_high"
    )
    assert track.values is not None
    shown = track.values(sample["frame_index"])[sample["row"], sample["col"]]
    assert np.float32(shown) == np.float32(sample["decoded"])


def test_depth_frames_are_drawn_through_the_colour_scale() -> None:
    track = _track(episode_path(DATA / "complete", 0), "depth.cam_high")
    frame, _ = track.fetch(0)
    assert (frame.height, frame.width) == (48, 64)
    assert track.value_unit == "m"
    assert track.value_range == (0.01, 10.0)
    # The box at 0.35 m is nearer than the ramp around it: a different colour.
    assert not np.array_equal(frame.pixels[24, 32], frame.pixels[5, 5])


@pytest.mark.parametrize("name", sorted(CRASHES))
def test_a_crash_at_each_phase_greys_that_episode_with_the_phase(name: str) -> None:
    phase = CRASHES[name]
    entries = SOURCE.episodes(DATA / name)
    assert [entry.index for entry in entries] == [0, 1]
    assert f"recorder stopped at {phase}" in entries[1].problem
    # LeRobot's files have no footer after the kill: said, not a crash.
    assert "no footer" in entries[0].problem
    for entry in entries:
        with pytest.raises(FsrError):
            open_recording(episode_path(DATA / name, entry.index))
    report = inspect_recording(episode_path(DATA / name, 1))
    assert not report["valid"]
    assert report["lerobot"]["embodichain"]["phase"] == phase


def test_a_stored_recorder_error_is_shown_with_the_phase() -> None:
    root = DATA / "recorded_errors"
    journal = {
        r["lerobot_episode_index"]: r
        for r in _expected("recorded_errors")["inspect_recording"]["commits"]
    }
    model = open_recording(episode_path(root, 1))
    assert model.integrity is Integrity.INVALID
    assert "lerobot_committed" in model.integrity_reason
    assert journal[1]["error"].split(":")[0] in model.integrity_reason
    assert open_recording(episode_path(root, 0)).integrity is Integrity.VALID
    two = open_recording(episode_path(root, 2))
    assert "depth_committed" in two.integrity_reason
    assert "sidecar row" in two.integrity_reason


def test_dataset_verify_reports_each_unfinished_episode() -> None:
    report = inspect_recording(DATA / "recorded_errors", verify=True)
    assert not report["valid"]
    problems = report["verification"]["problems"]
    assert any(p.startswith("episode 1: recorder stopped") for p in problems)
    assert any(p.startswith("episode 2: recorder stopped") for p in problems)
    assert inspect_recording(DATA / "complete", verify=True)["valid"]
