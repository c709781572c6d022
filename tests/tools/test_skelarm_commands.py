"""``fsr-viewer convert`` and ``resimulate`` of skelarm logs, check step."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from tool_scripts import load_tool

from app.cli import request_from
from app.headless import skelarm_commands
from fsr_core.errors import TargetExistsError
from fsr_core.sources import open_recording

REACH = Path(__file__).resolve().parents[1] / "data" / "skelarm" / "reach.sklog.npz"


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="fsr-viewer")
    skelarm_commands.add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.run(request_from(args))
    return code


def test_convert_writes_the_fsr_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "reach.fsr"

    code = _run(["convert", str(REACH), "-o", str(output)])

    assert code == 0
    assert (
        open_recording(output).channels.keys() == open_recording(REACH).channels.keys()
    )
    out = capsys.readouterr().out
    assert str(output) in out
    assert "1001 frames" in out


def test_convert_defaults_to_the_log_name_with_fsr(tmp_path: Path) -> None:
    log = tmp_path / "take.sklog.npz"
    shutil.copyfile(REACH, log)

    assert _run(["convert", str(log)]) == 0

    assert (tmp_path / "take.fsr").is_file()


def test_convert_keeps_an_existing_output_unless_overwrite(tmp_path: Path) -> None:
    output = tmp_path / "reach.fsr"
    output.write_text("mine")

    with pytest.raises(TargetExistsError):
        _run(["convert", str(REACH), "-o", str(output)])
    assert output.read_text() == "mine"
    assert _run(["convert", str(REACH), "-o", str(output), "--overwrite"]) == 0

    assert open_recording(output).title == "reach"


def test_convert_needs_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _run(["convert"])

    assert exited.value.code == 2
    assert "log" in capsys.readouterr().err


def _programmatic_log(path: Path) -> Path:
    """Write a log whose run had no scenario config (skelarm's programmatic API)."""
    meta = (
        'schema_version = 1\nproducer = "ComputedTorque"\n[skeleton]\n'
        "base_length = 0.0\n[[skeleton.links]]\n"
        "length = 1.0\nm = 1.0\ni = 0.1\nrgx = 0.5\nrgy = 0.0\n"
        "qmin = -3.0\nqmax = 3.0\n"
    )
    np.savez_compressed(
        path, time=np.linspace(0.0, 0.1, 6), q=np.zeros((6, 1)), __meta__=np.array(meta)
    )
    return path


def test_resimulate_refuses_a_log_without_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _programmatic_log(tmp_path / "programmatic.sklog.npz")

    code = _run(["resimulate", str(log), "-o", str(tmp_path / "rerun.sklog.npz")])

    assert code == 1
    captured = capsys.readouterr()
    assert "cannot re-simulate" in captured.out  # said before anything runs
    assert "cannot re-simulate: no embedded configuration" in captured.err
    assert not (tmp_path / "rerun.sklog.npz").exists()


def test_resimulate_without_skelarm_says_what_to_install(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))

    code = _run(["resimulate", str(REACH), "-o", str(tmp_path / "rerun.sklog.npz")])

    assert code == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{REACH}: exact")
    assert "pip install 'fsr-viewer[skelarm]'" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_check_step_says_skelarm_tests_did_not_run_without_python_312(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    check = load_tool("check", "tool_check")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no python3.12/3.13, no pyenv
    monkeypatch.delenv("SKELARM_PYTHON", raising=False)

    assert check._skelarm_tests() == 0

    assert "skelarm tests NOT RUN" in capfd.readouterr().out
