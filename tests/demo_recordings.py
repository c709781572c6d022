"""Record a demo take of the planar arm, changed for a test, into a file.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from demo_recordings import record_demo_take``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = ["record_demo_take"]


def record_demo_take(
    path: Path,
    name: str,
    edit: Callable[[dict[str, Any]], None] | None = None,
    **changes: Any,
) -> Path:
    """Record demo take ``name`` at ``path`` and return ``path``.

    The take's scenario document gets the top-level ``changes`` first
    (``duration_s=0.5``, ``cameras=[]`` ...), then ``edit`` changes it in place.
    """
    document = _take_documents()[name]
    document.update(changes)
    if edit is not None:
        edit(document)
    record_run(Scenario.from_json(document), path)
    return path
