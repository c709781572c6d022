"""Fixtures of the tests that run skelarm itself, and their skip where it cannot run.

Every test marked ``skelarm`` is skipped, with the reason, where skelarm does
not import (it needs Python >= 3.12 and the ``skelarm`` extra); ``tools/check.py``
runs them in ``.venv312``. The logs come from skelarm's own code, made once per
session by ``make_skelarm_logs.py`` in a child interpreter (skelarm imports PyQt6,
which must not meet this process's PySide6).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from simulator_marks import skip_where_unavailable

from fsr_core.simulators.skelarm.availability import unavailable_reason

MAKE_LOGS = Path(__file__).with_name("make_skelarm_logs.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip_where_unavailable(items, "skelarm", "skelarm", unavailable_reason())


@pytest.fixture(scope="session")
def skelarm_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder with a log of every kind, written by skelarm (with truths)."""
    folder = tmp_path_factory.mktemp("skelarm_logs")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, str(MAKE_LOGS), str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return folder
