"""SIGINT and SIGTERM in the middle of the writing commands, through the real CLI.

The command must stop with one line (no ``KeyboardInterrupt`` traceback), exit
130 (SIGINT) or 143 (SIGTERM), and leave neither a final-named file nor a
staging or partial file (docs/robustness.md, Cancel, Ctrl-C and kills). The
signal is sent once the command has shown that it is working (its progress
on stderr), never after a sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from hostile_e2e.cli_run import TIME_LIMIT_S, files_below, start_cli

from fsr_core.synthetic import SyntheticRun, write_synthetic

_NEVER_SHOWN = ("Traceback", "KeyboardInterrupt", "internal error")


def _wait_for(process: subprocess.Popen[str], text: str) -> str:
    """Read stderr until ``text`` shows up (the command is at work); return it."""
    assert process.stderr is not None
    seen = ""
    while text not in seen:
        chunk = os.read(process.stderr.fileno(), 4096).decode(errors="replace")
        if not chunk:
            raise AssertionError(f"ended before showing {text!r}: {seen[-2000:]!r}")
        seen += chunk
    return seen


def _stop(process: subprocess.Popen[str], signum: int, seen: str) -> tuple[int, str]:
    process.send_signal(signum)
    try:
        _, rest = process.communicate(timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError("the command did not stop on the signal") from None
    return process.returncode, seen + rest


def _assert_stopped(code: int, stderr: str, signum: int) -> None:
    assert code == 128 + signum, stderr[-3000:]
    for text in _NEVER_SHOWN:
        assert text not in stderr, stderr[-3000:]
    last = stderr.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("fsr-viewer: stopped by"), stderr[-3000:]
    assert signal.Signals(signum).name in last


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_an_export_removes_the_partial_file(
    tmp_path: Path, signum: int
) -> None:
    recording = write_synthetic(tmp_path / "long.fsr", SyntheticRun(ticks=2000)).path
    out = tmp_path / "out" / "long.mp4"
    out.parent.mkdir()
    process = start_cli(
        [recording, "--export", out, "--size", "1600x1600", "--fps", "240"]
    )

    seen = _wait_for(process, " frames")
    code, stderr = _stop(process, signum, seen)

    _assert_stopped(code, stderr, signum)
    assert files_below(out.parent) == set()


def test_a_sigterm_during_demo_removes_the_unfinished_take(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    process = start_cli(["demo", "--no-gui", "--out", out])

    seen = _wait_for(process, "recording ")
    code, stderr = _stop(process, signal.SIGTERM, seen)

    _assert_stopped(code, stderr, signal.SIGTERM)
    assert not [name for name in files_below(out) if "staging" in name]
    for recording in out.glob("*.fsr"):  # the finished takes are whole
        assert recording.stat().st_size > 0
