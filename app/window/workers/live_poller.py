"""Poll a followed recording on a thread of its own, with a QTimer living there.

:class:`LivePoller` is moved to a ``QThread``; once the thread runs, its
timer polls the follower every :data:`POLL_MS` milliseconds, so reading what
was appended (and building the model of it) never blocks the GUI thread.
After a poll that added records or changed the state it keeps a fresh
model (:func:`~fsr_core.sources.live.live_model`) and the status, and
emits :attr:`LivePoller.ready` (queued to the GUI thread) unless an
earlier one is still waiting to be taken: the GUI takes the newest. A
final state (finished, cut, gone) stops the timer.
"""

from __future__ import annotations

import threading
from typing import Final

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel
from fsr_core.sources.live import Follower, FollowStatus, live_model

__all__ = ["POLL_MS", "LivePoller", "LiveThread"]

POLL_MS: Final = 100
"""Milliseconds between two polls of the followed file."""


class LivePoller(QObject):
    """Polls one follower from the thread it was moved to."""

    #: A newer model is ready (:meth:`take` it); not sent again until taken, so
    #: a busy GUI gets the newest model, never a backlog.
    ready = Signal()
    #: One line when a poll failed (the file cannot be read any more).
    failed = Signal(str)

    def __init__(self, follower: Follower, interval_ms: int = POLL_MS) -> None:
        super().__init__()
        self.follower = follower
        self._interval_ms = interval_ms
        self._timer: QTimer | None = None
        self._last: FollowStatus | None = None
        self._lock = threading.Lock()
        self._pending: tuple[RecordingModel, FollowStatus] | None = None

    def take(self) -> tuple[RecordingModel, FollowStatus] | None:
        """Return the newest model and status not taken yet (any thread)."""
        with self._lock:
            found, self._pending = self._pending, None
        return found

    @Slot()
    def begin(self) -> None:
        """Start the timer (runs in the poller's thread)."""
        self._timer = QTimer(self)
        self._timer.setInterval(self._interval_ms)
        self._timer.timeout.connect(self.poll)
        self._timer.start()
        self.poll()

    @Slot()
    def end(self) -> None:
        """Stop polling and release the file (runs in the poller's thread)."""
        if self._timer is not None:
            self._timer.stop()
        self.follower.close()

    @Slot()
    def poll(self) -> None:
        """Read what was appended; report a change."""
        try:
            added = self.follower.poll()
        except FsrError as exc:
            if self._timer is not None:
                self._timer.stop()
            self.failed.emit(str(exc))
            return
        status = added.status
        if added.records or status != self._last:
            self._last = status
            model = live_model(self.follower)
            with self._lock:
                waiting = self._pending is not None
                self._pending = (model, status)
            if not waiting:
                self.ready.emit()
        if status.state.final and self._timer is not None:
            self._timer.stop()


class LiveThread(QObject):
    """A poller and its thread: start, stop, and the poller's signals."""

    #: A stop request, delivered to the poller in its thread.
    _stop = Signal()

    def __init__(self, follower: Follower, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker_thread = QThread()
        self.worker_thread.setObjectName("fsr-live-poller")
        self.poller = LivePoller(follower)
        self.poller.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.poller.begin)
        self._stop.connect(self.poller.end, Qt.ConnectionType.BlockingQueuedConnection)

    def start(self) -> None:
        """Start polling."""
        self.worker_thread.start()

    def stop(self) -> None:
        """Stop polling, release the file and end the thread (blocks briefly)."""
        if self.worker_thread.isRunning():
            self._stop.emit()
            self.worker_thread.quit()
            self.worker_thread.wait(5000)
        else:
            self.poller.follower.close()
