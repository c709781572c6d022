"""Run one robosuite request here or in the worker, and hand its events to a sink.

:func:`run_request` calls :func:`.session.run` directly when robosuite
imports in this process (cancelled between frames), or starts :mod:`.worker`
in the interpreter of the :class:`~.availability.Runtime` and turns its event
lines back into the same calls (each frame's arrays come through an ``.npz``
file in a private folder, read and deleted one by one). The child is killed
within about 50 ms of a cancel. What the two ways share with Genesis's is
:mod:`fsr_core.simulation.side_runner`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.simulation.side_runner import EventHandler, SideRunner, frame_members
from fsr_core.simulation.worker_process import RunOutcome, clean_message
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.session import CameraPoseOut, FrameOut, Sink

__all__ = ["RunOutcome", "clean_message", "run_request"]

_IMAGE: Final = "image."


def _pose(value: Any) -> CameraPoseOut:
    position = tuple(float(v) for v in value["position"])
    rotation = tuple(tuple(float(v) for v in row) for row in value["rotation"])
    return CameraPoseOut(position, rotation)


def _frame(event: dict[str, Any], folder: Path) -> FrameOut:
    members = frame_members(event, folder)
    poses = {str(k): _pose(v) for k, v in dict(event.get("poses") or {}).items()}
    return FrameOut(
        index=int(event["index"]),
        state=np.asarray(members["state"], dtype=np.float64),
        images={
            key[len(_IMAGE) :]: value
            for key, value in members.items()
            if key.startswith(_IMAGE)
        },
        poses=poses,
        wall_s=float(event.get("wall_s", 0.0)),
    )


def _handlers(sink: Sink) -> dict[str, EventHandler]:
    return {"frame": lambda event, folder: sink.frame(_frame(event, folder))}


run_request: Final = SideRunner[RobosuiteRequest, Sink](
    label="robosuite",
    worker="fsr_core.simulators.robosuite.worker",
    session="fsr_core.simulators.robosuite.session",
    handlers=_handlers,
    noise=lambda text: "WARNING" in text or "INFO" in text,
)
"""Run a request where the runtime says (:class:`~.availability.Runtime`)."""
