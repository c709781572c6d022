"""Skip the tests that run a simulator where that simulator cannot run.

Imported by the conftests of ``tests/skelarm`` and ``tests/genesis`` (``tests/``
is on ``sys.path``): ``from simulator_marks import skip_where_unavailable``.
"""

from __future__ import annotations

import pytest

__all__ = ["skip_where_unavailable"]


def skip_where_unavailable(
    items: list[pytest.Item], marker: str, simulator: str, reason: str | None
) -> None:
    """Skip the items marked ``marker`` where ``simulator`` cannot run (``reason``)."""
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"runs {simulator}, which cannot run here: {reason}")
    for item in items:
        if item.get_closest_marker(marker) is not None:
            item.add_marker(skip)
