"""Run one robosuite request here or in the worker, and hand its events to a sink.

:func:`run_request` calls :func:`.session.run` directly when robosuite
imports in this process (cancelled between frames), or starts :mod:`.worker`
in the interpreter of the :class:`~.availability.Runtime` and turns its event
lines back into the same calls (each frame's arrays come through an ``.npz``
file in a private folder, read and deleted one by one). The child is killed
within about 50 ms of a cancel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulation.worker_process import RunOutcome, clean_message, run_in_worker
from fsr_core.simulators.robosuite.availability import Runtime
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.session import CameraPoseOut, FrameOut, Sink

__all__ = ["RunOutcome", "clean_message", "run_request"]

_WORKER: Final = "fsr_core.simulators.robosuite.worker"
_IMAGE: Final = "image."


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
    return run_in_worker(
        runtime.python,
        _WORKER,
        request.to_json(),
        lambda frames: lambda event: _dispatch(event, sink, frames),
        label="robosuite",
        cancel=cancel,
        scratch=scratch,
        env=None,
        noise=lambda text: "WARNING" in text or "INFO" in text,
    )
