"""The window collects garbage on the GUI thread, and never while a job runs."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.window.workers import BackgroundJob, JobThread
from app.window.workers.collector import GuiCollector, job_running, jobs_running


class _Node:
    """An object that keeps itself alive through a reference cycle."""

    def __init__(self) -> None:
        self.me = self


def _garbage_cycle() -> weakref.ref[_Node]:
    """Make a cycle nobody references and return a weak reference to it."""
    return weakref.ref(_Node())


def _pass_first_threshold() -> list[object]:
    """Allocate enough container objects that generation 0 is due."""
    return [[] for _ in range(gc.get_threshold()[0] + 10)]


@pytest.fixture
def collector(qapp: QApplication) -> Iterator[GuiCollector]:
    was_enabled = gc.isenabled()
    gc.enable()
    made = GuiCollector()
    made.install()
    try:
        yield made
    finally:
        made.uninstall()
        made.deleteLater()
        if not was_enabled:
            gc.disable()


def test_install_turns_the_automatic_collector_off_and_back(
    collector: GuiCollector,
) -> None:
    assert not gc.isenabled()
    collector.uninstall()
    assert gc.isenabled()
    assert not collector.installed


def test_an_idle_tick_collects_a_due_cycle(collector: GuiCollector) -> None:
    cycle = _garbage_cycle()
    keep = _pass_first_threshold()
    assert cycle() is not None  # automatic collection is off
    assert collector.tick() is not None
    assert cycle() is None
    del keep


def test_nothing_is_collected_while_a_job_runs(collector: GuiCollector) -> None:
    entered = threading.Event()
    release = threading.Event()

    def job() -> None:
        with job_running():
            entered.set()
            release.wait(10)

    worker = threading.Thread(target=job)
    worker.start()
    try:
        assert entered.wait(10)
        cycle = _garbage_cycle()
        keep = _pass_first_threshold()
        assert collector.tick() is None
        assert cycle() is not None
    finally:
        release.set()
        worker.join(10)
    assert jobs_running() == 0
    assert collector.tick() is not None
    assert cycle() is None
    del keep


class _BlockingJob(BackgroundJob):
    def __init__(self) -> None:
        super().__init__((Path("take.fsr"),))
        self.entered = threading.Event()
        self.release = threading.Event()

    def work(self) -> object:
        self.entered.set()
        self.release.wait(10)
        return "done"


def test_a_background_job_holds_the_collector_off_until_it_ends(
    collector: GuiCollector,
) -> None:
    job = _BlockingJob()
    finished: list[object] = []
    job.signals.finished.connect(finished.append)
    thread = JobThread("test-job")
    thread(job)
    try:
        assert job.entered.wait(10)
        cycle = _garbage_cycle()
        keep = _pass_first_threshold()
        assert not collector.idle()
        assert collector.tick() is None
        assert cycle() is not None
    finally:
        job.release.set()
        assert thread.wait(10_000)
    QApplication.processEvents()
    assert finished == ["done"]
    assert collector.idle()
    assert collector.tick() is not None
    assert cycle() is None
    del keep
