"""A "long" numeric FSR take for tests, with the thresholds scaled down to it.

A channel is plotted from its overview, and read by span, once it holds more
than :data:`~fsr_core.recording.OVERVIEW_FROM_SAMPLES` samples (a million);
tests write a few thousand and lower the thresholds to match.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core import recording
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.sources.fsr import channels

__all__ = ["ARM", "write_long_take"]

ARM = "observations.arm"


def write_long_take(
    path: Path,
    values: np.ndarray,
    monkeypatch: pytest.MonkeyPatch,
    *,
    buckets: int,
    part_rows: int,
) -> Path:
    """Write ``values`` (one row a sample, 1 kHz) as stream ``ARM`` of ``path``.

    The overview threshold becomes 1000 samples, with ``buckets`` buckets read
    ``part_rows`` records at a time.
    """
    monkeypatch.setattr(recording, "OVERVIEW_FROM_SAMPLES", 1000)
    monkeypatch.setattr(channels, "OVERVIEW_BUCKETS", buckets)
    monkeypatch.setattr(channels, "PART_ROWS", part_rows)
    rows = values.reshape(len(values), -1)
    columns = [f"c{index}" for index in range(rows.shape[1])]
    with FsrWriter(path, [numeric_stream(ARM, columns)]) as writer:
        for tick, row in enumerate(rows):
            writer.write(ARM, row, tick=tick, sim_time_s=tick / 1000.0)
    return path
