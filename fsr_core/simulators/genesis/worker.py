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

from collections.abc import Sequence
from typing import Any

from fsr_core.simulation.side_worker import EventWriter, serve
from fsr_core.simulation.worker_main import EXIT_BAD_REQUEST, EXIT_REFUSED
from fsr_core.simulators.genesis.request import GenesisRequest, RequestError
from fsr_core.simulators.genesis.session import FrameOut, run

__all__ = ["EXIT_BAD_REQUEST", "EXIT_REFUSED", "main"]


class _Reporter(EventWriter):
    """A :class:`~.session.Sink` that writes events and frame files."""

    def stopped(self, reason: str) -> None:
        self.send({"event": "stopped", "reason": reason})

    def frame(self, frame: FrameOut) -> None:
        names = list(frame.arrays)
        members: dict[str, Any] = {
            f"a{k}": frame.arrays[name] for k, name in enumerate(names)
        }
        if frame.rgb is not None:
            members["rgb"] = frame.rgb
        self.write_frame(
            frame.index,
            members,
            steps=list(frame.steps),
            names=names,
            differences=list(frame.differences),
            wall_s=frame.wall_s,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one request; return the exit status (see the module docstring)."""
    return serve(argv, GenesisRequest.from_json, RequestError, _Reporter, run)


if __name__ == "__main__":
    raise SystemExit(main())
