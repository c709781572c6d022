"""Garbage collection on the GUI thread, and only while no job runs.

Python's cyclic garbage collector runs on whichever thread happens to
allocate when a generation's count passes its threshold. In the window that
can be a job's thread, which then destroys ``QObject``s caught in reference
cycles that belong to the GUI thread (a deadlock: each thread holds what the
other waits for), or the GUI thread while a job's thread is still tearing
down objects of its own (a crash). So while the window runs,
:class:`GuiCollector` turns the automatic collector off and collects itself
from a timer on the GUI thread, the generations CPython would have chosen
by the same thresholds, whenever no job is inside its ``run`` (every job
base enters :func:`job_running` for the length of its work). Work done
while jobs run is only delayed: the next idle tick collects it.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

from PySide6.QtCore import QObject, QThreadPool, QTimer

__all__ = ["GuiCollector", "job_running", "jobs_running"]

#: How often the GUI thread looks at the collector's counts.
TICK_MS = 250

_lock = threading.Lock()
_running = 0


@contextlib.contextmanager
def job_running() -> Iterator[None]:
    """Mark the calling thread's job as running for the length of the block."""
    global _running
    with _lock:
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1


def jobs_running() -> int:
    """How many jobs are inside :func:`job_running` now."""
    return _running


def _generation_due() -> int | None:
    """Return the oldest generation whose count passed its threshold, if any."""
    counts = gc.get_count()
    thresholds = gc.get_threshold()
    due: int | None = None
    for generation, (count, threshold) in enumerate(
        zip(counts, thresholds, strict=False)
    ):
        if threshold <= 0 or count <= threshold:
            break
        due = generation
    return due


class GuiCollector(QObject):
    """Collects garbage from a GUI-thread timer while no job runs.

    :meth:`install` turns the automatic collector off (remembering whether
    it was on); :meth:`uninstall` collects once and restores it.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.tick)
        self._was_enabled: bool | None = None
        self.collections = 0

    @property
    def installed(self) -> bool:
        """Whether this collector has turned the automatic one off."""
        return self._was_enabled is not None

    def install(self) -> None:
        """Turn automatic collection off and start collecting from the timer."""
        if self._was_enabled is None:
            self._was_enabled = gc.isenabled()
            gc.disable()
        self._timer.start()

    def uninstall(self) -> None:
        """Stop the timer, collect what is left and restore the collector."""
        self._timer.stop()
        if self._was_enabled is None:
            return
        was_enabled, self._was_enabled = self._was_enabled, None
        if self.idle():
            gc.collect()
        if was_enabled:
            gc.enable()

    @staticmethod
    def idle() -> bool:
        """Whether no job runs: none inside its work, no pool thread busy."""
        if jobs_running():
            return False
        return QThreadPool.globalInstance().activeThreadCount() == 0

    def tick(self) -> int | None:
        """Collect the generation that is due, if no job runs; return it."""
        if not self.idle():
            return None
        generation = _generation_due()
        if generation is None:
            return None
        gc.collect(generation)
        self.collections += 1
        return generation
