"""``batch check``: the dataset episodes checked together, before the workers start.

The numbers of a dataset's episodes (a LeRobot dataset without cameras) are
read in one go and checked at once
(:func:`~fsr_core.checks.checked_together`), here in the parent: a thousand
episodes take a fraction of a second, less than handing each to a worker.
What that pass cannot vouch for (an episode with a camera, with a flag, an
input of another kind, one ``--resume`` may skip, one an index pins) goes to
the engine as before, so its line says what checking it alone says.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.headless.batch.items import BatchOptions, WorkItem
from app.headless.batch.work import together_result
from fsr_core.errors import FsrError

__all__ = ["check_together"]


def check_together(
    items: list[WorkItem],
    options: BatchOptions,
    finished: Callable[[dict[str, Any]], None],
) -> list[WorkItem]:
    """Check what can be checked together, passing each result to ``finished``.

    Returns the items left for the engine.
    """
    from fsr_core.checks import checked_together

    plain = {
        item.input: item
        for item in items
        if item.prior is None and item.expected is None and item.pinned is None
    }
    if len(plain) < 2:
        return items
    started_s = time.perf_counter()
    try:
        found = checked_together(list(plain), options.thresholds, options.opening)
    except (FsrError, ValueError, OSError, MemoryError):
        return items  # one by one, each item's own line says what is wrong
    if not found:
        return items
    each_s = (time.perf_counter() - started_s) / len(found)
    done: set[int] = set()
    for path, result in found.items():
        item = plain[path]
        try:
            finished(together_result(item, result.to_json(), each_s))
        except (FsrError, OSError):
            continue  # its digest fails: alone, the engine says why
        done.add(item.number)
    return [item for item in items if item.number not in done]
