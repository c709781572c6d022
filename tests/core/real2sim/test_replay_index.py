"""``real2sim-replay/v1`` indexes open as a playlist of pinned, checked episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_indexes import write_replay_index

from fsr_core.errors import DigestMismatchError, IndexFileError
from fsr_core.playlists.episodes import episode_path
from fsr_core.playlists.pinned import pinned_entries
from fsr_core.playlists.real2sim_index import read_real2sim
from fsr_core.sources import expand_recordings, open_recording


def test_an_index_is_a_playlist_of_its_episodes(tmp_path: Path) -> None:
    index, root = write_replay_index(tmp_path)
    assert expand_recordings([index]) == [episode_path(root, 0), episode_path(root, 1)]
    pinned = pinned_entries([index])
    for address, entry in pinned.items():
        entry.verify()  # every pinned artifact is there and unchanged
        assert entry.facts["receipt"]["confirmed"] is True
        assert open_recording(address).source == "lerobot"
    read = read_real2sim(index)
    assert [len(e.artifacts) for e in read.episodes] == [4, 4]  # 3 pins + rollout
    assert read.failed_attempts[0]["detail"]["reason"] == "collision"


def test_a_changed_artifact_fails_its_episode_only(tmp_path: Path) -> None:
    index, root = write_replay_index(tmp_path)
    (root / "meta/real2sim/episode_1/evidence.json").write_bytes(b"{ }")
    pinned = pinned_entries([index])
    pinned[episode_path(root, 0)].verify()
    with pytest.raises(DigestMismatchError, match=r"evidence\.json.* changed"):
        pinned[episode_path(root, 1)].verify()


def test_a_missing_or_outside_artifact_is_named(tmp_path: Path) -> None:
    index, root = write_replay_index(tmp_path)
    (root / "meta/real2sim/episode_0/trace.json").unlink()
    document = json.loads(index.read_text())
    lineage = document["episodes"][1]["metadata"]["real2sim_lineage"]
    lineage["trace"]["path"] = "../../etc/passwd"
    index.write_text(json.dumps(document))
    pinned = pinned_entries([index])
    with pytest.raises(DigestMismatchError, match=r"trace\.json.* missing"):
        pinned[episode_path(root, 0)].verify()
    with pytest.raises(DigestMismatchError, match="outside its dataset"):
        pinned[episode_path(root, 1)].verify()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"schema": "real2sim-replay/v1", "episodes": 3}', "must be a list"),
        (
            '{"schema": "real2sim-replay/v1", "episodes": [{"dataset": "x"}]}',
            "lerobot_episode_index",
        ),
        ('{"schema": "real2sim-replay/v1", ' + "[" * 50_000, "JSON"),
    ],
)
def test_a_malformed_index_is_one_error(
    tmp_path: Path, text: str, problem: str
) -> None:
    index = tmp_path / "bad.json"
    index.write_text(text)
    with pytest.raises(IndexFileError, match=problem):
        expand_recordings([index])


def test_an_index_over_its_budget_is_refused_unread(tmp_path: Path) -> None:
    index = tmp_path / "huge.json"
    index.write_text('{"schema": "real2sim-replay/v1", "episodes": []}')
    with index.open("r+b") as handle:
        handle.truncate((64 << 20) + 1)
    with pytest.raises(IndexFileError, match="read budget"):
        read_real2sim(index)
