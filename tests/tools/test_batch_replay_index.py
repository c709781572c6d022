"""``batch validate`` checks every artifact a ``real2sim-replay/v1`` index pins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_indexes import write_replay_index

from app.cli import main


def test_validate_fails_the_episode_whose_pinned_artifact_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, root = write_replay_index(tmp_path)
    (root / "meta/real2sim/episode_1/prototype.json").write_bytes(b"edited")
    report = tmp_path / "report.jsonl"
    code = main(["batch", "validate", str(index), "--report", str(report)])
    assert code == 1
    lines = {
        Path(item["input"]).name: item
        for item in map(json.loads, report.read_text().splitlines())
    }
    assert lines["episode_000000"]["status"] == "ok"
    failed = lines["episode_000001"]
    assert failed["status"] == "failed"
    assert "prototype.json" in failed["error"]
    assert "changed" in failed["error"]
    capsys.readouterr()
