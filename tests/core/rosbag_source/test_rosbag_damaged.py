"""Damaged ROS bags recover what they hold or fail closed with one line.

A bag whose writer was killed (no index), a bag cut short, flipped bits,
chunk headers that claim more than the memory budget, a definition that does
not parse, and ``rosbags`` missing. The bags are the real writers' (see
``test_rosbag_real_files.py``), damaged here.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from data_paths import ROSBAG1_DATA, ROSBAG2_DATA

from fsr_core.errors import (
    FsrError,
    LimitExceededError,
    SourceUnavailableError,
    TruncatedFileError,
)
from fsr_core.recording import Integrity, MarkerKind, RecordingModel
from fsr_core.sources import inspect_recording, open_recording, source_named

_SIZE_FIELD = b"\x09\x00\x00\x00size="
"""A chunk header's ``size`` field: its length (9), name and ``=``."""


def _copy(source: Path, target: Path, keep_bytes: int | None = None) -> Path:
    data = source.read_bytes()
    target.write_bytes(data if keep_bytes is None else data[:keep_bytes])
    return target


def _joint_values(model: RecordingModel) -> np.ndarray:
    return np.asarray(model.channels["/joint_states"].values)


def _one_line_naming(error: FsrError, path: Path) -> None:
    text = str(error)
    assert "\n" not in text
    assert path.name in text


def test_a_killed_recording_opens_by_a_scan_of_its_chunks() -> None:
    model = open_recording(ROSBAG1_DATA / "killed.bag")
    whole = open_recording(ROSBAG1_DATA / "none.bag")

    assert model.integrity is Integrity.RECOVERED
    assert "no index: scanned" in model.integrity_reason
    assert model.report["index"] == "no index: scanned"
    written = 250  # tools/make_rosbag_data.py: KILL_AFTER
    assert 0 < model.report["messages"] <= written
    assert model.report["scan"]["chunks"] >= 2
    values = _joint_values(model)
    np.testing.assert_array_equal(values, _joint_values(whole)[: len(values)])
    assert len(model.cameras) == 2
    frame, calibration = model.cameras[0].fetch(0)
    assert frame.pixels.shape == (24, 32, 3)
    assert calibration is not None


@pytest.mark.parametrize(
    ("share", "loses_messages"),
    [(0.5, True), (0.8, True), (0.97, False)],  # 0.97: inside the index
)
def test_a_cut_bag_opens_up_to_its_last_complete_chunk(
    tmp_path: Path, share: float, loses_messages: bool
) -> None:
    source = ROSBAG1_DATA / "small_chunks_lz4.bag"
    keep = int(source.stat().st_size * share)
    cut = _copy(source, tmp_path / "cut.bag", keep)

    model = open_recording(cut)

    assert model.integrity is Integrity.RECOVERED
    assert "scanned" in model.integrity_reason
    assert "cut at byte" in model.integrity_reason
    assert any(marker.kind is MarkerKind.TERMINAL_CUT for marker in model.markers)
    values = _joint_values(model)
    whole = _joint_values(open_recording(source))
    assert 0 < len(values) <= len(whole)
    assert (len(values) < len(whole)) == loses_messages
    np.testing.assert_array_equal(values, whole[: len(values)])
    report = inspect_recording(cut, verify=True)
    assert report["verification"]["problem_count"] >= 1
    assert "cut at byte" in report["verification"]["problems"][0]


def test_a_bag_cut_before_its_first_message_fails_closed(tmp_path: Path) -> None:
    cut = _copy(ROSBAG1_DATA / "none.bag", tmp_path / "stub.bag", 5000)

    with pytest.raises(TruncatedFileError) as caught:
        open_recording(cut)

    assert "no message readable" in str(caught.value)
    _one_line_naming(caught.value, cut)


def _claim(data: bytes, claimed: int, which: int = 0) -> bytes:
    """Return ``data`` with chunk ``which``'s header claiming ``claimed`` bytes."""
    at = -1
    for _ in range(which + 1):
        at = data.index(_SIZE_FIELD, at + 1)
    start = at + len(_SIZE_FIELD)
    return data[:start] + struct.pack("<I", claimed) + data[start + 4 :]


