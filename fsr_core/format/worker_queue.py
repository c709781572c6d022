"""The bounded queue between a producer and its worker thread.

:class:`~fsr_core.format.writer.FsrWriter` hands records to its writing
thread, and the app's video encoder hands frames to its codec thread, through
a ``queue.Queue`` with a ``maxsize``, so memory stays bounded while the worker
is slower. A producer blocked on a full queue must still learn that the
worker failed (it will never take another item), and a failed worker empties
the queue so a blocked producer wakes up: :func:`put_watched` and
:func:`drain`.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Final, TypeVar

__all__ = ["WATCH_EVERY_S", "drain", "put_watched"]

T = TypeVar("T")

#: How often a producer waiting on a full queue asks whether the worker failed.
WATCH_EVERY_S: Final = 0.1


def put_watched(items: queue.Queue[T], item: T, check: Callable[[], None]) -> None:
    """Put ``item`` on ``items``, waiting while it is full.

    ``check`` runs before every try (at least every :data:`WATCH_EVERY_S`):
    it raises the worker's failure, which ends the wait.
    """
    while True:
        check()
        try:
            items.put(item, timeout=WATCH_EVERY_S)
        except queue.Full:
            continue
        return


def drain(items: queue.Queue[T]) -> None:
    """Take every item off ``items`` without waiting (wakes a blocked producer)."""
    while True:
        try:
            items.get_nowait()
        except queue.Empty:
            return
