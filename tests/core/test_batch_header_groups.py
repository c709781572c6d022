"""Batch headers are checked a group at a time: the same verdicts as all at once.

The open reads the batch headers and entry tables in groups of
``GROUP_BYTES`` so it never holds a second copy of the whole index; a damaged
batch must still be named, with the same error, wherever the group limits fall.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import FsrError
from fsr_core.format import batch_headers
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.reader import FsrReader
from fsr_core.format.writer import FsrWriter

STREAM = "observations.arm"


def _write(path: Path, profile: str) -> None:
    spec = numeric_stream(STREAM, ["a", "b"], "")
    limits = BatchLimits(max_records=8, max_bytes=1 << 16, max_span_s=1.0)
    with FsrWriter(path, [spec], integrity=profile, batch_limits=limits) as out:
        for tick in range(400):
            out.write(
                STREAM, np.array([tick, -tick], float), tick=tick, sim_time_s=tick / 100
            )


def _open_error(path: Path) -> str:
    try:
        FsrReader.open(path).close()
    except FsrError as exc:
        return str(exc)
    return "opened"


@pytest.mark.parametrize("profile", ["structural", "fast", "strong"])
def test_small_groups_open_intact_files_and_name_the_same_bad_batch(
    tmp_path: Path, profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.fsr"
    _write(path, profile)
    with FsrReader.open(path) as reader:
        directory = reader._layout.directory
        assert len(directory) >= 50
        values = reader.read_series(STREAM)[2]
        offset = int(directory["offset"][37])
    monkeypatch.setattr(batch_headers, "GROUP_BYTES", 300)
    with FsrReader.open(path) as reader:  # many groups, same data
        np.testing.assert_array_equal(reader.read_series(STREAM)[2], values)
    data = bytearray(path.read_bytes())
    data[offset + 100] ^= 0x01  # inside batch 37's entry table
    path.write_bytes(bytes(data))
    grouped = _open_error(path)
    monkeypatch.setattr(batch_headers, "GROUP_BYTES", 1 << 40)
    assert grouped == _open_error(path)
    assert "record 37" in grouped
