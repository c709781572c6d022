"""The base of the window's long background jobs: progress, cancel, one outcome.

Exports, replays and comparisons run for seconds on a plain Python thread
(:class:`~app.window.workers.job_thread.JobThread`). A job reports through
its :class:`BackgroundSignals`, made on the GUI thread with the job, so
every report is queued to the GUI thread: ``stage(text)`` when the work
changes phase, ``progress(done, total)`` at most every ``PROGRESS_EVERY_S``
(and for the last step), then exactly one of ``finished(result)``,
``cancelled(message)`` or ``failed(message)``. :meth:`BackgroundJob.cancel`
may be called from any thread; the work asks
:attr:`~BackgroundJob.cancel_requested` between its steps. An exception never
escapes :meth:`~BackgroundJob.run`: it becomes the ``failed`` message
(:func:`~app.window.workers.error_message.error_message`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import QObject, Signal

from app.window.workers.collector import job_running
from app.window.workers.error_message import error_message, naming_file
from app.window.workers.gui_owned import gui_parent, retire

__all__ = [
    "PROGRESS_EVERY_S",
    "BackgroundJob",
    "BackgroundSignals",
    "Ended",
    "JobRunner",
]

#: The least time between two progress reports (the last step always reports).
PROGRESS_EVERY_S = 0.05


class BackgroundSignals(QObject):
    """What a background job reports (emitted on its thread, received on the GUI's).

    Owned by the application and deleted on the GUI thread
    (:mod:`~app.window.workers.gui_owned`), never by the job's thread.
    """

    stage = Signal(str)
    progress = Signal(int, int)
    finished = Signal(object)
    cancelled = Signal(str)
    failed = Signal(str)

    def __init__(self) -> None:
        super().__init__(gui_parent())


@dataclass(frozen=True)
class Ended:
    """Work that ended without a result: cancelled, or failed with a message."""

    message: str
    failed: bool = False


class BackgroundJob:
    """Runs :meth:`work` and turns its outcome into exactly one signal.

    ``files`` are what the job is about, the first named in a message that
    names none. Subclasses set :attr:`expected_errors` (shown as the user's
    problem, like :class:`~fsr_core.errors.FsrError`) and
    :attr:`cancelled_errors` (the work stopped on request).
    """

    expected_errors: ClassVar[tuple[type[Exception], ...]] = ()
    cancelled_errors: ClassVar[tuple[type[Exception], ...]] = ()

    def __init__(self, files: tuple[Path, ...]) -> None:
        self.files = files
        self.signals = BackgroundSignals()
        self._stop = threading.Event()
        self._last_report_s = float("-inf")

    def cancel(self) -> None:
        """Ask the work to stop at its next step (any thread)."""
        self._stop.set()

    @property
    def cancel_requested(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._stop.is_set()

    def work(self) -> object:
        """Do the job; return its result or an :class:`Ended` (overridden)."""
        raise NotImplementedError

    def run(self) -> None:
        """Run :meth:`work` on the calling thread; report its outcome once."""
        with job_running():
            try:
                outcome = self.work()
            except self.cancelled_errors as exc:
                self.signals.cancelled.emit(str(exc))
            except Exception as exc:  # noqa: BLE001 - a worker boundary: report, never crash the UI
                message = error_message(
                    exc, files=self.files, expected=self.expected_errors
                )
                self.signals.failed.emit(message)
            else:
                if not isinstance(outcome, Ended):
                    self.signals.finished.emit(outcome)
                elif outcome.failed:
                    self.signals.failed.emit(naming_file(outcome.message, self.files))
                else:
                    self.signals.cancelled.emit(outcome.message)
            finally:
                retire(self.signals)

    def report_stage(self, text: str) -> None:
        """Say that the work moved on to ``text`` (any thread)."""
        self.signals.stage.emit(text)

    def report_progress(self, done: int, total: int) -> None:
        """Report ``done`` of ``total`` steps, at most every ``PROGRESS_EVERY_S``."""
        now_s = time.monotonic()
        if done < total and now_s - self._last_report_s < PROGRESS_EVERY_S:
            return
        self._last_report_s = now_s
        self.signals.progress.emit(done, total)


#: Starts a background job (a :class:`JobThread`, or ``BackgroundJob.run`` inline).
JobRunner = Callable[[BackgroundJob], None]
