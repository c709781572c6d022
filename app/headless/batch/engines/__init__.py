"""Where the batch items run: local worker processes, or Ray tasks.

Both engines take the items, the run's options and a callback that receives
each result (in the driver's main thread, in the order they finish), and both
report a worker that crashes, hangs past the timeout or grows past the memory
limit as that item's failure and go on with the rest. A stop (Ctrl-C,
SIGTERM) ends every worker and removes what the unfinished items had begun.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from app.headless.batch.items import BatchOptions, WorkItem

__all__ = ["Engine", "OnResult"]

OnResult = Callable[[dict[str, Any]], None]
"""What an engine calls with each finished item's result."""


class Engine(Protocol):
    """Runs every item once and hands over each result."""

    def run(
        self, items: Sequence[WorkItem], options: BatchOptions, on_result: OnResult
    ) -> None:
        """Run ``items``; call ``on_result`` once per item."""
        ...
