"""What is kept of a dataset's parquet files never outlives or crosses files.

Opening the episodes of a dataset one after another keeps the footers and
the row groups read last (episodes share them); a file rewritten in place,
or another dataset laid out the same way, must still read its own values.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fsr_core.sources import expand_recordings, open_recording

TINY = Path(__file__).resolve().parents[2] / "data" / "lerobot" / "tiny_v30"
DATA_FILE = Path("data") / "chunk-000" / "file-000.parquet"
STATE = "observation.state"


def _state(root: Path, episode: int = 0) -> np.ndarray:
    paths = list(expand_recordings([root]))
    values: np.ndarray = open_recording(paths[episode]).channels[STATE].values
    return values


def _scale_state(path: Path, factor: float) -> None:
    """Rewrite ``path`` with its state multiplied by ``factor`` (same layout)."""
    table = pq.read_table(path)
    metadata = pq.ParquetFile(path).metadata
    column = table.column(STATE).combine_chunks()
    scaled = pc.multiply(column.flatten(), pa.scalar(factor, column.type.value_type))
    rebuilt = pa.FixedSizeListArray.from_arrays(scaled, column.type.list_size)
    if not pa.types.is_fixed_size_list(column.type):
        rebuilt = pa.ListArray.from_arrays(column.offsets, scaled)
    table = table.set_column(table.schema.get_field_index(STATE), STATE, rebuilt)
    staged = path.with_suffix(".tmp")
    pq.write_table(table, staged, row_group_size=metadata.row_group(0).num_rows)
    staged.replace(path)


def test_two_datasets_laid_out_alike_read_their_own_values(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(TINY, first)
    shutil.copytree(TINY, second)
    _scale_state(second / DATA_FILE, 2.0)

    original = _state(first)
    np.testing.assert_array_equal(_state(first), original)  # now from what is kept
    doubled = _state(second)

    assert np.any(original != 0)
    np.testing.assert_allclose(doubled, 2.0 * original, rtol=1e-6)
    np.testing.assert_array_equal(_state(second), doubled)
    np.testing.assert_array_equal(_state(first), original)


def test_a_data_file_rewritten_in_place_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "dataset"
    shutil.copytree(TINY, root)
    before = _state(root, 1)

    _scale_state(root / DATA_FILE, -1.0)

    np.testing.assert_allclose(_state(root, 1), -before, rtol=1e-6)
