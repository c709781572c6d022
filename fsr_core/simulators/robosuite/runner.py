"""Run one robosuite request here or in the worker, and hand its events to a sink.

:func:`run_request` calls :func:`.session.run` directly when robosuite
imports in this process (cancelled between frames), or starts :mod:`.worker`
in the interpreter of the :class:`~.availability.Runtime` and turns its event
lines back into the same calls (each frame's arrays come through an ``.npz``
file in a private folder, read and deleted one by one). The child is killed
within about 50 ms of a cancel.
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
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np

from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulators.robosuite.availability import Runtime
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.session import CameraPoseOut, FrameOut, Sink

__all__ = ["RunOutcome", "clean_message", "run_request"]

_POLL_S: Final = 0.05
_WORKER: Final = "fsr_core.simulators.robosuite.worker"
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_KEPT_ERROR_LINES: Final = 40
_IMAGE: Final = "image."


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: done, cancelled, or failed with ``error``."""

    cancelled: bool = False
    error: str = ""

    @property
    def failed(self) -> bool:
        """Whether robosuite refused or failed (``error`` says why)."""
        return bool(self.error) and not self.cancelled


def clean_message(text: str) -> str:
    """Return a message on one line, without terminal colours."""
    lines = [line.strip() for line in _ANSI.sub("", text).splitlines() if line.strip()]
    return " ".join(lines)[:600]


def _in_process(
    request: RobosuiteRequest, sink: Sink, cancel: CancelToken | None
) -> RunOutcome:
    # Imported here: the session module is robosuite's side of the package.
    from fsr_core.simulators.robosuite.session import run

    def cancelled() -> bool:
        return cancel is not None and cancel.cancelled

    try:
        run(request, sink, cancelled)
    except Exception as exc:  # noqa: BLE001 - robosuite's failures, reported whole
        return RunOutcome(error=clean_message(f"{type(exc).__name__}: {exc}"))
    return RunOutcome(cancelled=cancelled())


def _pump(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


def _pose(value: Any) -> CameraPoseOut:
    position = tuple(float(v) for v in value["position"])
    rotation = tuple(tuple(float(v) for v in row) for row in value["rotation"])
    return CameraPoseOut(position, rotation)


def _frame(event: dict[str, Any], folder: Path) -> FrameOut:
    file = folder / Path(str(event["file"])).name
    try:
        with np.load(file, allow_pickle=False) as archive:
            state = np.asarray(archive["state"], dtype=np.float64)
            images = {
                key[len(_IMAGE) :]: archive[key]
                for key in archive.files
                if key.startswith(_IMAGE)
            }
    finally:
        file.unlink(missing_ok=True)
    poses = {str(k): _pose(v) for k, v in dict(event.get("poses") or {}).items()}
    return FrameOut(
        index=int(event["index"]),
        state=state,
        images=images,
        poses=poses,
        wall_s=float(event.get("wall_s", 0.0)),
    )


def _environment() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[3])
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONUNBUFFERED": "1",
    }


class _Child:
    """The worker process and the threads that drain its output."""

    def __init__(self, python: str, request: Path, folder: Path) -> None:
        self.process = subprocess.Popen(
            [python, "-m", _WORKER, str(request), str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_environment(),
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self.events: queue.Queue[str | None] = queue.Queue()
        self.errors: deque[str] = deque(maxlen=_KEPT_ERROR_LINES)
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
        """Stop the child now."""
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """Wait for the child and its output threads, then close the pipes."""
        if self.process.poll() is None:
            self.kill()
        for thread in self._threads:
            thread.join(timeout=5.0)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def last_error(self) -> str:
        """Return the last line the child wrote that is not a warning or note."""
        for line in reversed(self.errors):
            text = clean_message(line)
            if text and "WARNING" not in text and "INFO" not in text:
                return text
        return f"the robosuite worker exited with status {self.process.returncode}"


def _dispatch(event: dict[str, Any], sink: Sink, folder: Path) -> str | None:
    """Hand one event to ``sink``; return the error it reports, if any."""
    kind = event.get("event")
    if kind == "frame":
        sink.frame(_frame(event, folder))
    elif kind == "scene":
        sink.scene(dict(event.get("facts") or {}))
    elif kind == "error":
        return clean_message(str(event.get("message", ""))) or "robosuite failed"
    return None


def _follow(
    child: _Child, sink: Sink, cancel: CancelToken | None, frames: Path
) -> RunOutcome:
    """Hand the child's events to ``sink`` until it ends; kill it on a cancel."""
    error = ""
    while True:
        if cancel is not None and cancel.cancelled:
            child.kill()
            return RunOutcome(cancelled=True)
        try:
            line = child.events.get(timeout=_POLL_S)
        except queue.Empty:
            continue
        if line is None:
            break
        try:
            event = json.loads(line)
        except ValueError:
            continue  # not an event line
        if isinstance(event, dict):
            error = _dispatch(event, sink, frames) or error
    status = child.process.wait()
    if status != 0 and not error:
        error = child.last_error()
    return RunOutcome(error=error)


def _in_child(
    python: str,
    request: RobosuiteRequest,
    sink: Sink,
    cancel: CancelToken | None,
    scratch: Path,
) -> RunOutcome:
    folder = Path(tempfile.mkdtemp(prefix=".fsr-robosuite-", dir=scratch))
    try:
        request_file = folder / "request.json"
        request_file.write_text(request.to_json(), encoding="utf-8")
        frames = folder / "frames"
        frames.mkdir()
        child = _Child(python, request_file, frames)
        try:
            return _follow(child, sink, cancel, frames)
        finally:
            child.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_request(
    request: RobosuiteRequest,
    sink: Sink,
    runtime: Runtime,
    *,
    cancel: CancelToken | None = None,
    scratch: Path | None = None,
) -> RunOutcome:
    """Run ``request`` where ``runtime`` says, reporting to ``sink``.

    ``scratch`` is the folder the worker's frame files go under (default:
    the system's temporary folder).
    """
    if runtime.python is None:
        return _in_process(request, sink, cancel)
    where = scratch if scratch is not None else Path(tempfile.gettempdir())
    return _in_child(runtime.python, request, sink, cancel, where)
