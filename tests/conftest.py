"""Shared fixtures: small deterministic recordings written into ``tmp_path``.

Every fixture is named after what it gives (docs/style.md, Testing). Recordings come
from :func:`fsr_core.synthetic.write_synthetic`, so they hold every stream kind,
one camera whose calibration changes at tick ``ticks // 2``, and two
generations. ``QT_QPA_PLATFORM=offscreen`` is set here, before any Qt import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from fsr_core.format.batching import BatchLimits
from fsr_core.format.records import TRAILER_SIZE, Trailer
from fsr_core.synthetic import SyntheticRun, write_synthetic

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_SMALL_RUN = SyntheticRun(
    ticks=16,
    camera_every=4,
    width=8,
    height=6,
    codec="png",
    batch_limits=BatchLimits(max_records=4, max_bytes=4 << 10, max_span_s=0.05),
)
_CAMERA_RUN = SyntheticRun(ticks=16, camera_every=2, width=12, height=8, codec="rgb24")


SyntheticWriter = Callable[[Path, SyntheticRun], Path]


@pytest.fixture(scope="session")
def synthetic_copy(tmp_path_factory: pytest.TempPathFactory) -> SyntheticWriter:
    """Return ``write(path, run)``: the recording of ``run``, written once a session.

    The first request of a shape writes it with ``write_synthetic``; every
    request (the first too) gets its own byte copy at ``path``, which the
    test may damage or extend freely.
    """
    folder = tmp_path_factory.mktemp("synthetic")
    written: dict[SyntheticRun, bytes] = {}

    def write(path: Path, run: SyntheticRun) -> Path:
        if run not in written:
            source = folder / f"run{len(written)}.fsr"
            write_synthetic(source, run)
            written[run] = source.read_bytes()
        path.write_bytes(written[run])
        return path

    return write


@pytest.fixture
def small_recording(tmp_path: Path, synthetic_copy: SyntheticWriter) -> Path:
    """Write a sealed synthetic recording with many small batches (about 60 KiB).

    Its shape is ``_SMALL_RUN``: 16 ticks, 2 generations, PNG camera frames.
    """
    return synthetic_copy(tmp_path / "small.fsr", _SMALL_RUN)


@pytest.fixture
def camera_run() -> SyntheticRun:
    """Return the shape of ``recording_with_camera``: a frame every 2 ticks, rgb24."""
    return _CAMERA_RUN


@pytest.fixture
def recording_with_camera(
    tmp_path: Path, camera_run: SyntheticRun, synthetic_copy: SyntheticWriter
) -> Path:
    """Write a sealed synthetic recording whose camera frames are lossless."""
    return synthetic_copy(tmp_path / "camera.fsr", camera_run)


@pytest.fixture
def recording_without_index(tmp_path: Path, small_recording: Path) -> Path:
    """Copy ``small_recording`` without its footer: every batch, no index.

    It opens only with ``recover=True``, through the linear batch scan.
    """
    data = small_recording.read_bytes()
    trailer = Trailer.decode(data[-TRAILER_SIZE:], offset=len(data) - TRAILER_SIZE)
    path = tmp_path / "without_index.fsr"
    path.write_bytes(data[: trailer.footer_offset])
    return path
