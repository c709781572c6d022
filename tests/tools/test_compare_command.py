"""The ``fsr-viewer compare`` command: table, JSON, exit codes, bad input."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from cli_output import command_output

from app.cli import main, request_from
from app.headless.compare_commands import CompareRequest, add_parsers, run_compare
from fsr_core.calibration import CalibrationProfile
from fsr_core.format.catalog import camera_streams, numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.media import RGBFrame
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario


def compare(argv: Sequence[str]) -> int:
    """Run ``fsr-viewer compare ARGV`` through a parser built from add_parsers."""
    parser = argparse.ArgumentParser(prog="fsr-viewer")
    parser.add_argument("--verbose", action="store_true")
    add_parsers(parser.add_subparsers(dest="command", required=True))
    request = request_from(parser.parse_args(["compare", *argv]))
    assert isinstance(request, CompareRequest)
    return run_compare(request)


def compare_output(
    capsys: pytest.CaptureFixture[str], *argv: str | Path, code: int = 0
) -> str:
    """Run ``fsr-viewer compare ARGV``, assert it exits with ``code``; return stdout."""
    return command_output(capsys, compare, [str(arg) for arg in argv], code=code)


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

    out = compare_output(capsys, tmp_path / "take.fsr", tmp_path / "again.fsr")

    assert "EXACT: every channel is bit-for-bit identical" in out
    assert out.count(" exact\n") + out.endswith(" exact") >= 4


def test_diverging_takes_print_the_table_and_the_first_divergence_and_exit_1(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compare_output(capsys, takes["pushed"], takes["plain"], code=1)
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
    report = json.loads(
        compare_output(capsys, "--json", takes["pushed"], takes["plain"], code=1)
    )
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
    out = compare_output(capsys, "--tolerance", "100", takes["pushed"], takes["plain"])
    assert "WITHIN TOLERANCE 100: largest error 18" in out


def test_only_the_named_channels_are_compared(
    takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compare_output(
        capsys, "--channels", "active_target", takes["pushed"], takes["plain"]
    )
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


# -- cameras ---------------------------------------------------------------

_RGB = "sensors.front.camera.rgb"


def _camera_take(
    path: Path, *, channel: bool = True, doctor: dict[int, int] | None = None
) -> Path:
    """Write 10 ticks of a channel ``q`` and a 16x12 PNG camera every 2 ticks.

    ``doctor`` raises one pixel of the frame at a tick by some levels.
    """
    specs = [*camera_streams("front", width=16, height=12, codec="png")]
    if channel:
        specs.append(numeric_stream("q", ("a",), "rad"))
    with FsrWriter(path, specs) as writer:
        profile = CalibrationProfile(16, 12, 14.0, 14.0, 8.0, 6.0)
        writer.write("sensors.front.camera.intrinsics", profile, tick=0, sim_time_s=0.0)
        for tick in range(10):
            if channel:
                writer.write("q", [tick * 0.1], tick=tick, sim_time_s=tick * 0.01)
            if tick % 2:
                continue
            pixels = np.full((12, 16, 3), 10 * tick, dtype=np.uint8)
            pixels[3, 4, 0] += (doctor or {}).get(tick, 0)
            writer.write(_RGB, RGBFrame(pixels), tick=tick, sim_time_s=tick * 0.01)
    return path


@pytest.fixture(scope="module")
def camera_takes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Write a camera take, one with frame 3 (0.06 s) off by 40 levels, frames only."""
    folder = tmp_path_factory.mktemp("camera_takes")
    return {
        "take": _camera_take(folder / "take.fsr"),
        "doctored": _camera_take(folder / "doctored.fsr", doctor={6: 40}),
        "frames": _camera_take(folder / "frames.fsr", channel=False),
    }


def _lines_starting(out: str, word: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.startswith(word)]


