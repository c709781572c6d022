"""Broken and hostile LeRobot datasets: per-episode errors, never a crash.

Each test copies a dataset written by lerobot (``tests/data/lerobot``) and
breaks one thing the way a crash, a bad copy or a hostile author would. The
rule: one clear :class:`~fsr_core.errors.FsrError` naming the file, or the
problem shown on that episode while the other episodes still open.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fsr_core.errors import FsrError, LimitExceededError
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import Integrity
from fsr_core.sources import expand_recordings, inspect_recording, open_recording
from fsr_core.sources.lerobot.source import SOURCE

DATA = Path(__file__).resolve().parents[2] / "data" / "lerobot"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def _edit_info(root: Path, **changes: object) -> None:
    path = root / "meta" / "info.json"
    info = json.loads(path.read_text())
    info.update(changes)
    path.write_text(json.dumps(info))


def test_a_parquet_cut_by_a_crash_fails_that_episode_only(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v21")
    data = root / "data" / "chunk-000" / "episode_000001.parquet"
    data.write_bytes(data.read_bytes()[:2000])  # no footer
    with pytest.raises(FsrError, match=r"episode_000001\.parquet.*no footer"):
        open_recording(episode_path(root, 1))
    assert open_recording(episode_path(root, 2)).integrity is Integrity.VALID
    report = inspect_recording(root, verify=True)
    assert not report["valid"]
    assert any("episode 1" in p for p in report["verification"]["problems"])


def test_a_missing_video_leaves_its_camera_out_and_says_so(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v21")
    video = root / "videos/chunk-000/observation.images.front/episode_000000.mp4"
    video.unlink()
    entries = SOURCE.episodes(root)
    assert "missing" in entries[0].problem
    assert not entries[1].problem
    model = open_recording(episode_path(root, 0))
    assert model.integrity is Integrity.DEGRADED
    assert "observation.images.front" in model.integrity_reason
    assert [track.name for track in model.cameras] == ["observation.images.wrist"]


def test_rows_that_disagree_with_the_metadata_degrade_the_episode(
    tmp_path: Path,
) -> None:
    root = _copy(tmp_path, "tiny_v21")
    path = root / "meta" / "episodes.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["length"] = 80
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    model = open_recording(episode_path(root, 0))
    assert model.integrity is Integrity.DEGRADED
    assert "8 rows where its metadata says 80" in model.integrity_reason
    problems = inspect_recording(episode_path(root, 0), verify=True)["verification"]
    assert any("metadata says 80" in p for p in problems["problems"])


@pytest.mark.parametrize(
    "template",
    [
        "../../outside/{episode_index}.parquet",
        "/etc/{episode_index}.parquet",
        "data/{episode_index.__class__}.parquet",
        "data/{episode_index:>999999}.parquet",
    ],
)
def test_a_path_template_that_leaves_the_root_is_refused(
    tmp_path: Path, template: str
) -> None:
    root = _copy(tmp_path, "tiny_v21")
    _edit_info(root, data_path=template)
    entries = SOURCE.episodes(root)
    assert all(entry.problem for entry in entries)
    with pytest.raises(FsrError):
        open_recording(episode_path(root, 0))


def test_a_symbolic_link_out_of_the_dataset_is_not_followed(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v21")
    outside = tmp_path / "elsewhere"
    shutil.move(root / "data", outside)
    (root / "data").symlink_to(outside)
    entries = SOURCE.episodes(root)
    assert all("symbolic link" in entry.problem for entry in entries)
    with pytest.raises(FsrError, match="symbolic link"):
        open_recording(episode_path(root, 0))


def test_metadata_over_its_budget_is_refused_before_reading(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v21")
    with (root / "meta" / "episodes.jsonl").open("r+b") as handle:
        handle.truncate(65 << 20)  # sparse: claims 65 MiB
    with pytest.raises(LimitExceededError, match=r"episodes\.jsonl"):
        SOURCE.episodes(root)
    # Inside a folder of recordings the broken dataset stands as itself.
    assert expand_recordings([tmp_path]) == [root]


def test_rows_over_the_memory_budget_are_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _copy(tmp_path, "tiny_v30")
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "1KiB")
    with pytest.raises(FsrError, match=r"parquet rows needs .* budget 1 KiB"):
        open_recording(episode_path(root, 0))


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "[" * 100_000 + "]" * 100_000,
        '{"codebase_version": "v9.0", "fps": 10, "features": {}}',
        '{"codebase_version": "v2.1", "fps": -1, "features": {}}',
        '{"codebase_version": "v2.1", "fps": 10, "features": {"a": '
        '{"dtype": "float32", "shape": [100000]}}, "data_path": "x"}',
    ],
)
def test_a_bad_info_json_is_one_error(tmp_path: Path, text: str) -> None:
    root = _copy(tmp_path, "tiny_v21")
    (root / "meta" / "info.json").write_text(text)
    with pytest.raises(FsrError, match=r"info\.json"):
        SOURCE.episodes(root)


def test_an_episode_the_dataset_does_not_list_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v30")
    with pytest.raises(FsrError, match="no episode 9"):
        open_recording(episode_path(root, 9))


def test_the_viewer_never_writes_into_the_dataset(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tiny_v30")
    before = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*"))
    for address in expand_recordings([root]):
        model = open_recording(address)
        for track in model.cameras:
            track.fetch(0)
    inspect_recording(root, verify=True)
    assert sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*")) == before


def test_a_bad_image_cell_fails_that_frame_only(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = _copy(tmp_path, "tiny_v21")
    path = root / "data" / "chunk-000" / "episode_000000.parquet"
    table = pq.read_table(path)
    images = table.column("observation.images.wrist").to_pylist()
    images[3] = {"bytes": b"not an image", "path": None}
    column = pa.array(images, type=table.schema.field("observation.images.wrist").type)
    index = table.schema.get_field_index("observation.images.wrist")
    pq.write_table(table.set_column(index, "observation.images.wrist", column), path)
    model = open_recording(episode_path(root, 0))
    track = next(t for t in model.cameras if t.name == "observation.images.wrist")
    track.fetch(2)
    with pytest.raises(FsrError, match="neither PNG nor JPEG"):
        track.fetch(3)
