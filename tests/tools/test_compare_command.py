"""The ``fsr-viewer compare`` command: table, JSON, exit codes, bad input."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.cli import main
from app.compare_commands import add_parsers, run_compare
from fsr_core.adapters.planar_arm.demos import _take_documents
from fsr_core.adapters.planar_arm.recorder import ExternalPush, record_run
from fsr_core.adapters.planar_arm.scenario import Scenario
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.writer import FsrWriter


def compare(argv: Sequence[str]) -> int:
    """Run ``fsr-viewer compare ARGV`` through a parser built from add_parsers."""
    parser = argparse.ArgumentParser(prog="fsr-viewer")
    parser.add_argument("--verbose", action="store_true")
    add_parsers(parser.add_subparsers(dest="command", required=True))
    return run_compare(parser.parse_args(["compare", *argv]))


def pushed_scenario() -> Scenario:
    document = _take_documents()["05_pushed"]
    document.update(duration_s=0.5, cameras=[])
    return Scenario.from_json(document)


@pytest.fixture(scope="module")
def takes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Record a short pushed take (pushed at 0.2-0.35 s) and the same take unpushed."""
    folder = tmp_path_factory.mktemp("compare_takes")
    push = ExternalPush(0.2, 0.35, (-18.0, 6.0))
    record_run(pushed_scenario(), folder / "pushed.fsr", external_pushes=(push,))
    record_run(pushed_scenario(), folder / "plain.fsr")
    return {"pushed": folder / "pushed.fsr", "plain": folder / "plain.fsr"}


def test_a_take_simulated_again_from_its_toml_compares_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = pushed_scenario()
    record_run(scenario, tmp_path / "take.fsr")
    toml = tmp_path / "take.toml"
    toml.write_text(scenario.to_toml(), encoding="utf-8")
    assert main(["simulate", str(toml), "-o", str(tmp_path / "again.fsr")]) == 0
    capsys.readouterr()

    code = compare([str(tmp_path / "take.fsr"), str(tmp_path / "again.fsr")])

    out = capsys.readouterr().out
    assert code == 0
    assert "EXACT: every channel is bit-for-bit identical" in out
    assert out.count(" exact\n") + out.endswith(" exact") >= 4


def test_diverging_takes_print_the_table_and_the_first_divergence_and_exit_1(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = compare([str(takes["pushed"]), str(takes["plain"])])
    out = capsys.readouterr().out
    assert code == 1
    header = next(line for line in out.splitlines() if line.startswith("channel"))
    assert header.split() == [
        *("channel", "unit", "samples", "max", "error", "RMS", "error"),
        *("first", "exceeds", "worst", "column", "verdict"),
    ]
    ext_force = next(line for line in out.splitlines() if line.startswith("ext_force"))
    assert ext_force.split() == [
        *("ext_force", "-", "250", "18", "7.35", "0.2", "s", "ext_fx", "diverges"),
    ]
    assert out.rstrip().endswith(
        "DIVERGES: first in observations.arm (ext_fx) at 0.2 s, error 18 > tolerance 0"
    )


def test_json_output_has_the_documented_keys(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = compare(["--json", str(takes["pushed"]), str(takes["plain"])])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["within_tolerance"] is False
    assert report["exact"] is False
    assert report["first_divergence"] == {
        "channel": "observations.arm",
        "column": "ext_fx",
        "time_s": pytest.approx(0.2),
        "error": 18.0,
        "kind": "channel",
    }
    assert report["reference"]["path"] == str(takes["pushed"])
    assert report["candidate"]["path"] == str(takes["plain"])
    channel = {c["name"]: c for c in report["channels"]}["q"]
    assert set(channel) == {
        *("name", "unit", "candidate_unit", "columns", "candidate_columns"),
        *("status", "reference_samples"),
        *("candidate_samples", "samples_compared", "max_abs_error", "rms_error"),
        *("worst_column", "first_exceed_s", "first_exceed_column", "exact"),
        "within_tolerance",
    }
    assert channel["unit"] == "rad"
    assert channel["columns"] == ["q0", "q1", "q2"]


def test_a_tolerance_above_every_error_passes_with_exit_0(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = compare(["--tolerance", "100", str(takes["pushed"]), str(takes["plain"])])
    out = capsys.readouterr().out
    assert code == 0
    assert "WITHIN TOLERANCE 100: largest error 18" in out


def test_only_the_named_channels_are_compared(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = compare(
        ["--channels", "active_target", str(takes["pushed"]), str(takes["plain"])]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "observations.arm" not in out
    assert "active_target" in out


@pytest.mark.parametrize("problem", ["missing", "not_a_recording"])
def test_an_unreadable_file_exits_2_with_its_name_and_no_traceback(
    tmp_path: Path,
    takes: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    problem: str,
) -> None:
    bad = tmp_path / "bad.fsr"
    if problem == "not_a_recording":
        bad.write_bytes(b"this is not a recording at all\n")
    code = compare([str(takes["plain"]), str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert str(bad) in err
    assert "Traceback" not in err


def test_recordings_without_a_common_channel_exit_2_naming_both_files(
    tmp_path: Path, takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.fsr"
    with FsrWriter(other, [numeric_stream("wheel", ("speed",), "m/s")]) as writer:
        for tick in range(5):
            writer.write("wheel", [tick], tick=tick, sim_time_s=tick * 0.01)
    code = compare([str(takes["plain"]), str(other)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"cannot compare {takes['plain']} with {other}: no channel in common" in err


def test_an_unknown_channel_exits_2(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = compare(["--channels", "q,wrist", str(takes["plain"]), str(takes["plain"])])
    assert code == 2
    assert "no channel named wrist in either recording" in capsys.readouterr().err


@pytest.mark.parametrize(
    "options", [["--tolerance", "-1"], ["--tolerance", "nan"], ["--channels", ","]]
)
def test_bad_options_are_usage_errors(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        compare([*options, str(takes["plain"]), str(takes["plain"])])
    assert exited.value.code == 2
    assert "expected" in capsys.readouterr().err
