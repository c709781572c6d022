"""Jobs run off the GUI thread: opening recordings, checking files, decoding frames.

Every job is a ``QRunnable`` carrying a small ``QObject`` of signals; who
starts it passes a :data:`Runner` (the global pool in the window, or
:func:`run_inline` in tests), so the same code runs threaded or synchronous.
"""

from __future__ import annotations

from app.window.workers.jobs import CheckJob, FrameJob, JobSignals, OpenJob, StatJob
from app.window.workers.runner import Runner, pool_runner, run_inline

__all__ = [
    "CheckJob",
    "FrameJob",
    "JobSignals",
    "OpenJob",
    "Runner",
    "StatJob",
    "pool_runner",
    "run_inline",
]
