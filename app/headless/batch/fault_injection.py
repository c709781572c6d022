"""Test-only faults, so the tests can see a worker crash, hang or grow.

Nothing happens unless the environment variable :data:`FAULTS_VARIABLE` is set;
no user-facing option sets it. Its value is a comma-separated list of
``fault:FILE_NAME`` pairs, and the work on an input of that file name then

- ``crash``: ends the worker process at once (``os._exit(70)``), as a
  segfault in a native library would;
- ``hang``: blocks forever, as a stalled read on a dead mount would;
- ``grow``: allocates memory in 32 MiB steps (up to 2 GiB, then blocks), as a
  decoding bomb would.

``tests/tools/test_batch.py`` and ``tests/tools/test_batch_ray.py`` set it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Final

__all__ = ["FAULTS_VARIABLE", "inject_test_fault"]

FAULTS_VARIABLE: Final = "FSR_VIEWER_BATCH_TEST_FAULTS"
"""The environment variable that names the test faults (tests only)."""

_CRASH_EXIT: Final = 70
_GROW_STEP: Final = 32 << 20
_GROW_CAP: Final = 2 << 30


def inject_test_fault(path: Path) -> None:
    """Crash, hang or grow when a test asked for it for ``path``'s file name."""
    wanted = os.environ.get(FAULTS_VARIABLE, "")
    if not wanted:
        return
    for pair in wanted.split(","):
        fault, _, name = pair.partition(":")
        if name == path.name:
            _inject(fault)


def _inject(fault: str) -> None:
    if fault == "crash":
        os._exit(_CRASH_EXIT)
    if fault == "grow":
        held = [b"\1" * _GROW_STEP for _ in range(_GROW_CAP // _GROW_STEP)]
        threading.Event().wait()  # holding them: the watchdog sees them in use
        del held
    if fault == "hang":
        threading.Event().wait()
