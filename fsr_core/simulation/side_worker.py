"""The child's side of a side-Python worker: one request in, events out.

Genesis's and robosuite's workers (``python -m`` on their ``worker`` module,
started by :class:`~fsr_core.simulation.side_runner.SideRunner`) read the
request file, run the simulator's session into an :class:`EventWriter` and
report on standard output, one JSON object a line: ``scene`` once, ``frame``
per frame (its arrays in an ``.npz`` file in the frame folder, which the
parent reads and deletes), the simulator's own kinds, then ``done``, or
``error`` when the simulator refused (exit status
:data:`~fsr_core.simulation.worker_main.EXIT_REFUSED`). Whatever the stack
prints goes to standard error: :func:`serve` moves standard output there
before the session imports it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from fsr_core.simulation.worker_main import (
    EXIT_BAD_REQUEST,
    EXIT_REFUSED,
    bad_request,
    worker_paths,
)

__all__ = ["EventWriter", "serve"]

RequestT = TypeVar("RequestT")
WriterT = TypeVar("WriterT", bound="EventWriter")


class EventWriter:
    """Writes a run's events to ``events`` and its frame files to ``folder``.

    A simulator's reporter subclasses it with its session's ``frame`` (and
    any other event its session reports).
    """

    def __init__(self, events: IO[str], folder: Path) -> None:
        self._events = events
        self._folder = folder

    def send(self, event: dict[str, Any]) -> None:
        """Write one event line now."""
        self._events.write(json.dumps(event) + "\n")
        self._events.flush()

    def scene(self, facts: dict[str, Any]) -> None:
        """Report the rebuilt scene's facts."""
        self.send({"event": "scene", "facts": facts})

    def write_frame(
        self, index: int, members: Mapping[str, Any], **fields: Any
    ) -> None:
        """Write frame ``index``'s arrays to its file; report it with ``fields``."""
        name = f"frame-{index:09d}.npz"
        staging = self._folder / f".{name}"
        with staging.open("wb") as handle:
            np.savez(handle, **members)
        staging.replace(self._folder / name)
        self.send({"event": "frame", "index": index, "file": name, **fields})


def _event_stream() -> IO[str]:
    """Keep standard output for events; send everything else printed to stderr."""
    sys.stdout.flush()
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return events


def serve(
    argv: Sequence[str] | None,
    read: Callable[[str], RequestT],
    refusal: type[Exception],
    writer: Callable[[IO[str], Path], WriterT],
    run: Callable[[RequestT, WriterT, Callable[[], bool]], None],
) -> int:
    """Run the request ``argv`` names; return the worker's exit status.

    ``read`` turns the request file's text into a request, raising
    ``refusal`` when it is not one (exit status
    :data:`~fsr_core.simulation.worker_main.EXIT_BAD_REQUEST`); ``run`` is the
    session, reporting to the ``writer`` made on the event stream.
    """
    paths = worker_paths(argv, "REQUEST.json FRAME_FOLDER")
    if paths is None:
        return EXIT_BAD_REQUEST
    request_path, folder = paths
    try:
        request = read(request_path.read_text(encoding="utf-8"))
    except (OSError, refusal) as exc:
        return bad_request(exc)
    if not folder.is_dir():
        return bad_request(f"{folder} is not a folder")
    reporter = writer(_event_stream(), folder)
    try:
        run(request, reporter, lambda: False)
    except Exception as exc:  # noqa: BLE001 - the child's boundary: report, exit
        lines = f"{type(exc).__name__}: {exc}".strip().splitlines()
        reporter.send({"event": "error", "message": lines[0] if lines else ""})
        return EXIT_REFUSED
    reporter.send({"event": "done"})
    return 0
