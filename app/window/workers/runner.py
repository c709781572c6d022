"""How jobs are started: on a thread pool, or inline (tests)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRunnable, QThreadPool

__all__ = ["Runner", "pool_runner", "run_inline"]

#: Starts a job; it may run now (inline) or later on another thread.
Runner = Callable[[QRunnable], None]


def pool_runner(pool: QThreadPool | None = None) -> Runner:
    """Return a runner that starts jobs on ``pool`` (the global pool by default)."""
    chosen = pool if pool is not None else QThreadPool.globalInstance()

    def start(job: QRunnable) -> None:
        chosen.start(job)

    return start


def run_inline(job: QRunnable) -> None:
    """Run ``job`` on the calling thread before returning."""
    job.run()
