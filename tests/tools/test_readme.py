"""The README's Python example runs as written (so the README stays true)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_writes_and_reads_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    match = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert match is not None
    code = match.group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(README), "exec"), {})
    out = capsys.readouterr().out
    assert (tmp_path / "run.fsr").is_file()
    assert out.startswith("structural ")
    assert "[[500.   0. 320.]" in out
    assert "60 [ 0.5 -0.5]" in out
    assert "\n60 sha256:" in out  # the frame nearest 0.5 s and its calibration
    assert "[ 1.5 -1.5  1.2]" in out  # the camera pose at tick 60


def test_readme_starts_with_the_run_and_test_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [
        line.split("#")[0].strip() for line in first_block.group(1).splitlines()
    ]
    assert commands[:2] == ["./tools/run.sh", "./tools/test.sh"]
    root = README.parent
    assert (root / "tools" / "run.sh").stat().st_mode & 0o111
    assert (root / "tools" / "test.sh").stat().st_mode & 0o111
    assert "./tools/test.sh" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_simulator_example_records_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = re.findall(
        r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S
    )
    simulator = [block for block in blocks if "record_run" in block]
    assert len(simulator) == 1
    monkeypatch.chdir(tmp_path)
    exec(compile(simulator[0], str(README), "exec"), {})
    ticks, size = capsys.readouterr().out.split()
    assert int(ticks) == 1800
    assert (tmp_path / "curve.fsr").stat().st_size == int(size)
