"""``fsr-viewer convert``: the parser and handler of app/skelarm_commands.py."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from app import skelarm_commands
from fsr_core.errors import TargetExistsError
from fsr_core.sources import open_recording

REACH = Path(__file__).resolve().parents[1] / "data" / "skelarm" / "reach.sklog.npz"


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="fsr-viewer")
    skelarm_commands.add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return skelarm_commands.HANDLERS[args.command](args)


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
