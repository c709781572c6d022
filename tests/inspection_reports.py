"""Read the parts of an inspection report (``inspect --json``) that tests compare.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from inspection_reports import ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LIFECYCLE_WITH_A_RESET", "lifecycle_events"]

#: The lifecycle events of a run with one reset that ran to its end, in order.
LIFECYCLE_WITH_A_RESET = (
    "start",
    "generation_reset",
    "terminal_semantic_cut",
    "completion",
)


def lifecycle_events(report: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the names of the lifecycle events in ``report``, in order."""
    return tuple(event["event"] for event in report["lifecycle"])
