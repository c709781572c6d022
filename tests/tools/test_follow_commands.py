"""``inspect --follow`` and ``batch`` on recordings that real writers are writing."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_output import assert_mentions
from live_writers import WriterProcess, fsr_writer_fixture

from app.cli import main
from app.headless.batch.items import WorkItem
from app.headless.batch.live_inputs import check_live_inputs
from app.headless.follow_report import run_follow
from app.headless.signals import StopRequested

fsr_writer = fsr_writer_fixture("fsr_writer", 16, 12)


def test_inspect_follow_prints_lines_until_the_writer_publishes(
    tmp_path: Path, fsr_writer: WriterProcess
) -> None:
    steps = iter(["numeric 400", "numeric 400", "finish"])
    inspected: list[Path] = []

    def pause(_: float) -> None:
        command = next(steps, None)
        if command is not None:
            fsr_writer.send(command)

    out = io.StringIO()
    code = run_follow(
        tmp_path / "run.fsr",
        inspect=lambda path: inspected.append(path) or 0,
        out=out,
        pause=pause,
    )
    text = out.getvalue()
    assert code == 0
    assert inspected == [tmp_path / "run.fsr"]
    lines = text.splitlines()
    assert lines[0].startswith("following ")
    assert lines[0].endswith(".fsr-staging")
    counts = [int(line.split(" ")[0]) for line in lines[1:-1]]
    assert counts == sorted(counts)
    assert counts[-1] == 801  # 800 samples and the camera's calibration
    assert_mentions(text, "records/s", "the writer finished: 801 records")


def test_ctrl_c_stops_following_cleanly(
    tmp_path: Path, fsr_writer: WriterProcess
) -> None:
    fsr_writer.send("numeric 200")

    def pause(_: float) -> None:
        raise StopRequested(signal.SIGINT)

    out = io.StringIO()
    code = run_follow(
        tmp_path / "run.fsr", inspect=lambda path: 1, out=out, pause=pause
    )
    assert code == 0
    assert "stopped following" in out.getvalue()


def test_the_command_line_follows_and_exits_0_on_sigint(
    tmp_path: Path, fsr_writer: WriterProcess
) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "inspect",
            "--follow",
            "--interval",
            "0.05",
            str(tmp_path / "run.fsr"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith("following ")
    fsr_writer.send("numeric 300")
    line = process.stdout.readline()
    assert "records/s" in line
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "stopped following" in out


def test_batch_refuses_a_file_being_written_unless_told_to_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.mcap"
    writer = WriterProcess("live_mcap_writer.py", str(path))
    try:
        writer.send("messages 100")
        code = main(["batch", "validate", "--jobs", "1", str(path)])
        captured = capsys.readouterr()
        assert code == 1
        assert_mentions(captured.out + captured.err, "still being written", "--wait")
        assert f"{path}: still being written" in captured.out + captured.err
        said: list[str] = []
        item = WorkItem(0, path)
        waited = check_live_inputs(
            [item],
            wait=True,
            say=said.append,
            pause=lambda _: (
                writer.send("finish") if writer.process.poll() is None else None
            ),
        )
        assert waited == [item]
        assert "waiting for" in said[0]
        assert writer.process.wait(timeout=20) == 0
    finally:
        writer.close()
