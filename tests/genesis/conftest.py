"""Fixtures of the tests that run Genesis itself, and their skip where it cannot run.

Every test marked ``genesis`` is skipped, with the reason, where Genesis runs
nowhere: neither importable here (the ``genesis`` extra) nor in the Python
``FSR_VIEWER_GENESIS_PYTHON`` names. ``tools/check.py`` runs them in that
Python (or ``.venv-genesis``). Genesis compiles its kernels on the first build
of a scene (about a minute and a half on two cores, cached afterwards), so
each replay the tests inspect is made once per session.

Genesis re-simulates a recording bit for bit on the kind of CPU that made
it, not on another: its kernels are compiled for the host processor with
fast math, and the files in ``tests/data/genesis`` diverge from step 1 or 21
on another Xeon. So the recordings these tests replay are made first, on this
machine, by the script that made that test data (:func:`recorded_here`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from simulator_marks import skip_where_unavailable

from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions, ReplayResult
from fsr_core.simulators.genesis.availability import find_runtime, unavailable_reason

REPO_ROOT = Path(__file__).resolve().parents[2]
MAKE_DATA = REPO_ROOT / "tools" / "make_genesis_data.py"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip_where_unavailable(items, "genesis", "Genesis", unavailable_reason())


Replayed = Callable[[str, str], ReplayResult]


@pytest.fixture(scope="session")
def recorded_here(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder of the test scenes recorded by Genesis on this machine.

    ``tools/make_genesis_data.py`` run in the Python Genesis runs in (this
    one, or the one ``FSR_VIEWER_GENESIS_PYTHON`` names), with Genesis's own
    recorder: the box, the arm and the batch of ``tests/data/genesis``, about
    40 s; ``v4_<stem>.gstraj`` in it.
    """
    runtime = find_runtime()
    assert not isinstance(runtime, str), runtime  # the tests are skipped then
    python = runtime.python or sys.executable  # where Genesis runs
    folder = tmp_path_factory.mktemp("genesis_recorded_here")
    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH", "")])]
    done = subprocess.run(
        [python, str(MAKE_DATA), "--output", str(folder)],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"recording the test scenes failed: {done.stderr[-2000:]}")
    return folder


@pytest.fixture(scope="session")
def box(recorded_here: Path) -> Path:
    """Return the falling box recorded here, in exact mode."""
    return recorded_here / "v4_box_exact.gstraj"


@pytest.fixture(scope="session")
def replayed(tmp_path_factory: pytest.TempPathFactory, recorded_here: Path) -> Replayed:
    """Return ``replayed(stem, mode)``: the replay of ``v4_<stem>.gstraj`` (once)."""
    folder = tmp_path_factory.mktemp("genesis_replays")
    made: dict[tuple[str, str], ReplayResult] = {}

    def replay(stem: str, mode: str) -> ReplayResult:
        key = (stem, mode)
        if key not in made:
            made[key] = replay_file(
                recorded_here / f"v4_{stem}.gstraj",
                folder / f"{stem}.{mode}.fsr",
                ReplayOptions(mode=ReplayMode(mode)),
            )
        return made[key]

    return replay
