"""Dataset episodes checked together give what each gives checked alone.

The data is ``tests/data/lerobot/checks_v30`` (written by LeRobot itself,
with a defect placed in episodes 6-13) with its camera taken out of
``info.json``: its rows are LeRobot's, and a dataset of state and action
alone is what the checks read together. An episode with a flag of its own is
left to be opened and checked alone, which says what it has.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from data_paths import TEST_DATA

from app.cli import main
from fsr_core.checks import (
    DATASET_KINDS,
    Thresholds,
    check_recording,
    checked_together,
)
from fsr_core.robots import RobotRequest
from fsr_core.sources import OpenOptions, expand_recordings, open_recording
from fsr_core.sources.episode_columns import EpisodeColumns, columns_of

DATASET = TEST_DATA / "lerobot" / "checks_v30"
CAMERA = "observation.images.front"
#: Episodes whose defect is a flag of their own (a gap, NaN, an offset); the
#: other defects (jerk, stillness, length, end pose) are the dataset's flags.
FLAGGED_ALONE = {9, 10, 11}


def _without_camera(folder: Path) -> Path:
    root = folder / "state_only"
    shutil.copytree(DATASET, root, ignore=shutil.ignore_patterns("videos"))
    info_path = root / "meta" / "info.json"
    info = json.loads(info_path.read_text())
    info["features"].pop(CAMERA)
    info_path.write_text(json.dumps(info, indent=2))
    return root


@pytest.fixture(scope="module")
def state_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _without_camera(tmp_path_factory.mktemp("together"))


def _alone(paths: list[Path]) -> dict[Path, object]:
    return {
        path: check_recording(open_recording(path), decode_frames=False)
        for path in paths
    }


def test_together_equals_alone_and_leaves_out_the_flagged(state_only: Path) -> None:
    paths = expand_recordings([state_only])
    together = checked_together(paths)
    alone = _alone(paths)
    assert together, "no episode was checked together"
    for path, result in together.items():
        assert result == alone[path], path.name
    left = {int(path.name.split("_")[1]) for path in paths if path not in together}
    assert left == FLAGGED_ALONE
    for path in paths:
        if path not in together:
            assert alone[path].flags, f"{path.name} was left out with nothing to flag"


def test_the_thresholds_decide_what_is_left_out(state_only: Path) -> None:
    paths = expand_recordings([state_only])
    strict = Thresholds(still_speed=10.0, offset_threshold=1e-9)
    together = checked_together(paths, strict)
    alone = {
        path: check_recording(open_recording(path), strict, decode_frames=False)
        for path in paths
    }
    for path, result in together.items():
        assert result == alone[path], path.name
    assert len(together) < len(paths) - len(FLAGGED_ALONE)


def test_a_dataset_with_a_camera_is_checked_alone() -> None:
    paths = expand_recordings([DATASET])
    assert checked_together(paths) == {}


def test_a_robot_to_pose_sends_every_path_back(state_only: Path) -> None:
    paths = expand_recordings([state_only])
    options = OpenOptions(robot=RobotRequest(TEST_DATA / "robots" / "arm.urdf"))
    assert list(columns_of(paths, options)) == paths


def test_rows_out_of_order_are_checked_alone(tmp_path: Path) -> None:
    root = _without_camera(tmp_path)
    data = next((root / "data").rglob("*.parquet"))
    table = pq.read_table(data)
    pq.write_table(table.take(list(range(table.num_rows))[::-1]), data)
    paths = expand_recordings([root])
    pieces = list(columns_of(paths))
    assert not any(isinstance(piece, EpisodeColumns) for piece in pieces)
    assert checked_together(paths) == {}


def test_batch_check_reports_the_same_lines_as_alone(
    state_only: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.jsonl"
    assert main(["batch", "check", str(state_only), "--report", str(report)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    paths = expand_recordings([state_only])
    alone = _alone(paths)
    assert [line["input"] for line in lines] == [str(path) for path in paths]
    for line, path in zip(lines, paths, strict=True):
        expected = alone[path].to_json()
        assert line["status"] == "ok"
        assert line["integrity"] == "valid"
        assert line["metrics"] == expected["metrics"], path.name
        own = [flag for flag in line["flags"] if flag["kind"] not in DATASET_KINDS]
        assert own == expected["flags"], path.name


def test_infinite_and_huge_values_are_left_to_the_full_check(tmp_path: Path) -> None:
    root = _without_camera(tmp_path)
    data = next((root / "data").rglob("*.parquet"))
    table = pq.read_table(data)
    state = table["observation.state"].to_pylist()
    episodes = table["episode_index"].to_pylist()
    first_of = {index: episodes.index(index) for index in (2, 4)}
    state[first_of[2] + 10][1] = float("inf")
    state[first_of[4] + 10][1] = 1e308
    column = pa.array(state, type=table.schema.field("observation.state").type)
    index = table.schema.get_field_index("observation.state")
    pq.write_table(table.set_column(index, "observation.state", column), data)
    paths = expand_recordings([root])
    together = checked_together(paths)
    left = {int(path.name.split("_")[1]) for path in paths if path not in together}
    assert left == FLAGGED_ALONE | {2, 4}
    for path, result in together.items():
        assert result == check_recording(open_recording(path), decode_frames=False)


def test_batch_check_goes_on_alone_when_the_pass_together_fails(
    state_only: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import fsr_core.checks

    def broken(*args: object, **kwargs: object) -> dict[Path, object]:
        raise MemoryError

    monkeypatch.setattr(fsr_core.checks, "checked_together", broken)
    report = tmp_path / "report.jsonl"
    assert main(["batch", "check", str(state_only), "--report", str(report)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(lines) == len(expand_recordings([state_only]))
    assert all(line["status"] == "ok" for line in lines)
