"""LeRobot datasets written by lerobot itself open with the values its reader gave.

``tests/data/lerobot/tiny_v21`` (lerobot 0.3.3, codebase v2.1: one parquet and
one mp4 per episode) and ``tiny_v30`` (lerobot 0.6.1, codebase v3.0: episodes
packed into shared files) were written by ``LeRobotDataset.create`` /
``add_frame`` / ``save_episode`` (``tools/make_lerobot_data.py``);
``<name>.expected.json`` holds what ``LeRobotDataset[i]`` returned for them,
so these tests need neither lerobot nor torch.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import CameraTrack, Integrity, RecordingModel
from fsr_core.sources import (
    convert_recording,
    episode_address,
    expand_recordings,
    inspect_recording,
    open_recording,
    source_for,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "lerobot"
DATASETS = ("tiny_v21", "tiny_v30", "tiny_v30_rollover")
#: AV1 is lossy: LeRobot's own decode and ours differ by a few levels.
VIDEO_LEVELS = 12.0


@cache
def _expected(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.expected.json").read_text())  # type: ignore[no-any-return]


@cache
def _episode(name: str, index: int) -> RecordingModel:
    return open_recording(episode_path(DATA / name, index))


def _camera(model: RecordingModel, key: str) -> CameraTrack:
    return next(track for track in model.cameras if track.name == key)


def _row_of(frame: dict[str, Any]) -> tuple[int, int]:
    return int(frame["episode_index"]), int(frame["frame_index"])


@pytest.mark.parametrize("name", DATASETS)
def test_a_dataset_root_is_a_playlist_of_its_episodes(name: str) -> None:
    expected = _expected(name)
    episodes = expand_recordings([DATA / name])
    assert episodes == [
        episode_path(DATA / name, item["episode_index"])
        for item in expected["episodes"]
    ]
    assert source_for(DATA / name).name == "lerobot"
    entries = source_for(DATA / name).episodes(DATA / name)  # type: ignore[attr-defined]
    assert [(e.index, e.frames, e.task, e.problem) for e in entries] == [
        (item["episode_index"], item["length"], item["task"], "")
        for item in expected["episodes"]
    ]


@pytest.mark.parametrize("name", DATASETS)
def test_rows_match_what_lerobot_returned(name: str) -> None:
    for frame in _expected(name)["frames"]:
        episode, row = _row_of(frame)
        model = _episode(name, episode)
        assert model.integrity is Integrity.VALID, model.integrity_reason
        time_s = model.channels["action"].times_s[row]
        assert time_s == pytest.approx(frame["timestamp"], abs=1e-6)
        for key in ("observation.state", "action"):
            got = model.channels[key].values[row]
            np.testing.assert_array_equal(
                got, np.float32(frame[key]).astype(np.float64)
            )
        assert model.task_text_at(time_s) == frame["task"]


@pytest.mark.parametrize("name", DATASETS)
def test_camera_frames_match_what_lerobot_decoded(name: str) -> None:
    for frame in _expected(name)["frames"]:
        episode, row = _row_of(frame)
        model = _episode(name, episode)
        for key, tolerance in (
            ("observation.images.wrist", 0.01),  # PNG: exact
            ("observation.images.front", VIDEO_LEVELS),  # AV1: lossy
        ):
            want = frame[key]
            picture, calibration = _camera(model, key).fetch(row)
            assert calibration is None
            assert (picture.height, picture.width) == tuple(want["returned_shape"][1:])
            pixels = picture.pixels.astype(np.float64)
            np.testing.assert_allclose(
                pixels.mean(axis=(0, 1)), want["mean_per_channel_0_255"], atol=tolerance
            )
            np.testing.assert_allclose(
                pixels[0, 0], want["pixel_0_0_0_255"], atol=max(tolerance, 0.5)
            )


def test_random_order_frames_of_a_shared_video_are_the_frames_played_in_order() -> None:
    model = _episode("tiny_v30", 2)
    track = _camera(model, "observation.images.front")
    in_order = [track.fetch(i)[0].pixels.copy() for i in range(len(track.times_s))]
    for index in (7, 0, 11, 3, 3, 10, 1):
        np.testing.assert_array_equal(track.fetch(index)[0].pixels, in_order[index])
    # Episode 2 follows episodes 0 and 1 in the same file: its first frame is
    # not the file's first frame.
    first = _camera(_episode("tiny_v30", 0), "observation.images.front").fetch(0)[0]
    assert not np.array_equal(first.pixels, in_order[0])


@pytest.mark.parametrize("name", DATASETS)
def test_verify_checks_every_episode_and_finds_them_whole(name: str) -> None:
    report = inspect_recording(DATA / name, verify=True)
    assert report["valid"], report["verification"]
    assert report["verification"]["checked_records"] == _expected(name)["total_frames"]
    assert [e["length"] for e in report["lerobot"]["episodes"]] == [
        item["length"] for item in _expected(name)["episodes"]
    ]
    one = inspect_recording(episode_path(DATA / name, 1), verify=True)
    assert one["valid"]
    assert one["verification"]["problem_count"] == 0
    assert one["lerobot"]["episode_index"] == 1
    assert one["lerobot"]["stats"]["action"]["min"]  # the inspector shows meta stats


def test_v3_episodes_locate_their_rows_and_video_span_in_shared_files() -> None:
    for item in _expected("tiny_v30")["episodes"]:
        report = _episode("tiny_v30", item["episode_index"]).report
        assert report["dataset_rows"] == [
            item["dataset_from_index"],
            item["dataset_to_index"],
        ]
        video = report["videos"]["observation.images.front"]
        assert (
            video["from_timestamp"]
            == item["videos/observation.images.front/from_timestamp"]
        )


def test_an_episode_converts_to_fsr_naming_the_dataset_and_episode(
    tmp_path: Path,
) -> None:
    address = episode_address(DATA / "tiny_v30", 1)
    result = convert_recording(address, tmp_path / "ep1.fsr")
    converted = open_recording(result.output)
    source = _episode("tiny_v30", 1)
    np.testing.assert_array_equal(
        converted.channels["action"].values, source.channels["action"].values
    )
    assert len(converted.cameras) == 2
    provenance = json.dumps(converted.provenance, default=str)
    assert "tiny_v30" in provenance
    assert '"episode_index": 1' in provenance
