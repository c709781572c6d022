"""Jobs run off the GUI thread: opening recordings, checking files, decoding frames.

Reading the channels a plot shows is one too. Every short job is a
``QRunnable`` carrying a small ``QObject`` of signals; who starts it passes a
:data:`Runner` (the global pool in the window, or :func:`run_inline` in
tests), so the same code runs threaded or synchronous. Long jobs with
progress and Cancel (export, replay, comparison) derive from
:class:`BackgroundJob` and run on a :class:`JobThread`, each started and
reported by a :class:`~app.window.job_controller.JobController`
(import it from its module). Every job turns an exception into its message
with :func:`error_message`.
"""

from __future__ import annotations

from app.window.workers.background_job import (
    BackgroundJob,
    BackgroundSignals,
    Ended,
    JobRunner,
)
from app.window.workers.error_message import error_message, naming_file
from app.window.workers.job_thread import JobThread
from app.window.workers.jobs import (
    ChannelJob,
    CheckJob,
    FrameJob,
    JobSignals,
    OpenJob,
    StatJob,
)
from app.window.workers.runner import Runner, pool_runner, run_inline

__all__ = [
    "BackgroundJob",
    "BackgroundSignals",
    "ChannelJob",
    "CheckJob",
    "Ended",
    "FrameJob",
    "JobRunner",
    "JobSignals",
    "JobThread",
    "OpenJob",
    "Runner",
    "StatJob",
    "error_message",
    "naming_file",
    "pool_runner",
    "run_inline",
]
