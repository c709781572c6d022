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
from collections.abc import Sequence
from typing import Any

from fsr_core.simulation.side_worker import EventWriter, serve
from fsr_core.simulators.robosuite.request import RequestError, RobosuiteRequest
from fsr_core.simulators.robosuite.session import FrameOut, run

__all__ = ["main"]


class _Reporter(EventWriter):
    """A :class:`~.session.Sink` that writes events and frame files."""

    def frame(self, frame: FrameOut) -> None:
        members: dict[str, Any] = {"state": frame.state}
        for name, image in frame.images.items():
            members[f"image.{name}"] = image
        poses = {key: dataclasses.asdict(pose) for key, pose in frame.poses.items()}
        self.write_frame(frame.index, members, poses=poses, wall_s=frame.wall_s)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one request; return the exit status (see the module docstring)."""
    return serve(argv, RobosuiteRequest.from_json, RequestError, _Reporter, run)


if __name__ == "__main__":
    raise SystemExit(main())