def test_a_doctored_frame_shows_in_the_camera_table_and_the_verdict_and_exits_1(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compare_output(capsys, camera_takes["take"], camera_takes["doctored"], code=1)

    assert _lines_starting(out, "camera ")[0] == [
        *("camera", "frames", "max", "px", "error", "mean", "px", "error"),
        *("min", "PSNR", "first", "exceeds", "verdict"),
    ]
    psnr = 10 * math.log10(255**2 / (40**2 / (16 * 12 * 3)))
    assert _lines_starting(out, "front") == [
        [
            *("front", "5", "40", f"{40 / (16 * 12 * 3) / 5:.3g}"),
            *(f"{psnr:.1f}", "dB", "0.06", "s", "diverges"),
        ]
    ]
    assert _lines_starting(out, "q ")[0][-1] == "exact"
    assert out.rstrip().endswith(
        "DIVERGES: first in camera front at 0.06 s, frame differs by up to "
        "40 levels > pixel tolerance 0"
    )


def test_a_pixel_tolerance_at_the_largest_pixel_error_passes_with_exit_0(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compare_output(
        capsys,
        *("--pixel-tolerance", "40"),
        *(camera_takes["take"], camera_takes["doctored"]),
    )

    assert out.rstrip().endswith(
        "WITHIN TOLERANCE 0 AND PIXEL TOLERANCE 40: largest error 0, "
        "largest pixel error 40 levels"
    )


@pytest.mark.parametrize(
    ("option", "code", "has_channels", "has_cameras"),
    [
        (["--cameras", "front"], 1, False, True),
        (["--channels", "q"], 0, True, False),
        (["--channels", "q", "--cameras", "front"], 1, True, True),
    ],
)
def test_camera_and_channel_filters_choose_the_tables(
    camera_takes: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    option: list[str],
    code: int,
    has_channels: bool,
    has_cameras: bool,
) -> None:
    out = compare_output(
        capsys, *option, camera_takes["take"], camera_takes["doctored"], code=code
    )

    assert bool(_lines_starting(out, "channel ")) is has_channels
    assert bool(_lines_starting(out, "camera ")) is has_cameras


def test_json_output_lists_cameras_and_the_pixel_tolerance(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(
        compare_output(
            capsys, "--json", camera_takes["take"], camera_takes["doctored"], code=1
        )
    )

    assert report["pixel_tolerance"] == 0
    assert report["first_divergence"] == {
        "channel": "front",
        "column": "",
        "time_s": pytest.approx(0.06),
        "error": 40.0,
        "kind": "camera",
    }
    (camera,) = report["cameras"]
    assert camera["name"] == "front"
    assert camera["frames_compared"] == 5
    assert camera["max_abs_error"] == 40.0
    assert camera["exact"] is False
    assert camera["first_exceed_s"] == pytest.approx(0.06)


def test_a_candidate_with_frames_and_no_channel_is_compared_on_its_frames(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = compare_output(capsys, camera_takes["take"], camera_takes["frames"])

    assert not _lines_starting(out, "channel ")
    assert "only in the reference: q" in out
    assert out.rstrip().endswith(
        "FRAMES EXACT: every compared camera frame is bit-for-bit identical "
        "(no channel in common: only cameras were compared)"
    )


def test_a_rerendered_take_compares_frame_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _take_documents()["01_reach"]
    camera = dict(document["cameras"][0])
    camera.update(width=80, height=60, rate_hz=30.0)
    document.update(duration_s=0.3, cameras=[camera])
    source, rendered = tmp_path / "reach.fsr", tmp_path / "reach.render.fsr"
    record_run(Scenario.from_json(document), source)
    assert main(["replay", str(source), "--mode", "render", "-o", str(rendered)]) == 0

    out = compare_output(capsys, source, rendered)

    assert _lines_starting(out, "front")[0][-1] == "exact"
    assert "FRAMES EXACT" in out


def test_an_unknown_camera_exits_2(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    take = str(camera_takes["take"])
    code = compare(["--cameras", "front,side", take, take])
    assert code == 2
    assert "no camera named side in either recording" in capsys.readouterr().err


@pytest.mark.parametrize("level", ["-1", "256", "1.5", "x"])
def test_a_pixel_tolerance_outside_0_to_255_levels_is_a_usage_error(
    camera_takes: dict[str, Path], capsys: pytest.CaptureFixture[str], level: str
) -> None:
    take = str(camera_takes["take"])
    with pytest.raises(SystemExit) as exited:
        compare(["--pixel-tolerance", level, take, take])
    assert exited.value.code == 2
    assert "whole levels from 0 to 255" in capsys.readouterr().err
