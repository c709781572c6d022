"""The base of export, replay and comparison jobs: what the window hears from them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import SignalInstance
from pytestqt.qtbot import QtBot

from app.window.workers import BackgroundJob, Ended, JobThread, error_message
from fsr_core.errors import CorruptRecordError, FsrError

pytestmark = pytest.mark.gui

SOURCE = Path("/data/takes/run.fsr")
OUTPUT = Path("/data/videos/run.mp4")


class _Job(BackgroundJob):
    """A job whose work is given by the test."""

    def __init__(self, work: Callable[[BackgroundJob], object]) -> None:
        super().__init__((SOURCE, OUTPUT))
        self._work = work

    def work(self) -> object:
        return self._work(self)


def _on_a_thread(
    qtbot: QtBot, job: BackgroundJob, signal: SignalInstance
) -> list[object]:
    """Run ``job`` on its own thread; return the args of ``signal`` and its thread."""
    heard: list[object] = []
    signal.connect(lambda *args: heard.append(threading.current_thread()))
    thread = JobThread("fsr-test-job")
    with qtbot.waitSignal(signal, timeout=10_000) as done:
        thread(job)
    assert thread.wait(10_000)
    assert heard == [threading.main_thread()]
    return list(done.args)


def test_a_result_arrives_on_the_gui_thread(qtbot: QtBot) -> None:
    job = _Job(lambda _: {"frames": 12})

    assert _on_a_thread(qtbot, job, job.signals.finished) == [{"frames": 12}]


def test_a_bug_is_one_line_naming_the_file_and_its_traceback_is_logged(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_: BackgroundJob) -> object:
        return 1 / 0

    job = _Job(broken)
    with caplog.at_level(logging.ERROR):
        (message,) = _on_a_thread(qtbot, job, job.signals.failed)

    assert message == "run.fsr: internal error (ZeroDivisionError: division by zero)"
    assert "Traceback" in caplog.text
    assert "1 / 0" in caplog.text


def test_a_data_problem_is_its_own_words_without_internal_error(qtbot: QtBot) -> None:
    def damaged(_: BackgroundJob) -> object:
        raise CorruptRecordError("checksum mismatch", path=SOURCE, record=7)

    job = _Job(damaged)

    (message,) = _on_a_thread(qtbot, job, job.signals.failed)
    assert message == f"{SOURCE}: checksum mismatch (record 7)"


def test_cancel_is_heard_between_steps_and_ends_as_cancelled(qtbot: QtBot) -> None:
    started = threading.Event()
    proceed = threading.Event()

    def steps(job: BackgroundJob) -> object:
        started.set()
        proceed.wait(10)
        if job.cancel_requested:
            return Ended("export cancelled, nothing written")
        return "done"

    job = _Job(steps)
    thread = JobThread("fsr-test-job")
    with qtbot.waitSignal(job.signals.cancelled, timeout=10_000) as done:
        thread(job)
        assert started.wait(10)
        job.cancel()
        proceed.set()
    assert thread.wait(10_000)
    assert done.args == ["export cancelled, nothing written"]


def test_work_that_ends_failed_names_the_file() -> None:
    job = _Job(lambda _: Ended("the simulator diverged at tick 12", failed=True))
    failed: list[str] = []
    job.signals.failed.connect(failed.append)

    job.run()

    assert failed == ["run.fsr: the simulator diverged at tick 12"]


def test_progress_is_thinned_but_the_last_step_always_reports() -> None:
    def counting(job: BackgroundJob) -> object:
        for done in range(1, 1001):
            job.report_progress(done, 1000)
        return None

    job = _Job(counting)
    reports: list[tuple[int, int]] = []
    job.signals.progress.connect(lambda done, total: reports.append((done, total)))

    job.run()

    assert reports[0] == (1, 1000)
    assert reports[-1] == (1000, 1000)
    assert len(reports) < 1000


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (FsrError("cannot read the header"), "run.fsr: cannot read the header"),
        (MemoryError(), "run.fsr: out of memory"),
        (
            ValueError(f"{OUTPUT}: --end 9 is past the end"),
            f"{OUTPUT}: --end 9 is past the end",
        ),
    ],
)
def test_one_helper_words_every_error(exc: Exception, expected: str) -> None:
    assert (
        error_message(exc, files=(SOURCE, OUTPUT), expected=(ValueError,)) == expected
    )
