"""The child process that runs Genesis (``python -m`` on this module).

Started by :mod:`.runner` in the interpreter ``FSR_VIEWER_GENESIS_PYTHON``
names, when Genesis does not import in the viewer's own, with two arguments:
the request (JSON, :class:`~.request.GenesisRequest`) and a folder to put
frames in. It runs :func:`.session.run` and reports on its standard output,
one JSON object a line:

``{"event": "scene", "facts": {...}}``
    once the scene is rebuilt (versions, frames, camera ...);
``{"event": "frame", "index": i, "steps": [...], "file": NAME, ...}``
    per frame, with ``names``, ``differences`` and ``wall_s``: the scene's
    arrays are in ``NAME`` (an ``.npz`` in the folder, members ``a0``,
    ``a1`` ... in the order of ``names``, and ``rgb`` for a render), which
    the parent reads and deletes;
``{"event": "stopped", "reason": ...}``
    the run ended early on purpose (a reset the re-simulation cannot follow);
``{"event": "error", "message": ...}``
    Genesis refused the trajectory (exit status 3).

Whatever Genesis prints goes to standard error (standard output is moved
there before Genesis is imported). Exit status: 0 done, 2 a bad request,
3 Genesis refused or failed.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from fsr_core.simulation.worker_main import (
    EXIT_BAD_REQUEST,
    EXIT_REFUSED,
    bad_request,
    worker_paths,
)
from fsr_core.simulators.genesis.request import GenesisRequest, RequestError
from fsr_core.simulators.genesis.session import FrameOut, run

__all__ = ["EXIT_BAD_REQUEST", "EXIT_REFUSED", "main"]


class _Reporter:
    """A :class:`~.session.Sink` that writes events and frame files."""

    def __init__(self, events: IO[str], folder: Path) -> None:
        self._events = events
        self._folder = folder

    def _send(self, event: dict[str, Any]) -> None:
        self._events.write(json.dumps(event) + "\n")
        self._events.flush()

    def scene(self, facts: dict[str, Any]) -> None:
        self._send({"event": "scene", "facts": facts})

    def stopped(self, reason: str) -> None:
        self._send({"event": "stopped", "reason": reason})

    def frame(self, frame: FrameOut) -> None:
        names = list(frame.arrays)
        members: dict[str, Any] = {
            f"a{k}": frame.arrays[name] for k, name in enumerate(names)
        }
        if frame.rgb is not None:
            members["rgb"] = frame.rgb
        name = f"frame-{frame.index:09d}.npz"
        staging = self._folder / f".{name}"
        with staging.open("wb") as handle:
            np.savez(handle, **members)
        staging.replace(self._folder / name)
        self._send(
            {
                "event": "frame",
                "index": frame.index,
                "steps": list(frame.steps),
                "file": name,
                "names": names,
                "differences": list(frame.differences),
                "wall_s": frame.wall_s,
            }
        )


def _event_stream() -> IO[str]:
    """Keep standard output for events; send everything else printed to stderr."""
    sys.stdout.flush()
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return events


def main(argv: Sequence[str] | None = None) -> int:
    """Run one request; return the exit status (see the module docstring)."""
    paths = worker_paths(argv, "REQUEST.json FRAME_FOLDER")
    if paths is None:
        return EXIT_BAD_REQUEST
    request_path, folder = paths
    try:
        request = GenesisRequest.from_json(request_path.read_text(encoding="utf-8"))
    except (OSError, RequestError) as exc:
        return bad_request(exc)
    if not folder.is_dir():
        return bad_request(f"{folder} is not a folder")
    events = _event_stream()
    reporter = _Reporter(events, folder)
    try:
        run(request, reporter, lambda: False)
    except Exception as exc:  # noqa: BLE001 - the child's boundary: report, exit
        message = f"{type(exc).__name__}: {exc}".strip().splitlines()
        reporter._send({"event": "error", "message": message[0] if message else ""})
        return EXIT_REFUSED
    reporter._send({"event": "done"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
