"""Run one Genesis request here or in the worker, and hand its events to a sink.

:func:`run_request` calls :func:`.session.run` directly when Genesis imports
in this process (cancelled between frames), or starts :mod:`.worker` in the
interpreter of the :class:`~.availability.Runtime` and turns its event lines
back into the same calls (the frame arrays come through ``.npz`` files in a
private folder, read and deleted one by one). The child is killed within
about 50 ms of a cancel, even while Genesis compiles its kernels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulation.worker_process import RunOutcome, clean_message, run_in_worker
from fsr_core.simulators.genesis.availability import Runtime
from fsr_core.simulators.genesis.request import GenesisRequest
from fsr_core.simulators.genesis.session import FrameOut, Sink

__all__ = ["RunOutcome", "run_request"]

_WORKER: Final = "fsr_core.simulators.genesis.worker"


def _in_process(
    request: GenesisRequest, sink: Sink, cancel: CancelToken | None
) -> RunOutcome:
    # Imported here: the session module is Genesis's side of the package.
    from fsr_core.simulators.genesis.session import run

    def cancelled() -> bool:
        return cancel is not None and cancel.cancelled

    try:
        run(request, sink, cancelled)
    except Exception as exc:  # noqa: BLE001 - Genesis's failures, reported whole
        return RunOutcome(error=clean_message(f"{type(exc).__name__}: {exc}"))
    return RunOutcome(cancelled=cancelled())


def _frame(event: dict[str, Any], folder: Path) -> FrameOut:
    file = folder / Path(str(event["file"])).name
    names = [str(name) for name in event["names"]]
    try:
        with np.load(file, allow_pickle=False) as archive:
            arrays = {name: archive[f"a{k}"] for k, name in enumerate(names)}
            rgb = archive["rgb"] if "rgb" in archive.files else None
    finally:
        file.unlink(missing_ok=True)
    return FrameOut(
        index=int(event["index"]),
        steps=tuple(int(s) for s in event["steps"]),
        arrays=arrays,
        differences=tuple(event.get("differences") or ()),
        rgb=rgb,
        wall_s=float(event.get("wall_s", 0.0)),
    )


def _dispatch(event: dict[str, Any], sink: Sink, folder: Path) -> str | None:
    """Hand one event to ``sink``; return the error it reports, if any."""
    kind = event.get("event")
    if kind == "frame":
        sink.frame(_frame(event, folder))
    elif kind == "scene":
        sink.scene(dict(event.get("facts") or {}))
    elif kind == "stopped":
        sink.stopped(str(event.get("reason", "")))
    elif kind == "error":
        return clean_message(str(event.get("message", ""))) or "Genesis failed"
    return None


def run_request(
    request: GenesisRequest,
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
    return run_in_worker(
        runtime.python,
        _WORKER,
        request.to_json(),
        lambda frames: lambda event: _dispatch(event, sink, frames),
        label="Genesis",
        cancel=cancel,
        scratch=scratch,
        env={"QT_QPA_PLATFORM": "offscreen"},
        noise=lambda text: text.startswith("[W "),
    )
