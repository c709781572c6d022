"""Fixtures of the tests that run Genesis itself, and their skip where it cannot run.

Every test marked ``genesis`` is skipped, with the reason, where Genesis runs
nowhere: neither importable here (the ``genesis`` extra) nor in the Python
``FSR_VIEWER_GENESIS_PYTHON`` names. ``tools/check.py`` runs them in that
Python (or ``.venv-genesis``). Genesis compiles its kernels on the first build
of a scene (about a minute and a half on two cores, cached afterwards), so
each replay the tests inspect is made once per session.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from simulator_marks import skip_where_unavailable

from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions, ReplayResult
from fsr_core.simulators.genesis.availability import unavailable_reason

DATA = Path(__file__).resolve().parents[1] / "data" / "genesis"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip_where_unavailable(items, "genesis", "Genesis", unavailable_reason())


Replayed = Callable[[str, str], ReplayResult]


@pytest.fixture(scope="session")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """Return ``replayed(stem, mode)``: the replay of ``v4_<stem>.gstraj`` (once)."""
    folder = tmp_path_factory.mktemp("genesis_replays")
    made: dict[tuple[str, str], ReplayResult] = {}

    def replay(stem: str, mode: str) -> ReplayResult:
        key = (stem, mode)
        if key not in made:
            made[key] = replay_file(
                DATA / f"v4_{stem}.gstraj",
                folder / f"{stem}.{mode}.fsr",
                ReplayOptions(mode=ReplayMode(mode)),
            )
        return made[key]

    return replay
