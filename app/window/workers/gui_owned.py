"""Signal holders that only the GUI thread ever deletes.

A job's signals object (a ``QObject`` living on the GUI thread) used to be
deleted wherever its last Python reference went: often the worker thread,
when the pool dropped the finished job after the GUI thread had let go of
it. A ``QObject`` destroyed off its own thread races the GUI thread's event
queue, and the two threads could deadlock, each holding what the other
waited for (the GIL and Qt's event lock): the window froze with the job done.

So a signals object is made with the application as its parent (the C++
side then owns it, not the Python reference) and, when its job has
reported, :func:`retire` schedules its deletion on the GUI thread, after the
reports already queued there.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QCoreApplication, QObject

__all__ = ["gui_parent", "retire"]


def gui_parent() -> QObject | None:
    """Return the parent a job's signals object gets: the application, if any."""
    return QCoreApplication.instance()


def retire(signals: QObject) -> None:
    """Delete ``signals`` on its own thread once the queued reports are delivered."""
    with contextlib.suppress(RuntimeError):  # already deleted (quitting)
        signals.deleteLater()
