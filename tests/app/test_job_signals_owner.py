"""A job's signals object is deleted on the GUI thread, whoever drops the job last.

The pool drops a finished job on its worker thread, often after the window
has let go of it. A ``QObject`` of the GUI thread destroyed on a worker races
the GUI's event queue (the window could freeze with the job done), so the
signals object belongs to the application and is deleted on the GUI thread
once its reports are delivered.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool
from pytestqt.qtbot import QtBot

from app.window.workers import BackgroundJob, JobThread
from app.window.workers.jobs import StatJob

pytestmark = pytest.mark.gui


def _deleted_on(qtbot: QtBot, signals: object) -> list[int]:
    threads: list[int] = []
    signals.destroyed.connect(  # type: ignore[attr-defined]
        lambda *_: threads.append(threading.get_ident())
    )
    return threads


class _HeldStat(StatJob):
    """A stat job that waits, so the test lets go of it while it runs."""

    def __init__(self, number: int, path: Path, go: threading.Event) -> None:
        super().__init__(number, path)
        self._go = go

    def work(self) -> object:
        self._go.wait(5.0)
        return super().work()


def test_a_pool_job_dropped_while_it_runs_has_its_signals_deleted_on_the_gui_thread(
    qtbot: QtBot, tmp_path: Path
) -> None:
    heard: list[object] = []
    deleted: list[int] = []
    for number in range(5):
        go = threading.Event()
        job = _HeldStat(number, tmp_path, go)
        job.signals.finished.connect(lambda _id, result: heard.append(result))
        threads = _deleted_on(qtbot, job.signals)
        QThreadPool.globalInstance().start(job)
        del job  # the window lets go first: the worker holds the last reference
        go.set()
        qtbot.waitUntil(lambda threads=threads: bool(threads), timeout=5000)
        deleted.append(threads[0])

    qtbot.waitUntil(lambda: len(heard) == 5, timeout=5000)
    assert set(deleted) == {threading.get_ident()}


def test_a_thread_job_reports_then_its_signals_go_on_the_gui_thread(
    qtbot: QtBot,
) -> None:
    class Done(BackgroundJob):
        def work(self) -> object:
            return "done"

    job = Done((Path("run.fsr"),))
    threads = _deleted_on(qtbot, job.signals)
    with qtbot.waitSignal(job.signals.finished, timeout=5000):
        JobThread("fsr-test-owner")(job)
    del job
    qtbot.waitUntil(lambda: bool(threads), timeout=5000)

    assert threads == [threading.get_ident()]
