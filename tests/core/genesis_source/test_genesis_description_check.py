"""``inspect --verify`` checks the scene description a trajectory embeds."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from genesis_data import DATA

from fsr_core.sources import inspect_recording
from fsr_core.sources.genesis.container import index_file
from fsr_core.sources.genesis.description_check import description_problems
from fsr_core.sources.genesis.scene_names import description_bytes

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_CRC_IN_LOCAL_HEADER = 14
_CRC_IN_DIRECTORY_ENTRY = 16
_DATA_DAMAGE = "fail their CRC-32 check|compressed bytes do not decompress"


def _description(name: str) -> tuple[bytes, int]:
    """Return the description of a test file and where it starts in the file."""
    index = index_file(DATA / name)
    return description_bytes(index), index.description_offset


def _data_middle(archive: bytes, member: str) -> int:
    """Return the offset of the middle byte of ``member``'s stored data."""
    info = zipfile.ZipFile(io.BytesIO(archive)).getinfo(member)
    header = _LOCAL_HEADER.unpack_from(archive, info.header_offset)
    start = info.header_offset + _LOCAL_HEADER.size + header[9] + header[10]
    return start + info.compress_size // 2


def _flipped(path: Path, tmp_path: Path, offset: int) -> Path:
    """Write a copy of ``path`` with every bit of the byte at ``offset`` inverted."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    copy = tmp_path / f"flipped_{offset}_{path.name}"
    copy.write_bytes(bytes(data))
    return copy


@pytest.mark.parametrize(
    "name",
    [
        "v4_box_exact.gstraj",
        "v4_arm_exact.gstraj",
        "v4_batch_exact.gstraj",
        "v1_box_exact.gstraj",
        "v4_box_checkpoint.gstraj",
    ],
)
def test_every_member_of_an_intact_description_checks_out(name: str) -> None:
    blob, _ = _description(name)
    arrays = zipfile.ZipFile(io.BytesIO(blob)).read("arrays.npz")
    inner = len(zipfile.ZipFile(io.BytesIO(arrays)).infolist())

    check = description_problems(blob)

    assert check.problems == []
    assert check.members == 2 + inner


def _local_crc(blob: bytes, member: str) -> int:
    info = zipfile.ZipFile(io.BytesIO(blob)).getinfo(member)
    return info.header_offset + _CRC_IN_LOCAL_HEADER


def _directory_crc(blob: bytes, member: str) -> int:
    archive = zipfile.ZipFile(io.BytesIO(blob))
    start = archive.start_dir
    for info in archive.infolist():
        if info.filename == member:
            return start + _CRC_IN_DIRECTORY_ENTRY
        start += 46 + len(info.filename.encode()) + len(info.extra) + len(info.comment)
    raise AssertionError(member)


@pytest.mark.parametrize(
    ("member", "where", "problem"),
    [
        ("scene.json", _data_middle, _DATA_DAMAGE),
        ("arrays.npz", _data_middle, _DATA_DAMAGE),
        ("arrays.npz", _local_crc, "local header's CRC-32 differs"),
        ("scene.json", _directory_crc, "local header's CRC-32 differs"),
    ],
)
def test_a_flipped_byte_of_the_description_makes_verify_fail_naming_the_member(
    member: str, where: Callable[[bytes, str], int], problem: str, tmp_path: Path
) -> None:
    path = DATA / "v4_box_exact.gstraj"
    blob, start = _description(path.name)
    damaged = _flipped(path, tmp_path, start + where(blob, member))

    report = inspect_recording(damaged, verify=True)
    plain = inspect_recording(damaged)  # the frames still open and play

    assert report["valid"] is False
    assert report["integrity"]["status"] == "invalid"
    first = report["verification"]["problems"][0]
    assert first.startswith(f"scene description: member '{member}': ")
    assert re.search(problem, first), first
    assert report["integrity"]["reason"] == first
    assert plain["valid"] is True
    assert inspect_recording(path, verify=True)["valid"] is True


def test_a_flipped_byte_inside_arrays_npz_names_the_array_member() -> None:
    blob, _ = _description("v4_arm_exact.gstraj")
    arrays = zipfile.ZipFile(io.BytesIO(blob)).read("arrays.npz")
    inner = zipfile.ZipFile(io.BytesIO(arrays))
    member = max(inner.infolist(), key=lambda info: info.compress_size).filename
    damaged = bytearray(arrays)
    damaged[_data_middle(arrays, member)] ^= 0xFF
    rebuilt = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(blob)) as outer,
        zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as copy,
    ):
        copy.writestr("scene.json", outer.read("scene.json"))
        copy.writestr("arrays.npz", bytes(damaged))

    check = description_problems(rebuilt.getvalue())

    assert len(check.problems) == 1
    assert check.problems[0].startswith(
        f"scene description: arrays.npz: member '{member}': "
    )


def test_a_description_that_is_no_zip_is_one_problem() -> None:
    blob, _ = _description("v4_box_exact.gstraj")

    check = description_problems(blob[: len(blob) // 2])

    assert len(check.problems) == 1
    assert check.problems[0].startswith("scene description: not a readable zip")
