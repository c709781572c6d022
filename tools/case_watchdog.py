"""The per-case watchdog of the fuzzer and of the hostile-input suite.

``tools/fuzz.py`` imports it by name (a script's folder is on ``sys.path``);
``tests/core/hostile/hostile_harness.py`` through ``tests/tool_scripts.py``.
A case that runs past its time gets :class:`CaseTimeoutError` raised in the
main thread by ``SIGALRM`` (``signal.setitimer``), so it must run there.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["CaseTimeoutError", "watchdog"]


class CaseTimeoutError(BaseException):
    """Raised in a case by the watchdog; a BaseException so no handler eats it."""


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeoutError` in the main thread after ``seconds``.

    The timer is disarmed and the previous ``SIGALRM`` handler restored on the
    way out, however the case ends.
    """

    def fire(signum: int, frame: object) -> None:
        raise CaseTimeoutError(f"case ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
