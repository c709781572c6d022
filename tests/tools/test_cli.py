"""The ``fsr-viewer`` command line: inspect, recover, sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_output import assert_mentions, command_output
from inspection_reports import LIFECYCLE_WITH_A_RESET, lifecycle_events

from app.cli import main
from fsr_core import FsrReader


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    path = tmp_path / "sample.fsr"
    assert main(["sample", str(path), "--ticks", "40"]) == 0
    return path


def test_sample_writes_a_recording_that_inspect_calls_valid(
    sample_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = command_output(capsys, main, ["inspect", str(sample_file)])
    assert_mentions(
        out,
        "status: valid",
        "observations.robot.joints",
        "calibration epochs:",
        "terminal cut: gen 1 tick 39",
    )


def test_inspect_json_reports_streams_epochs_lifecycle_and_gaps(
    sample_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(
        command_output(
            capsys, main, ["inspect", "--json", "--verify", str(sample_file)]
        )
    )
    assert report["valid"] is True
    assert report["profile"] == "structural"
    assert report["verification"]["payloads_digest_verified"] is False
    streams = {s["name"]: s for s in report["streams"]}
    assert streams["observations.robot.joints"]["records"] == 80
    assert streams["observations.robot.joints"]["rate_hz"] == pytest.approx(120.0)
    assert len(report["calibration_epochs"]) == 4
    assert lifecycle_events(report) == LIFECYCLE_WITH_A_RESET
    assert report["gaps"][0]["stream"] == "observations.diagnostics"
    assert report["degraded"] is True


def test_inspect_verify_on_strong_file_says_digests_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "strong.fsr"
    main(["sample", str(path), "--ticks", "16", "--integrity", "strong"])
    report = json.loads(
        command_output(capsys, main, ["inspect", "--json", "--verify", str(path)])
    )
    assert report["version"] == "1.0"
    assert report["verification"]["payloads_digest_verified"] is True


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"\x89PNG\r\n\x1a\n" + bytes(40), "PNG image"),
        (b"hello world, not a recording", "no FSR magic"),
    ],
)
def test_inspect_refuses_bad_files_with_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, reason: str
) -> None:
    path = tmp_path / "bad.fsr"
    path.write_bytes(content)
    code = main(["inspect", str(path)])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert str(path) in lines[0]
    assert reason in lines[0]
    assert "Traceback" not in captured.err


def test_inspect_refuses_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "x.fsr"
    folder.mkdir()
    assert main(["inspect", str(folder)]) == 1
    assert "a folder, and no source reads it" in capsys.readouterr().err


def test_inspect_on_truncated_file_points_at_recover(
    sample_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.fsr"
    cut.write_bytes(sample_file.read_bytes()[: sample_file.stat().st_size * 2 // 3])
    capsys.readouterr()
    assert main(["inspect", str(cut)]) == 1
    err = capsys.readouterr().err
    assert "writer did not finish" in err
    assert "fsr-viewer recover" in err


def test_recover_writes_a_sealed_copy_marked_recovered(
    sample_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.fsr"
    cut.write_bytes(sample_file.read_bytes()[: sample_file.stat().st_size // 2])
    out = tmp_path / "saved.fsr"
    capsys.readouterr()
    assert main(["recover", str(cut), str(out)]) == 0
    assert "damaged source" in capsys.readouterr().out
    with FsrReader.open(out) as reader:
        assert reader.footer is not None
        assert reader.footer.recovered is not None
        assert reader.footer.degraded is True
        assert reader.record_count == reader.footer.recovered["records_kept"] > 0
        assert reader.verify() == []


def test_recover_never_overwrites_an_existing_output(
    sample_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "exists.fsr"
    out.write_bytes(b"keep me")
    assert main(["recover", str(sample_file), str(out)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert out.read_bytes() == b"keep me"


def test_usage_error_exits_2() -> None:
    with pytest.raises(SystemExit) as info:
        main(["inspect"])
    assert info.value.code == 2
