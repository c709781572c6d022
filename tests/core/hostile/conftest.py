"""Fixtures of the hostile-input suite: the small sweep recording and a worker pool.

The sweep recording is :func:`fsr_core.synthetic.write_synthetic` at its smallest
(every stream kind, one camera whose calibration changes mid-run, 14 batches,
about 19 KB), written once per integrity profile per session. Sweeps run in a
pool of two ``spawn`` worker processes, so they use both cores of a two-core
machine and a worker dying in C code is reported (``killed``) instead of taking
the test session with it. The sweep outcome counts are printed in the terminal
summary.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from hostile_harness import init_worker
from hostile_surgery import FsrFile

from fsr_core.format.batching import BatchLimits
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.synthetic import SyntheticRun, write_synthetic

SWEEP_RUN = SyntheticRun(ticks=5, generations=1, camera_every=2, width=8, height=8)
SWEEP_WORKERS = 2
_REPORT = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session")
def sweep_fixtures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Return the sweep recording's bytes per integrity profile name."""
    folder = tmp_path_factory.mktemp("hostile")
    found: dict[str, bytes] = {}
    for profile in IntegrityProfile:
        path = folder / f"sweep-{profile.value}.fsr"
        write_synthetic(path, dataclasses.replace(SWEEP_RUN, integrity=profile))
        found[profile.value] = path.read_bytes()
    return found


@pytest.fixture
def valid_bytes(sweep_fixtures: dict[str, bytes]) -> bytes:
    """Return the structural sweep recording."""
    return sweep_fixtures["structural"]


@pytest.fixture
def model(valid_bytes: bytes) -> FsrFile:
    """Return the structural sweep recording taken apart, ready to edit."""
    return FsrFile.parse(valid_bytes)


@pytest.fixture(scope="session")
def multi_batch_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Return the sweep recording in 24 batches of at most 2 records each."""
    path = tmp_path_factory.mktemp("hostile-multi") / "multi.fsr"
    limits = BatchLimits(max_records=2, max_bytes=4096, max_span_s=1.0)
    write_synthetic(path, dataclasses.replace(SWEEP_RUN, batch_limits=limits))
    return path.read_bytes()


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[..., Path]:
    """Return ``write(data, name='case.fsr') -> Path`` writing into ``tmp_path``."""

    def write(data: bytes, name: str = "case.fsr") -> Path:
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return write


@pytest.fixture(scope="session")
def sweep_pool(sweep_fixtures: dict[str, bytes]) -> Iterator[ProcessPoolExecutor]:
    """Two spawned workers holding the sweep recordings and their fingerprints."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=SWEEP_WORKERS,
        mp_context=context,
        initializer=init_worker,
        initargs=(sweep_fixtures,),
    ) as pool:
        yield pool


@pytest.fixture
def sweep_report(request: pytest.FixtureRequest) -> list[str]:
    """Lines for the terminal summary (one per sweep)."""
    return request.config.stash.setdefault(_REPORT, [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the sweep outcome counts."""
    lines = terminalreporter.config.stash.get(_REPORT, [])
    if lines:
        terminalreporter.section("hostile-input sweeps")
        for line in lines:
            terminalreporter.write_line(line)
