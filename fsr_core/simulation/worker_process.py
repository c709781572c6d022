"""A simulator's worker in another Python: start it, read its events, stop it.

Simulators whose stack is too heavy or too pinned to share this process
(Genesis with torch; robosuite with its older MuJoCo) run a worker module in
the interpreter an environment variable names. The worker reads a request
file and writes one JSON event a line on its standard output; its arrays go
through files in a private folder. :func:`run_in_worker` makes that folder,
starts the worker (:class:`WorkerProcess`), hands each event to the
simulator's ``dispatch`` until the worker ends, kills it within about 50 ms
of a cancel, and removes the folder. What the events mean stays with each
simulator.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from fsr_core.simulation.protocol import CancelToken

__all__ = [
    "Dispatch",
    "RunOutcome",
    "WorkerProcess",
    "clean_message",
    "run_in_worker",
]

POLL_S: Final = 0.05
"""Seconds between two looks for an event or a cancel."""

KEPT_ERROR_LINES: Final = 40
"""Lines of the worker's standard error kept for its last error."""

_NOISE: Final = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|~~?<|>~~?")
"""Terminal colours, and the ``~<`` ``>~`` marks Genesis's logger adds."""

_PACKAGE_ROOT: Final = str(Path(__file__).resolve().parents[2])

Dispatch = Callable[[dict[str, Any]], "str | None"]
"""Hands one event to the simulator's sink; returns the error it reports."""


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: done, cancelled, or failed with ``error``."""

    cancelled: bool = False
    error: str = ""

    @property
    def failed(self) -> bool:
        """Whether the simulator refused or failed (``error`` says why)."""
        return bool(self.error) and not self.cancelled


def clean_message(text: str) -> str:
    """Return a message on one line, without terminal colours."""
    lines = [line.strip() for line in _NOISE.sub("", text).splitlines() if line.strip()]
    return " ".join(lines)[:600]


def _environment(extra: dict[str, str]) -> dict[str, str]:
    """Return the environment: this repository first on the path, unbuffered."""
    paths = [
        _PACKAGE_ROOT,
        *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)),
    ]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def _pump(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


class WorkerProcess:
    """The worker process and the threads that drain its output.

    ``label`` names the simulator in the fallback error; ``noise`` says which
    lines of its standard error are warnings, never its last error.
    """

    def __init__(
        self,
        command: list[str],
        *,
        env: dict[str, str],
        label: str,
        noise: Callable[[str], bool],
    ) -> None:
        self.label = label
        self.noise = noise
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self.events: queue.Queue[str | None] = queue.Queue()
        self.errors: deque[str] = deque(maxlen=KEPT_ERROR_LINES)
        stdout = self.process.stdout
        assert stdout is not None
        self._threads = [
            threading.Thread(target=_pump, args=(stdout, self.events), daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if line.strip():
                self.errors.append(line)

    def kill(self) -> None:
        """Stop the worker now."""
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """Wait for the worker and its output threads, then close the pipes."""
        if self.process.poll() is None:
            self.kill()
        for thread in self._threads:
            thread.join(timeout=5.0)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def last_error(self) -> str:
        """Return the last line the worker wrote that is not noise."""
        for line in reversed(self.errors):
            text = clean_message(line)
            if text and not self.noise(text):
                return text
        return f"the {self.label} worker exited with status {self.process.returncode}"

    def follow(self, dispatch: Dispatch, cancel: CancelToken | None) -> RunOutcome:
        """Hand the worker's events to ``dispatch`` until it ends or is cancelled."""
        error = ""
        while True:
            if cancel is not None and cancel.cancelled:
                self.kill()
                return RunOutcome(cancelled=True)
            try:
                line = self.events.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line is None:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not an event line
            if isinstance(event, dict):
                error = dispatch(event) or error
        status = self.process.wait()
        if status != 0 and not error:
            error = self.last_error()
        return RunOutcome(error=error)


def run_in_worker(
    python: str,
    module: str,
    request_json: str,
    dispatch_for: Callable[[Path], Dispatch],
    *,
    label: str,
    cancel: CancelToken | None = None,
    scratch: Path | None = None,
    env: dict[str, str] | None = None,
    noise: Callable[[str], bool] = lambda _line: False,
) -> RunOutcome:
    """Run ``python -m module REQUEST FRAMES`` and follow its events.

    The request is written to ``REQUEST`` in a private folder under
    ``scratch`` (default: the system's temporary folder), with ``FRAMES`` the
    folder the worker writes its arrays to; ``dispatch_for(FRAMES)`` reads
    them. The folder is removed at the end, whatever happened.
    """
    where = scratch if scratch is not None else Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix=f".fsr-{label.lower()}-", dir=where))
    try:
        request = folder / "request.json"
        request.write_text(request_json, encoding="utf-8")
        frames = folder / "frames"
        frames.mkdir()
        worker = WorkerProcess(
            [python, "-m", module, str(request), str(frames)],
            env=_environment(env or {}),
            label=label,
            noise=noise,
        )
        try:
            return worker.follow(dispatch_for(frames), cancel)
        finally:
            worker.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
