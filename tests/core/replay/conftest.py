"""Fixtures of the replay tests: short planar-arm recordings shared per package."""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_sources import TINY_CAMERA, record, scenario_document


@pytest.fixture(scope="package")
def replay_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder shared by the package's fixtures."""
    return tmp_path_factory.mktemp("replay")


@pytest.fixture(scope="package")
def short_recording(replay_dir: Path) -> Path:
    """Record a 0.3 s reach (150 ticks), no camera."""
    return record(replay_dir / "short.fsr", scenario_document())


@pytest.fixture(scope="package")
def camera_recording(replay_dir: Path) -> Path:
    """Record a 0.3 s reach with one 16x12 PNG camera at 30 Hz."""
    return record(
        replay_dir / "camera.fsr", scenario_document(cameras=[dict(TINY_CAMERA)])
    )
