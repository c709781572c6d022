"""The loop of one local worker process: take an item, run it, send the result.

The worker ignores SIGINT (Ctrl-C reaches the whole process group; the driver
decides how to stop) and turns SIGTERM into
:class:`~app.headless.signals.StopRequested`, so a stopped worker unwinds
through the writers, which remove their unfinished files. ``None`` or a closed
pipe ends the loop.
"""

from __future__ import annotations

import os
import signal
from multiprocessing.connection import Connection

from app.headless.batch.work import run_item
from app.headless.signals import StopRequested, stop_on_signals

__all__ = ["serve"]


def serve(connection: Connection, environment: dict[str, str]) -> None:
    """Run the items the driver sends until it sends ``None`` or goes away.

    ``environment`` is the driver's when it started the worker (the fork
    server that made this process may have started long before).
    """
    os.environ.clear()
    os.environ.update(environment)
    try:
        with stop_on_signals():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            while True:
                try:
                    message = connection.recv()
                except (EOFError, OSError):
                    return
                if message is None:
                    return
                item, options = message
                connection.send(run_item(item, options))
    except StopRequested:
        return  # stopped by the driver: the writers have cleaned up
