"""Run long jobs on a plain Python thread, one at a time.

Replays and exports run for seconds and are Python from end to end
(simulation, writer, comparison, drawing). On a ``QThreadPool`` owned by the
window, PySide creates and tears down their Python thread state, and the pool
is destroyed (its threads joined in C++) whenever garbage collection frees a
closed window, on the GUI thread that holds the GIL; in the window tests that
showed as rare hangs with every thread waiting for the GIL. A
``threading.Thread`` keeps all of that in Python's hands: it holds its job
until ``run()`` has returned, and ``join`` releases the GIL while it waits.
"""

from __future__ import annotations

import threading
from typing import Protocol

__all__ = ["JobThread"]


class _Runnable(Protocol):
    def run(self) -> None:
        """Do the job and report its outcome through its signals."""


class JobThread:
    """Starts each job on a new daemon thread and waits for the last one."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._thread: threading.Thread | None = None

    def __call__(self, job: _Runnable) -> None:
        """Run ``job`` on its own thread (after the previous one has ended)."""
        self.wait(-1)
        self._thread = threading.Thread(target=job.run, name=self._name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """Whether a job's thread is still running."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout_ms: int) -> bool:
        """Wait up to ``timeout_ms`` (forever when negative); True when idle."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(None if timeout_ms < 0 else timeout_ms / 1000)
        return not thread.is_alive()