def _refusal_of_claim(
    folder: Path, name: str, claimed: int, refusal: type[FsrError]
) -> str:
    """Open bag ``name`` with its first chunk claiming ``claimed`` bytes.

    The open must fail with ``refusal``, in one line naming the bag; return it.
    """
    bag = folder / name
    bag.write_bytes(_claim((ROSBAG1_DATA / name).read_bytes(), claimed))

    with pytest.raises(refusal) as caught:
        open_recording(bag)

    _one_line_naming(caught.value, bag)
    return str(caught.value)


@pytest.mark.parametrize("name", ["none.bag", "killed.bag", "bz2.bag"])
def test_a_chunk_claiming_gigabytes_is_refused_before_it_is_read(
    tmp_path: Path, name: str
) -> None:
    text = _refusal_of_claim(tmp_path, name, 0xF000_0000, LimitExceededError)

    assert "chunk at byte" in text
    assert "FSR_VIEWER_MEMORY_BUDGET" in text


@pytest.mark.parametrize("name", ["bz2.bag", "lz4.bag"])
def test_a_stream_inflating_past_its_claim_stops_there(
    tmp_path: Path, name: str
) -> None:
    text = _refusal_of_claim(tmp_path, name, 100, TruncatedFileError)

    assert "decompress to more than" in text


def _opens_or_fails_closed(path: Path) -> RecordingModel | None:
    try:
        model = open_recording(path)
    except FsrError as error:
        _one_line_naming(error, path)
        return None
    for track in model.cameras:
        for index in range(track.count or 0):
            with contextlib.suppress(FsrError):  # a damaged frame: one line
                track.fetch(index)
    for channel in model.channels.values():
        try:  # a lazy channel reads its topic now: damage shows as one line
            channel.values  # noqa: B018
        except FsrError as error:
            _one_line_naming(error, path)
    return model


@pytest.mark.parametrize("name", ["lz4.bag", "bz2.bag", "none.bag"])
def test_flipped_bits_in_a_ros1_bag_never_escape_as_other_errors(
    tmp_path: Path, name: str
) -> None:
    data = (ROSBAG1_DATA / name).read_bytes()
    chosen = random.Random(name)
    bag = tmp_path / name
    recovered = 0
    for _ in range(25):
        flipped = bytearray(data)
        at = chosen.randrange(len(flipped))
        flipped[at] ^= 1 << chosen.randrange(8)
        bag.write_bytes(bytes(flipped))
        model = _opens_or_fails_closed(bag)
        recovered += model is not None
    assert recovered > 0


def test_flipped_bits_in_a_sqlite_bag_never_escape_as_other_errors(
    tmp_path: Path,
) -> None:
    data = (ROSBAG2_DATA / "bare.db3").read_bytes()
    chosen = random.Random(7)
    bag = tmp_path / "bare.db3"
    for _ in range(25):
        flipped = bytearray(data)
        at = chosen.randrange(len(flipped))
        flipped[at] ^= 1 << chosen.randrange(8)
        bag.write_bytes(bytes(flipped))
        _opens_or_fails_closed(bag)


