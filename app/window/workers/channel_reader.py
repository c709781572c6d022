"""Read channels off the GUI thread, the latest request winning.

The plots and the side panel show channels a source reads only when shown
(an MCAP topic, a Genesis field). :class:`ChannelReader` reads them in a
:class:`~app.window.workers.jobs.ChannelJob` and calls back once on the GUI
thread; a request made (or :meth:`forget` called) meanwhile makes the older
one's result go unheard, so a view never redraws for a file or a choice it
no longer shows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.window.workers.jobs import ChannelJob
from app.window.workers.runner import Runner
from fsr_core.recording import Channel

__all__ = ["ChannelReader"]


class ChannelReader:
    """Runs one channel read at a time for a view; calls ``done`` when it lands."""

    def __init__(self, runner: Runner, done: Callable[[], None]) -> None:
        self._runner = runner
        self._done = done
        self._request_id = 0
        self._waiting: int | None = None
        self._jobs: dict[int, ChannelJob] = {}  # kept alive until they report

    @property
    def idle(self) -> bool:
        """Whether no read is awaited."""
        return self._waiting is None

    def read(self, path: Path, channels: tuple[Channel, ...]) -> None:
        """Read ``channels`` of the file at ``path``; an awaited read goes unheard."""
        self._request_id += 1
        self._waiting = self._request_id
        job = ChannelJob(self._request_id, path, channels)
        job.signals.finished.connect(self._on_read)
        job.signals.failed.connect(self._on_read)
        self._jobs[self._request_id] = job
        self._runner(job)

    def forget(self) -> None:
        """Stop awaiting the read running (it is for an earlier choice)."""
        self._waiting = None

    def _on_read(self, request_id: int, _: object) -> None:
        self._jobs.pop(request_id, None)
        if request_id != self._waiting:
            return  # another file, or another choice, meanwhile
        self._waiting = None
        self._done()
