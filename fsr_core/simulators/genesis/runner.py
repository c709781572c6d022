"""Run one Genesis request here or in the worker, and hand its events to a sink.

:func:`run_request` calls :func:`.session.run` directly when Genesis imports
in this process (cancelled between frames), or starts :mod:`.worker` in the
interpreter of the :class:`~.availability.Runtime` and turns its event lines
back into the same calls (the frame arrays come through ``.npz`` files in a
private folder, read and deleted one by one). The child is killed within
about 50 ms of a cancel, even while Genesis compiles its kernels. What the
two ways share with robosuite's is :mod:`fsr_core.simulation.side_runner`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.simulation.side_runner import EventHandler, SideRunner, frame_members
from fsr_core.simulation.worker_process import RunOutcome
from fsr_core.simulators.genesis.request import GenesisRequest
from fsr_core.simulators.genesis.session import FrameOut, Sink

__all__ = ["RunOutcome", "run_request"]


def _frame(event: dict[str, Any], folder: Path) -> FrameOut:
    members = frame_members(event, folder)
    names = [str(name) for name in event["names"]]
    return FrameOut(
        index=int(event["index"]),
        steps=tuple(int(s) for s in event["steps"]),
        arrays={name: members[f"a{k}"] for k, name in enumerate(names)},
        differences=tuple(event.get("differences") or ()),
        rgb=members.get("rgb"),
        wall_s=float(event.get("wall_s", 0.0)),
    )


def _handlers(sink: Sink) -> dict[str, EventHandler]:
    return {
        "frame": lambda event, folder: sink.frame(_frame(event, folder)),
        "stopped": lambda event, _folder: sink.stopped(str(event.get("reason", ""))),
    }


run_request: Final = SideRunner[GenesisRequest, Sink](
    label="Genesis",
    worker="fsr_core.simulators.genesis.worker",
    session="fsr_core.simulators.genesis.session",
    handlers=_handlers,
    env={"QT_QPA_PLATFORM": "offscreen"},
    noise=lambda text: text.startswith("[W "),
)
"""Run a request where the runtime says (:class:`~.availability.Runtime`)."""
