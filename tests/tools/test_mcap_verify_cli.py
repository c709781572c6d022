"""``fsr-viewer inspect --verify`` of a damaged MCAP file exits 1 with one line."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from cli_output import command_output

from app.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "mcap"


def test_a_file_cut_after_data_end_exits_1_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (DATA / "ros2.mcap").read_bytes()
    summary_start = struct.unpack_from("<Q", data, len(data) - 8 - 29 + 9)[0]
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[:summary_start])
    capsys.readouterr()
    assert main(["inspect", "--verify", str(cut)]) == 1
    printed = capsys.readouterr()
    assert "INVALID" in printed.out
    (line,) = printed.err.strip().splitlines()
    assert line.startswith(f"fsr-viewer: {cut}: ")
    assert "Footer" in line


def test_a_sound_file_verifies_with_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    out = command_output(capsys, main, ["inspect", "--verify", str(DATA / "ros2.mcap")])
    assert "valid" in out
