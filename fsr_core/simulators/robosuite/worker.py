"""The child process that runs robosuite (``python -m`` on this module).

Started by :mod:`.runner` in the interpreter ``FSR_VIEWER_ROBOSUITE_PYTHON``
names, when robosuite does not import in the viewer's own, with two
arguments: the request (JSON, :class:`~.request.RobosuiteRequest`) and a
folder to put frames in. It runs :func:`.session.run` and reports on its
standard output, one JSON object a line:

``{"event": "scene", "facts": {...}}``
    once the environment is rebuilt;
``{"event": "frame", "index": i, "file": NAME, "poses": {...}, "wall_s": s}``
    per frame: the state (member ``state``) and the images (``image.<camera>``)
    are in ``NAME``, an ``.npz`` in the folder, which the parent reads and
    deletes;
``{"event": "error", "message": ...}``
    robosuite refused or failed (exit status 3).

Whatever robosuite prints goes to standard error (standard output is moved
there before robosuite is imported). Exit status: 0 done, 2 a bad request,
3 robosuite refused or failed.
"""

from __future__ import annotations

import dataclasses
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
from fsr_core.simulators.robosuite.request import RequestError, RobosuiteRequest
from fsr_core.simulators.robosuite.session import FrameOut, run

__all__ = ["main"]


class _Reporter:
    """A :class:`~.session.Sink` that writes events and frame files."""

    def __init__(self, events: IO[str], folder: Path) -> None:
        self._events = events
        self._folder = folder

    def send(self, event: dict[str, Any]) -> None:
        self._events.write(json.dumps(event) + "\n")
        self._events.flush()

    def scene(self, facts: dict[str, Any]) -> None:
        self.send({"event": "scene", "facts": facts})

    def frame(self, frame: FrameOut) -> None:
        members: dict[str, Any] = {"state": frame.state}
        for name, image in frame.images.items():
            members[f"image.{name}"] = image
        name = f"frame-{frame.index:09d}.npz"
        staging = self._folder / f".{name}"
        with staging.open("wb") as handle:
            np.savez(handle, **members)
        staging.replace(self._folder / name)
        poses = {key: dataclasses.asdict(pose) for key, pose in frame.poses.items()}
        self.send(
            {
                "event": "frame",
                "index": frame.index,
                "file": name,
                "poses": poses,
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
        request = RobosuiteRequest.from_json(request_path.read_text(encoding="utf-8"))
    except (OSError, RequestError) as exc:
        return bad_request(exc)
    if not folder.is_dir():
        return bad_request(f"{folder} is not a folder")
    reporter = _Reporter(_event_stream(), folder)
    try:
        run(request, reporter, lambda: False)
    except Exception as exc:  # noqa: BLE001 - the child's boundary: report, exit
        lines = f"{type(exc).__name__}: {exc}".strip().splitlines()
        reporter.send({"event": "error", "message": lines[0] if lines else ""})
        return EXIT_REFUSED
    reporter.send({"event": "done"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
