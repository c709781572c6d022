"""``fsr-viewer batch`` over a LeRobot dataset: the dataset counts as its episodes.

A dataset folder stands for each of its episodes, one item and one report
line apiece; an episode whose video is broken fails alone, and every writing
verb names its output after the dataset and the episode.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import av
import pytest
from batch_inputs import assert_summary, read_report
from hostile_e2e.cli_run import files_below, run_cli

from fsr_core.sources import open_recording

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1] / "data" / "lerobot"
EPISODES = ("episode_000000", "episode_000001", "episode_000002")


@pytest.fixture
def dataset_folder(tmp_path: Path) -> Path:
    """Return a folder with the three-episode dataset, episode 1's video broken."""
    root = tmp_path / "takes" / "tiny_v21"
    shutil.copytree(DATA / "tiny_v21", root)
    broken = root / "videos/chunk-000/observation.images.front/episode_000001.mp4"
    broken.write_bytes(b"\x00" * 100)
    return root.parent


def test_validate_reports_each_episode_and_fails_the_broken_one(
    dataset_folder: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    outcome = run_cli("batch", "validate", dataset_folder, "--report", report)
    assert outcome.returncode == 1, outcome.describe()
    lines = read_report(report)
    assert set(lines) == set(EPISODES)
    assert {name: line["status"] for name, line in lines.items()} == {
        "episode_000000": "ok",
        "episode_000001": "failed",
        "episode_000002": "ok",
    }
    assert "observation.images.front" in lines["episode_000001"]["error"]
    assert_summary(outcome.stdout, "validate", 3, ok=2, skipped=0, failed=1)


def test_export_and_convert_write_one_output_per_readable_episode(
    dataset_folder: Path, tmp_path: Path
) -> None:
    videos, fsr = tmp_path / "videos", tmp_path / "fsr"
    exported = run_cli(
        "batch", "export", dataset_folder, "--out", videos, "--size", "64x64"
    )
    converted = run_cli("batch", "convert", dataset_folder, "--out", fsr)

    assert exported.returncode == 1, exported.describe()
    assert files_below(videos) == {
        "tiny_v21_episode_000000.mp4",
        "tiny_v21_episode_000002.mp4",
    }
    # No scene to draw: the video shows the episode's first camera.
    with av.open(str(videos / "tiny_v21_episode_000002.mp4")) as container:
        assert container.streams.video[0].codec_context.width == 64
        frame = next(container.decode(video=0)).to_ndarray(format="rgb24")
    assert frame.std() > 10  # the camera's picture, not a flat empty scene
    assert "observation.images.front" in exported.stderr
    # Converting reads the episode's state and actions and its good camera.
    assert converted.returncode in (0, 1), converted.describe()
    for name in ("tiny_v21_episode_000000.fsr", "tiny_v21_episode_000002.fsr"):
        model = open_recording(fsr / name)
        assert {"observation.state", "action"} <= set(model.channels)


def test_an_index_lists_each_episode_with_the_dataset_digest(
    dataset_folder: Path,
) -> None:
    index = dataset_folder / "index.json"
    outcome = run_cli("batch", "index", dataset_folder, "-o", index)
    assert outcome.returncode == 1, outcome.describe()  # one episode is broken
    listed = json.loads(index.read_text())["recordings"]
    assert [entry["path"] for entry in listed] == [
        f"tiny_v21/{episode}" for episode in EPISODES
    ]
    assert {entry["source"] for entry in listed} == {"lerobot"}
    assert [entry["valid"] for entry in listed] == [True, False, True]
