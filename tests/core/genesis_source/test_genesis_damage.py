"""Damaged trajectories: the frames Genesis kept, or a closed failure; hostile bytes."""

from __future__ import annotations

import json
import random
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from genesis_data import DATA, damaged, expected, make_damaged

from fsr_core.errors import FsrError, LimitExceededError, UnsupportedVersionError
from fsr_core.recording import Integrity, MarkerKind
from fsr_core.sources.genesis.container import index_file
from fsr_core.sources.genesis.frames import FrameDecoder
from fsr_core.sources.genesis.recording_model import load_genesis

_CUT = re.compile(r"^cut at byte (\d+) after frame (\d+): .+")


@pytest.mark.parametrize("name", damaged())
def test_damaged_copy_keeps_what_genesis_kept(name: str, tmp_path: Path) -> None:
    entry = expected()[name]
    path = make_damaged(name, tmp_path)
    if "error" in entry:
        with pytest.raises(FsrError) as caught:
            load_genesis(path)
        assert path.name in str(caught.value)
        if entry["damage"]["kind"] == "version_9":
            assert isinstance(caught.value, UnsupportedVersionError)
            assert "'9'" in str(caught.value)
            assert "GSTRAJ4" in str(caught.value)
        return
    model = load_genesis(path)
    index = index_file(path)
    assert index.n_frames == entry["n_frames"]
    assert (index.last is not None) == entry["has_last"]
    assert [c.first_frame + c.frame_count for c in index.chunks] == entry[
        "chunk_frame_ends"
    ]
    assert [info.first_frame for info in index.infos] == entry["info_frames"]
    assert model.integrity is Integrity.RECOVERED
    match = _CUT.match(model.integrity_reason)
    assert match is not None, model.integrity_reason
    assert int(match.group(2)) == entry["n_frames"] - 1
    assert int(match.group(1)) <= entry["size"]
    assert model.markers[-1].kind is MarkerKind.TERMINAL_CUT
    ours = FrameDecoder(index)
    whole = FrameDecoder(index_file(DATA / entry["source"]))
    for frame in range(index.n_frames):
        kept, source = ours.frame(frame), whole.frame(frame)
        assert kept.keys() == source.keys()
        for key, array in kept.items():
            assert array.tobytes() == source[key].tobytes(), (frame, key)
    steps = model.channels["Simulator.time"].values
    assert len(steps) == entry["n_frames"]


def _damages(data: bytes, count: int, seed: int) -> list[bytes]:
    chooser = random.Random(seed)
    found = []
    for _ in range(count // 2):
        found.append(data[: chooser.randrange(len(data))])
    for _ in range(count - count // 2):
        flipped = bytearray(data)
        for _ in range(chooser.randint(1, 3)):
            flipped[chooser.randrange(len(data))] ^= 1 << chooser.randrange(8)
        found.append(bytes(flipped))
    return found


@pytest.mark.parametrize(
    ("name", "seed"), [("v4_box_minimal.gstraj", 4), ("v1_box_compressed.gstraj", 1)]
)
def test_random_cuts_and_flips_open_or_fail_closed(
    name: str, seed: int, tmp_path: Path
) -> None:
    data = (DATA / name).read_bytes()
    manifest_end = 16 + struct.unpack("<Q", data[8:16])[0]
    opened = refused = 0
    for number, damaged_bytes in enumerate(_damages(data, 120, seed)):
        path = tmp_path / f"d{number}.gstraj"
        path.write_bytes(damaged_bytes)
        try:
            model = load_genesis(path)
        except FsrError:
            refused += 1
            continue
        opened += 1
        assert model.channels
        if model.integrity is Integrity.RECOVERED:
            assert _CUT.match(model.integrity_reason) or "before any" in (
                model.integrity_reason
            )
    assert opened
    assert refused
    assert manifest_end < len(data)


def _rewrite_manifest(source: Path, target: Path, change: object) -> Path:
    data = source.read_bytes()
    length = struct.unpack("<Q", data[8:16])[0]
    manifest = json.loads(data[16 : 16 + length])
    change(manifest)  # type: ignore[operator]
    text = json.dumps(manifest).encode()
    target.write_bytes(
        data[:8] + struct.pack("<Q", len(text)) + text + data[16 + length :]
    )
    return target


def test_huge_field_shape_is_refused_before_allocating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "4MiB")

    def grow(manifest: dict) -> None:  # type: ignore[type-arg]
        row = manifest["fields"][3]
        row[2] = [1 << 20, 1 << 10]
        row[5] = (1 << 30) * 4

    path = _rewrite_manifest(
        DATA / "v4_box_exact.gstraj", tmp_path / "big.gstraj", grow
    )
    with pytest.raises(LimitExceededError, match="FSR_VIEWER_MEMORY_BUDGET"):
        load_genesis(path)


def test_huge_frame_size_is_refused_before_allocating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "1MiB")

    def grow(manifest: dict) -> None:  # type: ignore[type-arg]
        manifest["frame_size"] = 2048 << 20

    path = _rewrite_manifest(
        DATA / "v4_box_exact.gstraj", tmp_path / "big.gstraj", grow
    )
    with pytest.raises(LimitExceededError, match="FSR_VIEWER_MEMORY_BUDGET") as caught:
        load_genesis(path)
    assert "big.gstraj" in str(caught.value)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda m: m["fields"][2].__setitem__(1, "MYSTERY"), "unknown kind 'MYSTERY'"),
        (lambda m: m["fields"][2].__setitem__(3, ">f4"), "unknown dtype '>f4'"),
        (lambda m: m["fields"][3].__setitem__(4, 0), "overlaps"),
        (lambda m: m.pop("dt"), "'dt'"),
        (lambda m: m.__setitem__("fields", 7), "'fields'"),
    ],
)
def test_bad_manifest_is_refused_naming_the_file(
    change: object, words: str, tmp_path: Path
) -> None:
    path = _rewrite_manifest(
        DATA / "v4_box_exact.gstraj", tmp_path / "bad.gstraj", change
    )
    with pytest.raises(FsrError, match=re.escape(words)) as caught:
        load_genesis(path)
    assert "bad.gstraj" in str(caught.value)


def test_zero_length_fields_and_padding_are_legal() -> None:
    index = index_file(DATA / "v4_box_exact.gstraj")
    empty = [f for f in index.manifest.fields if f.nbytes == 0]
    assert empty
    assert sum(f.nbytes for f in index.manifest.fields) < index.manifest.frame_size
    assert np.isfinite(load_genesis(DATA / "v4_box_exact.gstraj").duration_s)


def test_a_chunk_is_never_decompressed_past_what_it_can_hold() -> None:
    import zstandard

    from fsr_core.errors import DecodeError as ChunkError
    from fsr_core.sources.genesis.frames import _zstd_bounded

    data = bytes(range(256)) * 64
    sized = zstandard.ZstdCompressor().compress(data)
    unsized = zstandard.ZstdCompressor(write_content_size=False).compress(data)
    assert _zstd_bounded(sized, len(data), "chunk") == data
    assert _zstd_bounded(unsized, len(data), "chunk") == data
    # A header claiming more than the bound is refused before anything is made.
    with pytest.raises(ChunkError, match="claims 16384 bytes, more than 16383"):
        _zstd_bounded(sized, len(data) - 1, "chunk")
    with pytest.raises(ChunkError, match="does not decompress"):
        _zstd_bounded(unsized, len(data) - 1, "chunk")
