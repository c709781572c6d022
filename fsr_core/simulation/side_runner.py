"""Run one simulator request here or in its worker, handing its events to a sink.

The parent's side of the simulators whose stack may run in a Python of its
own (:mod:`fsr_core.simulation.side_runtime`). A simulator's runner is a
:class:`SideRunner`: called with a request, a sink and the runtime, it runs
the request in this process (the simulator's session, loaded when first
needed, cancelled between frames) or starts the worker module in the other
interpreter (:func:`~fsr_core.simulation.worker_process.run_in_worker`) and
hands its ``scene`` events to the sink, its ``error`` events back as the
outcome, and every other kind to the simulator's own handlers. A frame's
arrays come through an ``.npz`` file that :func:`frame_members` reads and
deletes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulation.worker_process import (
    Dispatch,
    RunOutcome,
    clean_message,
    run_in_worker,
)

__all__ = [
    "Cancelled",
    "EventHandler",
    "JsonRequest",
    "SceneSink",
    "SideRunner",
    "WhereItRuns",
    "frame_members",
]

EventHandler = Callable[[dict[str, Any], Path], None]
"""Hands one worker event (and the folder of its frame files) to a sink."""


class SceneSink(Protocol):
    """What every simulator's sink takes: the facts of the rebuilt scene."""

    def scene(self, facts: dict[str, Any]) -> None:
        """Take the scene's facts (versions, frames, cameras ...)."""


class JsonRequest(Protocol):
    """What a worker is asked: a request that writes itself as JSON."""

    def to_json(self) -> str:
        """Return the request as the worker reads it."""


class WhereItRuns(Protocol):
    """A simulator's runtime: this process (``python`` None) or another Python."""

    @property
    def python(self) -> str | None:
        """The other interpreter, or None for this process."""


RequestT = TypeVar("RequestT", bound=JsonRequest)
SinkT = TypeVar("SinkT", bound=SceneSink)
Cancelled = Callable[[], bool]
"""Asked between frames: whether the run is to stop."""
SessionRun = Callable[[RequestT, SinkT, Cancelled], None]
"""A session's ``run``: the request, reporting to the sink, until cancelled."""


def frame_members(event: dict[str, Any], folder: Path) -> dict[str, npt.NDArray[Any]]:
    """Return the arrays of the frame file ``event`` names in ``folder``, deleted."""
    file = folder / Path(str(event["file"])).name
    try:
        with np.load(file, allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    finally:
        file.unlink(missing_ok=True)


@dataclass(frozen=True)
class SideRunner(Generic[RequestT, SinkT]):
    """Runs a simulator's requests here or in its worker, reporting to a sink.

    Parameters
    ----------
    label
        The simulator's name in messages (``Genesis failed``).
    worker
        The worker's module, started with ``python -m``.
    session
        The module of the session's ``run(request, sink, cancelled)``, the
        stack's side of the simulator's package: looked up only when the stack
        runs in this process.
    handlers
        The handlers of the worker's own events (``frame`` ...) for a sink.
    env
        What the worker's environment sets besides the usual.
    noise
        Which lines of the worker's standard error are warnings, never its
        last error.
    """

    label: str
    worker: str
    session: str
    handlers: Callable[[SinkT], Mapping[str, EventHandler]]
    env: Mapping[str, str] = field(default_factory=dict)
    noise: Callable[[str], bool] = lambda _line: False

    def __call__(
        self,
        request: RequestT,
        sink: SinkT,
        runtime: WhereItRuns,
        *,
        cancel: CancelToken | None = None,
        scratch: Path | None = None,
    ) -> RunOutcome:
        """Run ``request`` where ``runtime`` says, reporting to ``sink``.

        ``scratch`` is the folder the worker's frame files go under (default:
        the system's temporary folder). The worker is killed within about
        50 ms of a cancel.
        """
        if runtime.python is None:
            return self._run_here(request, sink, cancel)
        handlers = self.handlers(sink)
        return run_in_worker(
            runtime.python,
            self.worker,
            request.to_json(),
            lambda frames: self._dispatch(sink, handlers, frames),
            label=self.label,
            cancel=cancel,
            scratch=scratch,
            env=dict(self.env),
            noise=self.noise,
        )

    def _run_here(
        self, request: RequestT, sink: SinkT, cancel: CancelToken | None
    ) -> RunOutcome:
        def cancelled() -> bool:
            return cancel is not None and cancel.cancelled

        run: SessionRun[RequestT, SinkT] = importlib.import_module(self.session).run
        try:
            run(request, sink, cancelled)
        except Exception as exc:  # noqa: BLE001 - the stack's failures, reported whole
            return RunOutcome(error=clean_message(f"{type(exc).__name__}: {exc}"))
        return RunOutcome(cancelled=cancelled())

    def _dispatch(
        self, sink: SinkT, handlers: Mapping[str, EventHandler], folder: Path
    ) -> Dispatch:
        def dispatch(event: dict[str, Any]) -> str | None:
            """Hand one event on; return the error it reports, if any."""
            kind = event.get("event")
            if kind == "scene":
                sink.scene(dict(event.get("facts") or {}))
            elif kind == "error":
                message = clean_message(str(event.get("message", "")))
                return message or f"{self.label} failed"
            elif isinstance(kind, str) and kind in handlers:
                handlers[kind](event, folder)
            return None

        return dispatch
