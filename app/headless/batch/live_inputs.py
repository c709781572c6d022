"""Recordings still being written: refused by ``batch``, or waited for with ``--wait``.

The rule of "still being written" is
:func:`fsr_core.sources.live.still_being_written` (an FSR writer's staging
file beside the name, or a followed kind whose end is not written and that
changed in the last few seconds). Without ``--wait`` such an item fails
before any worker starts, saying why; with it, the batch first waits until
every such writer has finished (or stopped: a file that no longer changes
counts as finished, as a crashed writer's file is opened by recovery).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Final

from app.headless.batch.items import WorkItem
from fsr_core.sources.live import still_being_written

__all__ = ["POLL_S", "check_live_inputs"]

POLL_S: Final = 0.5
"""Seconds between two looks at a file ``--wait`` waits for."""


def _to_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def check_live_inputs(
    items: list[WorkItem],
    *,
    wait: bool,
    say: Callable[[str], None] | None = None,
    pause: Callable[[float], None] = time.sleep,
) -> list[WorkItem]:
    """Return ``items`` with the ones still being written refused, or waited for."""
    tell = say or _to_stderr
    checked: list[WorkItem] = []
    for item in items:
        reason = "" if item.problem else still_being_written(item.input)
        if reason and not wait:
            item = dataclasses.replace(
                item,
                problem=f"{item.input}: still being written ({reason}); "
                "pass --wait to wait for its writer",
            )
        elif reason:
            tell(f"fsr-viewer: waiting for {item.input}: {reason}")
            while still_being_written(item.input):
                pause(POLL_S)
        checked.append(item)
    return checked
