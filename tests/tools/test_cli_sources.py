"""Every command takes every kind of recording: inspect, convert, compare, recover."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_output import assert_mentions, command_output

from app.cli import main
from fsr_core.sources import open_recording
from fsr_core.sources.inspection import COMMON_KEYS

SKELARM_DATA = Path(__file__).resolve().parents[1] / "data" / "skelarm"
REACH = SKELARM_DATA / "reach.sklog.npz"
MULTI = SKELARM_DATA / "multi_target_switch.sklog.npz"
GENESIS_BOX = (
    Path(__file__).resolve().parents[1] / "data" / "genesis" / "v4_box_exact.gstraj"
)


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    lines: list[str] = captured.err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_inspect_prints_a_skelarm_log_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = command_output(capsys, main, ["inspect", str(MULTI)])
    assert out.startswith(f"{MULTI}\n  skelarm state log (skelarm), ")
    assert_mentions(
        out, "status: valid", "ext_force", "active_target", "member_shapes:"
    )


def test_inspect_json_gives_a_skelarm_log_the_shape_of_an_fsr_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = tmp_path / "sample.fsr"
    assert main(["sample", str(sample), "--ticks", "16"]) == 0

    log = json.loads(
        command_output(capsys, main, ["inspect", "--json", "--verify", str(REACH)])
    )
    fsr = json.loads(command_output(capsys, main, ["inspect", "--json", str(sample)]))

    assert set(COMMON_KEYS) <= log.keys()
    assert set(COMMON_KEYS) <= fsr.keys()
    assert (log["source"], fsr["source"]) == ("skelarm", "fsr")
    assert log["path"] == str(REACH)
    assert log["size_bytes"] == REACH.stat().st_size
    assert log["integrity"]["status"] == "integrity not verified"
    assert log["skelarm"]["producer"] == "ComputedTorque"
    assert log["verification"]["checked_records"] == 1001
    q = next(channel for channel in log["channels"] if channel["name"] == "q")
    assert (q["unit"], q["samples"]) == ("rad", 1001)
    assert fsr["profile"] == "structural"  # FSR's own fields stay where they were


def test_inspect_of_a_damaged_log_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.sklog.npz"
    cut.write_bytes(REACH.read_bytes()[: REACH.stat().st_size // 2])

    assert main(["inspect", str(cut)]) == 1

    assert str(cut) in _one_error_line(capsys)


def test_verify_of_a_trajectory_with_a_flipped_description_byte_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fsr_core.sources.genesis.container import index_file

    start = index_file(GENESIS_BOX).description_offset
    data = bytearray(GENESIS_BOX.read_bytes())
    data[start + 3000] ^= 0xFF  # inside scene.json's compressed bytes
    damaged = tmp_path / "flipped.gstraj"
    damaged.write_bytes(bytes(data))

    assert main(["inspect", "--verify", str(GENESIS_BOX)]) == 0
    capsys.readouterr()
    assert main(["inspect", "--verify", str(damaged)]) == 1

    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"fsr-viewer: {damaged}: scene description: member 'scene.json': "
    )
    assert "status: INVALID" in captured.out


def test_convert_writes_a_log_as_fsr_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "take.sklog.npz"
    shutil.copyfile(MULTI, log)

    assert main(["convert", str(log)]) == 0

    output = tmp_path / "take.fsr"
    assert capsys.readouterr().out.startswith(f"{output}: 151 frames, 6 channels (")
    model = open_recording(output)
    assert model.source == "fsr"
    assert model.channels.keys() == open_recording(log).channels.keys()
    assert main(["compare", str(log), str(output)]) == 0


def test_convert_refuses_an_fsr_file_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = tmp_path / "sample.fsr"
    assert main(["sample", str(sample), "--ticks", "16"]) == 0
    before = sample.read_bytes()
    capsys.readouterr()

    assert main(["convert", str(sample), "-o", str(tmp_path / "copy.fsr")]) == 1

    line = _one_error_line(capsys)
    assert str(sample) in line
    assert "already an FSR recording" in line
    assert sample.read_bytes() == before
    assert not (tmp_path / "copy.fsr").exists()


def test_recover_refuses_a_skelarm_log_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "saved.fsr"

    assert main(["recover", str(REACH), str(output)]) == 1

    line = _one_error_line(capsys)
    assert str(REACH) in line
    assert "FSR files only" in line
    assert not output.exists()


@pytest.mark.parametrize(
    "content",
    [np.random.default_rng(3).bytes(256), b"\x89PNG\r\n\x1a\n" + bytes(64)],
    ids=["random-bytes", "png"],
)
@pytest.mark.parametrize("command", ["inspect", "convert", "compare"])
def test_an_unknown_file_is_one_line_naming_it_and_the_known_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, command: str
) -> None:
    path = tmp_path / "picture.png"
    path.write_bytes(content)
    argv = [command, str(path)] + ([str(REACH)] if command == "compare" else [])

    code = main(argv)

    assert code == (2 if command == "compare" else 1)  # compare: 2 is bad input
    line = _one_error_line(capsys)
    assert str(path) in line
    assert "fsr (FSR recording: *.fsr)" in line
    assert "skelarm (skelarm state log: *.sklog.npz, *.npz)" in line


@pytest.mark.timeout(20)  # a blocking open of the FIFO would hang here
def test_inspect_refuses_a_fifo_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "take.sklog.npz"
    os.mkfifo(fifo)

    assert main(["inspect", str(fifo)]) == 1

    line = _one_error_line(capsys)
    assert f"{fifo}: not a regular file but a fifo" in line


def test_inspect_of_an_mcap_prints_each_cameras_calibration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ros2 = Path(__file__).resolve().parents[1] / "data" / "mcap" / "ros2.mcap"
    out = command_output(capsys, main, ["inspect", str(ros2)])
    assert_mentions(
        out,
        "  /fisheye/image_raw: 3 frames\n    from 0.296 s: 64x64 equidistant "
        "fx=22.60 fy=22.60 cx=31.50 cy=31.50 D=[-0.0125, 0.0031, -0.0019, 0.0004]",
    )
