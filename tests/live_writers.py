"""Real writer processes for the following tests, driven line by line.

:class:`WriterProcess` runs ``tools/live_writer.py`` (the FSR writer) or
``tools/live_mcap_writer.py`` (the ``mcap`` library's writer) in a child
process and sends it commands; each answer comes once the command is done.
:func:`fsr_writer_fixture` makes a test module's fixture of the FSR writer.
:func:`poll_until` polls a follower until a condition holds or a deadline
passes, pausing on an event between polls (no sleeping).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import pytest

from fsr_core.sources.live import Follower

TOOLS: Final = Path(__file__).resolve().parents[1] / "tools"
DEADLINE_S: Final = 20.0


class WriterProcess:
    """A writer script in a child process."""

    def __init__(self, script: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(TOOLS / script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.first_line = self._line()

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        assert line, f"the writer said nothing (exit {self.process.poll()})"
        return line

    def send(self, command: str) -> str:
        """Send one command; return the writer's answer."""
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._line()

    def close(self) -> None:
        """Stop the child (if still running) and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=DEADLINE_S)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


@contextmanager
def running_fsr_writer(path: Path, width: int, height: int) -> Iterator[WriterProcess]:
    """Run the FSR writer on ``path`` in command mode; stop it at the end."""
    process = WriterProcess(
        "live_writer.py",
        str(path),
        "--commands",
        "--width",
        str(width),
        "--height",
        str(height),
    )
    try:
        yield process
    finally:
        process.close()


def fsr_writer_fixture(name: str, width: int, height: int) -> Any:
    """Return a fixture called ``name``: the FSR writer on ``tmp_path / "run.fsr"``.

    A test module binds it to a module name, ``writer = fsr_writer_fixture(...)``;
    the frames are ``width`` x ``height``.
    """

    def fixture(tmp_path: Path) -> Iterator[WriterProcess]:
        with running_fsr_writer(tmp_path / "run.fsr", width, height) as process:
            yield process

    return pytest.fixture(name=name)(fixture)


def poll_until(follower: Follower, done: Callable[[], bool], what: str) -> int:
    """Poll until ``done()``; return the bytes read. Fails after the deadline."""
    pause = threading.Event()
    total = 0
    deadline = time.monotonic() + DEADLINE_S
    while True:
        total += follower.poll().bytes_read
        if done():
            return total
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        pause.wait(0.01)
