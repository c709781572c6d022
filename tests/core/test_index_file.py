"""Playlist index files: written atomically, read within bounds, digests checked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from fsr_core.errors import (
    DigestMismatchError,
    IndexFileError,
    OpenFailedError,
    TargetExistsError,
)
from fsr_core.playlists import index_file
from fsr_core.playlists.digests import digest_of
from fsr_core.playlists.index_file import (
    INDEX_SCHEMA,
    IndexEntry,
    check_digest,
    indexed_entries,
    looks_like_index,
    read_index,
    write_index,
)
from fsr_core.playlists.pinned import verify_indexed
from fsr_core.sources import expand_recordings


def _entry(folder: Path, relative: str) -> IndexEntry:
    path = folder / relative
    found = digest_of(path)
    return IndexEntry(
        path=path,
        relative=relative,
        size_bytes=found.size_bytes,
        sha256=found.sha256,
        digest_of=found.kind,
        source="fsr",
        valid=True,
        integrity="valid",
        duration_s=1.5,
        facts={"channels": ["q"]},
    )


@pytest.fixture
def takes(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.fsr").write_bytes(b"first take")
    (tmp_path / "sub" / "b.fsr").write_bytes(b"second take, longer")
    return tmp_path


def _write(folder: Path, document: dict[str, Any] | str) -> Path:
    path = folder / "index.json"
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text)
    return path


def _document(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"schema": INDEX_SCHEMA, "recordings": list(entries)}


def _raw(path: str, data: bytes = b"x") -> dict[str, Any]:
    return {
        "path": path,
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def test_an_index_round_trips_with_paths_relative_to_it(takes: Path) -> None:
    index = takes / "takes.json"
    entries = [_entry(takes, "a.fsr"), _entry(takes, "sub/b.fsr")]
    write_index(index, entries, generator="test", created_utc="2025-01-01T00:00:00Z")

    stored = json.loads(index.read_text())
    assert stored["schema"] == "fsr-viewer-index/1"
    assert [entry["path"] for entry in stored["recordings"]] == ["a.fsr", "sub/b.fsr"]
    assert (
        stored["recordings"][1]["sha256"]
        == hashlib.sha256(b"second take, longer").hexdigest()
    )
    assert looks_like_index(index)
    read = read_index(index)
    assert read.generator == "test"
    assert read.entries == tuple(entries)
    assert expand_recordings([index]) == [takes / "a.fsr", takes / "sub" / "b.fsr"]
    assert set(indexed_entries([index, takes / "a.fsr"])) == {
        takes / "a.fsr",
        takes / "sub" / "b.fsr",
    }
    assert sorted(path.name for path in takes.iterdir()) == [
        "a.fsr",
        "sub",
        "takes.json",
    ]


def test_an_existing_file_is_never_overwritten(takes: Path) -> None:
    index = takes / "takes.json"
    index.write_text("mine")
    with pytest.raises(TargetExistsError, match="never overwritten"):
        write_index(index, [_entry(takes, "a.fsr")], generator="t", created_utc="")
    assert index.read_text() == "mine"
    assert sorted(path.name for path in takes.iterdir()) == [
        "a.fsr",
        "sub",
        "takes.json",
    ]


def test_a_changed_recording_fails_its_digest_check(takes: Path) -> None:
    entry = _entry(takes, "a.fsr")
    verify_indexed(entry)
    (takes / "a.fsr").write_bytes(b"first tale")  # same size, other bytes
    with pytest.raises(DigestMismatchError, match="SHA-256"):
        verify_indexed(entry)
    (takes / "a.fsr").write_bytes(b"first take!")
    with pytest.raises(DigestMismatchError, match="11 bytes, the index says 10"):
        check_digest(entry, digest_of(takes / "a.fsr"))
    (takes / "a.fsr").unlink()
    with pytest.raises(OpenFailedError):
        verify_indexed(entry)


def test_a_folder_recording_has_a_tree_digest(takes: Path) -> None:
    before = digest_of(takes / "sub")
    assert before.kind == "folder"
    assert before.size_bytes == len(b"second take, longer")
    (takes / "sub" / "b.fsr").write_bytes(b"second take, LONGER")
    assert digest_of(takes / "sub").sha256 != before.sha256


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ({"schema": "fsr-viewer-index/2", "recordings": []}, "is not supported"),
        ({"schema": "other", "recordings": []}, "not a playlist index"),
        ({"schema": INDEX_SCHEMA, "recordings": {}}, "'recordings' must be a list"),
        (_document(_raw("../outside.fsr")), "entry 1 path '../outside.fsr'"),
        (_document(_raw("/etc/passwd")), "not a plain relative path"),
        (_document(_raw("a.fsr"), _raw("sub/./b.fsr")), "entry 2 path"),
        (_document({**_raw("a.fsr"), "sha256": "beef"}), "64 lowercase hex"),
        (_document({**_raw("a.fsr"), "size_bytes": -1}), "non-negative"),
        (_document({"size_bytes": 1}), "entry 1 has no 'path'"),
    ],
)
def test_a_bad_index_is_refused_with_one_line(
    takes: Path, document: dict[str, Any] | str, problem: str
) -> None:
    index = _write(takes, document)
    with pytest.raises(IndexFileError, match=problem.replace(".", r"\.")) as refused:
        read_index(index)
    assert str(refused.value).startswith(f"{index}: ")
    assert "\n" not in str(refused.value)


def test_a_link_out_of_the_folder_is_refused(takes: Path, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (takes / "elsewhere").symlink_to(outside)
    index = _write(takes, _document(_raw("elsewhere/c.fsr")))
    with pytest.raises(IndexFileError, match="leaves the index's folder"):
        read_index(index)


def test_an_index_over_the_size_budget_is_refused_unread(
    takes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_file, "MAX_INDEX_BYTES", 1 << 10)
    index = _write(takes, _document(*[_raw(f"take_{n}.fsr") for n in range(20)]))
    with pytest.raises(IndexFileError, match="larger than the 1 KiB an index may be"):
        read_index(index)


def test_only_json_files_naming_the_schema_look_like_an_index(takes: Path) -> None:
    assert not looks_like_index(takes / "a.fsr")
    (takes / "other.json").write_text('{"schema": "something else"}')
    assert not looks_like_index(takes / "other.json")
    assert not looks_like_index(takes / "missing.json")
    (takes / "folder.json").mkdir()
    assert not looks_like_index(takes / "folder.json")
