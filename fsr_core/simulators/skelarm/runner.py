"""Run one request in skelarm's child interpreter (:mod:`.worker`) and wait for it.

The child is this same Python (where skelarm must import) started as
``python -m fsr_core.simulators.skelarm.worker REQUEST OUTPUT``. Waiting polls a
:class:`~fsr_core.simulation.protocol.CancelToken` and kills the child when it is
set, so a cancelled re-simulation stops within about 50 ms.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulators.skelarm.worker import EXIT_REFUSED

__all__ = ["ChildOutcome", "run_child", "write_request"]

_POLL_S = 0.05
_WORKER = "fsr_core.simulators.skelarm.worker"


@dataclass(frozen=True)
class ChildOutcome:
    """How the child ended."""

    status: int
    """Exit status (negative: killed by that signal)."""
    cancelled: bool
    message: str
    """The last line the child wrote to stderr, or what went wrong."""

    @property
    def refused(self) -> bool:
        """Whether skelarm itself refused the input."""
        return self.status == EXIT_REFUSED


def write_request(
    path: Path, kind: str, options: dict[str, Any], **members: Any
) -> Path:
    """Write the request archive the worker reads (no pickles: text and floats)."""
    payload: dict[str, Any] = {
        "kind": np.array(kind),
        "options": np.array(json.dumps(options, default=str)),
    }
    for key, value in members.items():
        payload[key] = np.array(value) if isinstance(value, str) else value
    with path.open("wb") as handle:
        np.savez(handle, **payload)
    return path


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_child(
    request: Path,
    output: Path,
    *,
    cancel: CancelToken | None = None,
    python: str | None = None,
) -> ChildOutcome:
    """Run the worker on ``request`` writing ``output``; kill it when cancelled."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    argv = [python or sys.executable, "-m", _WORKER, str(request), str(output)]
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    ) as child:
        while True:
            try:
                _, errors = child.communicate(timeout=_POLL_S)
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.cancelled:
                    child.kill()
                    child.communicate()
                    return ChildOutcome(child.returncode, True, "cancelled")
    return ChildOutcome(child.returncode, False, _last_line(errors or ""))
