"""A large record index is read from the file on demand, as a held one is.

Above ``ReaderLimits.resident_index_bytes`` the reader keeps only the batch
directory and a small cache of index blocks; every read must return the same
records, times and errors as with the index in memory, the memory the index
holds must stay small, and an index changed on disk after the checks at open
must be refused, never trusted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import CorruptRecordError
from fsr_core.format import record_index
from fsr_core.format.catalog import numeric_stream
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import ENTRY_SIZE
from fsr_core.format.writer import FsrWriter

ARM = "observations.arm"
GRIPPER = "observations.gripper"
COUNT = 6000
ON_DISK = ReaderLimits(resident_index_bytes=0)


def _write(path: Path, profile: str = "fast") -> None:
    """Two interleaved streams with a generation reset halfway."""
    arm = numeric_stream(ARM, [f"q{i}" for i in range(3)], "rad")
    gripper = numeric_stream(GRIPPER, ["width"], "m")
    with FsrWriter(path, [arm, gripper], integrity=profile) as out:
        for tick in range(COUNT):
            generation = 0 if tick < COUNT // 2 else 1
            local = tick if generation == 0 else tick - COUNT // 2
            values = np.sin(np.arange(3) + tick / 50.0)
            out.write(
                ARM,
                values,
                tick=local,
                sim_time_s=local / 1000.0,
                generation=generation,
            )
            if tick % 3 == 0:
                out.write(
                    GRIPPER,
                    np.array([tick / COUNT]),
                    tick=local,
                    sim_time_s=local / 1000.0,
                    generation=generation,
                )


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Small blocks and cache, so reads cross many blocks and evict.
    monkeypatch.setattr(record_index, "BLOCK_ROWS", 64)
    monkeypatch.setattr(record_index, "CACHED_BLOCKS", 4)
    monkeypatch.setattr(record_index, "RUN_BLOCKS", 8)
    path = tmp_path / "run.fsr"
    _write(path)
    return path


@pytest.mark.parametrize("profile", ["structural", "fast", "strong"])
def test_every_read_matches_the_index_held_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    monkeypatch.setattr(record_index, "BLOCK_ROWS", 64)
    monkeypatch.setattr(record_index, "CACHED_BLOCKS", 4)
    monkeypatch.setattr(record_index, "RUN_BLOCKS", 8)
    path = tmp_path / "run.fsr"
    _write(path, profile)
    with FsrReader.open(path) as held, FsrReader.open(path, limits=ON_DISK) as lazy:
        assert held._layout.index.in_memory
        assert not lazy._layout.index.in_memory
        assert lazy.streams == held.streams
        for stream in (ARM, GRIPPER):
            assert lazy.rows(stream).tobytes() == held.rows(stream).tobytes()
            np.testing.assert_array_equal(
                lazy.column(stream, "sim_time_s"), held.column(stream, "sim_time_s")
            )
            for got, want in zip(
                lazy.read_series(stream, 100, 4000),
                held.read_series(stream, 100, 4000),
                strict=True,
            ):
                np.testing.assert_array_equal(got, want)
            picked = np.array([0, 5, 1999, 7, -1])
            assert (
                lazy.stream_entries(stream, picked).tobytes()
                == held.stream_entries(stream, picked).tobytes()
            )
            for got_ends, want_ends in zip(
                lazy.generation_runs(stream), held.generation_runs(stream), strict=True
            ):
                assert got_ends.tobytes() == want_ends.tobytes()
        for seq in (0, 1, 2999, 3000, 5999):
            assert lazy.record(ARM, seq).payload == held.record(ARM, seq).payload
        assert lazy.seek_row(ARM, generation=1, tick=10) == held.seek_row(
            ARM, generation=1, tick=10
        )
        order = [(r.stream, r.stream_seq) for r in lazy.iter_records()]
        assert order == [(r.stream, r.stream_seq) for r in held.iter_records()]
        assert lazy.verify() == held.verify() == []


def test_the_index_read_on_demand_holds_little_memory(run: Path) -> None:
    with FsrReader.open(run, limits=ON_DISK) as reader:
        entries_bytes = reader.record_count * ENTRY_SIZE
        reader.read_series(ARM)
        _ = reader.rows(GRIPPER)
        # The directory, a CRC per block and at most the cache stay behind.
        assert reader.index_bytes < entries_bytes / 4
    with FsrReader.open(run) as reader:
        assert reader.index_bytes >= entries_bytes


def test_an_index_changed_on_disk_after_open_is_refused(run: Path) -> None:
    with FsrReader.open(run, limits=ON_DISK) as reader:
        count = reader.streams[ARM].record_count
        offset = reader._layout.index.file_offset
        assert offset is not None
        # Flip a bit of the first entry's tick, in place, after the checks.
        with run.open("r+b") as handle:
            handle.seek(offset + 16)
            byte = handle.read(1)[0]
            handle.seek(offset + 16)
            handle.write(bytes([byte ^ 0x01]))
        with pytest.raises(CorruptRecordError, match="changed on disk"):
            _read_every(reader, count)


def _read_every(reader: FsrReader, count: int) -> None:
    for seq in range(count):
        reader.record(ARM, seq)
