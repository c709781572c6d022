"""SIGINT and SIGTERM stop a headless command cleanly (docs/robustness.md, Cancel).

Inside :func:`stop_on_signals`, the first SIGINT (Ctrl-C) or SIGTERM raises
:class:`StopRequested` in the main thread. It is a ``BaseException``, so no
``except Exception`` swallows it, and it unwinds through every writer and
export, whose cleanup removes their staging or partial file (``FsrWriter``,
``atomic_output``). Further SIGINT and SIGTERM are ignored while that cleanup
runs, so a second signal cannot leave a half-written file behind (SIGKILL still
ends the process). The command line prints one line and exits
:data:`EXIT_SIGINT` (130) or :data:`EXIT_SIGTERM` (143), the shell's
``128 + signal`` codes.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = [
    "EXIT_SIGINT",
    "EXIT_SIGTERM",
    "StopRequested",
    "exit_code",
    "stop_message",
    "stop_on_signals",
]

EXIT_SIGINT = 128 + signal.SIGINT
"""130: the command was stopped by Ctrl-C."""
EXIT_SIGTERM = 128 + signal.SIGTERM
"""143: the command was stopped by SIGTERM."""

_STOPPING = (signal.SIGINT, signal.SIGTERM)

_Handler = Callable[[int, FrameType | None], object] | int | None


class StopRequested(BaseException):
    """A signal asked the command to stop; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(signum: int) -> int:
    """Return the exit status of a command stopped by ``signum`` (128 + signum)."""
    return 128 + signum


def stop_message(signum: int) -> str:
    """Return the one line a stopped command prints (without the program name)."""
    name = signal.Signals(signum).name
    how = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else name
    return f"stopped by {how}; unfinished output removed, nothing half-written left"


_RECEIVED: list[int] = []
"""The stopping signals received so far (the first one decides)."""


def _stop(signum: int, frame: FrameType | None) -> None:
    for other in _STOPPING:
        signal.signal(other, signal.SIG_IGN)
    _RECEIVED.append(signum)
    raise StopRequested(signum)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM raise :class:`StopRequested` (main thread).

    Outside the main thread (a test runner, the window's job thread) nothing
    changes: signals are delivered to the main thread only.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A new command: a signal an earlier one was stopped by is not this one's.
    _RECEIVED.clear()
    previous: dict[int, _Handler] = {}
    for signum in _STOPPING:
        previous[signum] = signal.signal(signum, _stop)
    try:
        yield
    except StopRequested:
        raise  # stay deaf to more signals until the process has said why it ends
    except BaseException as exc:
        if _RECEIVED:
            # Raised inside a C extension (an encoder's write callback), the stop
            # can come out as another error (SystemError): it is still the stop.
            raise StopRequested(_RECEIVED[0]) from exc
        _restore(previous)
        raise
    else:
        _restore(previous)


def _restore(previous: dict[int, _Handler]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
