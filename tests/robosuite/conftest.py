"""The tests that run robosuite itself, and their skip where it cannot run.

Every test marked ``robosuite`` is skipped, with the reason, where robosuite
runs nowhere: neither importable here (the ``robosuite`` extra) nor in the
Python ``FSR_VIEWER_ROBOSUITE_PYTHON`` names. ``tools/check.py`` runs them
with that variable set when ``.venv-robosuite`` exists. Each replay rebuilds
robosuite's environment (a few seconds on two cores), so the replays the
tests read are made once per module.
"""

from __future__ import annotations

import os

import pytest
from simulator_marks import skip_where_unavailable

from fsr_core.simulators.robosuite.availability import unavailable_reason

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip_where_unavailable(items, "robosuite", "robosuite", unavailable_reason())
