"""Keep finished jobs alive until their worker thread has really let go.

A job reports its end with a queued signal from inside ``run()``; the GUI
thread may handle it while the worker thread is still returning from
``run()``. Dropping the last Python reference then deletes the ``QRunnable``
(and its signals object) under the running thread: a crash or a hang. So a
finished job is retired here and released only once its pool is idle.
"""

from __future__ import annotations

from PySide6.QtCore import QRunnable, QThreadPool

__all__ = ["RetiredJobs"]


class RetiredJobs:
    """Finished jobs of one pool, released once the pool runs nothing."""

    def __init__(self, pool: QThreadPool) -> None:
        self._pool = pool
        self._jobs: list[QRunnable] = []

    def retire(self, job: QRunnable | None) -> None:
        """Hold ``job`` (it may still be returning from ``run()``); prune the rest."""
        self.prune()
        if job is not None:
            self._jobs.append(job)

    def prune(self) -> None:
        """Release every held job when no worker of the pool is running."""
        if self._pool.activeThreadCount() == 0:
            self._jobs.clear()

    def __len__(self) -> int:
        """Return how many finished jobs are held."""
        return len(self._jobs)