def test_a_cut_sqlite_file_fails_closed_or_opens(tmp_path: Path) -> None:
    source = ROSBAG2_DATA / "plain" / "plain.db3"
    for keep in (100, 4096, source.stat().st_size // 2):
        bag = _copy(source, tmp_path / f"cut_{keep}.db3", keep)
        _opens_or_fails_closed(bag)
    folder = tmp_path / "plain"
    shutil.copytree(ROSBAG2_DATA / "plain", folder)
    (folder / "plain.db3").unlink()
    with pytest.raises(FsrError) as caught:
        open_recording(folder)
    _one_line_naming(caught.value, folder)


def test_a_definition_that_does_not_parse_is_listed_and_the_rest_reads() -> None:
    path = ROSBAG1_DATA / "broken_definition.bag"
    model = open_recording(path)

    assert model.integrity is Integrity.DEGRADED
    assert {"/joint_states", "/odom_speed", "/tf:base_link"} <= set(model.channels)
    assert "/broken" not in model.channels
    listed = [t for t in model.report["topics"] if t["topic"] == "/broken"]
    assert listed
    assert "definition does not parse" in listed[0]["unreadable"]
    report = inspect_recording(path, verify=True)
    assert any("/broken" in problem for problem in report["verification"]["problems"])


def test_a_missing_rosbags_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name == "rosbags" or name.startswith("rosbags."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "rosbags", None)

    reason = source_named("rosbag1").unavailable_reason()  # type: ignore[union-attr]
    assert reason is not None
    assert "fsr-viewer[rosbag]" in reason
    with pytest.raises(SourceUnavailableError, match=r"fsr-viewer\[rosbag\]"):
        open_recording(ROSBAG2_DATA / "plain")


def test_a_zstd_message_is_checked_against_the_budget_before_it_inflates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = ROSBAG2_DATA / "zstd_message"
    whole = open_recording(path)
    assert whole.cameras[0].fetch(0)[0].pixels.shape == (24, 32, 3)

    # Each 32x24 image message inflates to about 2.3 KiB, its frame says so.
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "2000")
    with pytest.raises(LimitExceededError) as caught:
        open_recording(path)

    assert "a message of '/camera/image_raw" in str(caught.value)
    _one_line_naming(caught.value, path)


def _compressed_per_file(tmp_path: Path, data: bytes | None = None) -> Path:
    folder = tmp_path / "zstd_file"
    shutil.copytree(ROSBAG2_DATA / "zstd_file", folder)
    if data is not None:
        (folder / "zstd_file.db3.zstd").write_bytes(data)
    return folder


def test_a_bag_compressed_per_file_inflates_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rosbags writer's frame states no size: the stream stops at the budget.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    path = ROSBAG2_DATA / "zstd_file"
    assert open_recording(path).channels["/joint_states"].count == 100
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "64KiB")
    with pytest.raises(LimitExceededError) as caught:
        open_recording(path)
    assert "stopped in 'zstd_file.db3.zstd'" in str(caught.value)
    _one_line_naming(caught.value, path)
    assert not list(scratch.iterdir())  # the inflated copy is gone


def test_a_file_whose_frame_claims_too_much_is_refused_before_inflating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fsr_core.sources.rosbag.chunk_limits import zstd_module

    zstd = zstd_module()
    inflated = zstd.decompress(
        (ROSBAG2_DATA / "zstd_file" / "zstd_file.db3.zstd").read_bytes()
    )
    # The same database as rosbag2's own writer compresses it: size stated.
    folder = _compressed_per_file(tmp_path, zstd.compress(inflated))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert open_recording(folder).channels["/joint_states"].count == 100
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "64KiB")
    with pytest.raises(LimitExceededError) as caught:
        open_recording(folder)
    assert "as their zstd frames state" in str(caught.value)
    assert "84 KiB" in str(caught.value)
    assert not list(scratch.iterdir())  # refused before a byte was written


def test_a_cut_or_flipped_file_compressed_bag_fails_closed_or_opens(
    tmp_path: Path,
) -> None:
    data = (ROSBAG2_DATA / "zstd_file" / "zstd_file.db3.zstd").read_bytes()
    for keep in (10, len(data) // 2, len(data) - 1):
        folder = _compressed_per_file(tmp_path / f"cut_{keep}", data[:keep])
        with pytest.raises(FsrError) as caught:
            open_recording(folder)
        _one_line_naming(caught.value, folder)
    chosen = random.Random(11)
    for round_ in range(8):
        flipped = bytearray(data)
        at = chosen.randrange(len(flipped))
        flipped[at] ^= 1 << chosen.randrange(8)
        _opens_or_fails_closed(
            _compressed_per_file(tmp_path / f"flip_{round_}", bytes(flipped))
        )
