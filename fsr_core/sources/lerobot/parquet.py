"""Parquet through ``pyarrow``: one file, chosen row groups and columns, checked.

Every error pyarrow raises (a cut file without its footer, a bad page, a
column of an unexpected type) becomes an :class:`~fsr_core.errors.FsrError`
naming the file. Row counts come from the footer and are checked against the
memory budget before any column is read.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import DecodeError, FsrError, SchemaError, SourceUnavailableError
from fsr_core.format.safe_open import ByteSource, open_source

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = [
    "column_rows",
    "file_stamp",
    "float_matrix",
    "guarded",
    "open_parquet",
    "pyarrow_missing",
    "read_table",
]

_T = TypeVar("_T")

_FOOTERS_KEPT: Final = 64
"""Parsed footers kept, by file identity: a dataset's episodes share a few files."""
_TABLES_KEPT: Final = 4
"""Tables read last kept: the row groups the next episode likely shares."""
_TABLE_KEPT_BYTES: Final = 32 << 20
"""Most bytes the kept tables hold together (a larger table is not kept)."""

_LOCK = threading.Lock()
_FOOTERS: OrderedDict[tuple[object, ...], pq.FileMetaData] = OrderedDict()
_TABLES: OrderedDict[tuple[object, ...], pa.Table] = OrderedDict()
_STAMPS: weakref.WeakKeyDictionary[pq.ParquetFile, tuple[object, ...]] = (
    weakref.WeakKeyDictionary()
)


def pyarrow_missing() -> str | None:
    """Return what to install when pyarrow is missing, else ``None``."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return "the 'pyarrow' package (pip install 'fsr-viewer[lerobot]')"
    return None


def guarded(path: Path, what: str, call: Callable[[], _T]) -> _T:
    """Run ``call``; any error of pyarrow becomes a :class:`DecodeError`."""
    try:
        return call()
    except FsrError as exc:
        exc.with_path(path)
        raise
    except MemoryError as exc:
        raise DecodeError(f"{what}: out of memory", path=path) from exc
    except Exception as exc:  # pyarrow raises many types (ArrowInvalid, OSError...)
        text = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        raise DecodeError(f"{what}: {text}", path=path) from exc


def open_parquet(path: Path) -> pq.ParquetFile:
    """Open a parquet file, reading only its footer.

    Raises
    ------
    SourceUnavailableError
        pyarrow is missing.
    FsrError
        The file is missing, not a regular file, or has no readable footer
        (a writer that crashed before closing it leaves none).
    """
    missing = pyarrow_missing()
    if missing is not None:
        raise SourceUnavailableError(f"reading parquet needs {missing}", path=path)
    import pyarrow.parquet as pq

    source = open_source(path)  # refuses FIFOs, devices and symbolic links first
    try:
        stamp = _stamp(path, source)
    finally:
        source.close()
    with _LOCK:
        footer = _FOOTERS.get(stamp)
        if footer is not None:
            _FOOTERS.move_to_end(stamp)
    handle = guarded(
        path,
        "not a readable parquet file (no footer: cut or still being written?)",
        lambda: pq.ParquetFile(str(path), metadata=footer),
    )
    with _LOCK:
        if footer is None:
            _FOOTERS[stamp] = handle.metadata
            while len(_FOOTERS) > _FOOTERS_KEPT:
                _FOOTERS.popitem(last=False)
        _STAMPS[handle] = stamp
    return handle


def file_stamp(handle: pq.ParquetFile) -> tuple[object, ...] | None:
    """Return what identifies the bytes ``handle`` reads (None: not opened here).

    Path, device, inode, size and change time, taken when
    :func:`open_parquet` opened it: the key of what is kept of that file.
    """
    with _LOCK:
        return _STAMPS.get(handle)


def _stamp(path: Path, source: ByteSource) -> tuple[object, ...]:
    """Return what identifies a file's bytes: path, inode, size and change time."""
    fd = getattr(source, "fd", None)
    info = os.fstat(fd) if isinstance(fd, int) else path.stat()
    return (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def read_table(
    path: Path,
    handle: pq.ParquetFile,
    columns: Sequence[str],
    row_groups: Sequence[int] | None = None,
    *,
    bytes_per_row: int = 64,
) -> pa.Table:
    """Read ``columns`` of the chosen row groups (all when ``None``), within budget.

    The last few tables read are kept (keyed by the file's identity), so the
    episodes that share a row group, opened one after another, read it once.
    """
    metadata = handle.metadata
    groups = list(range(metadata.num_row_groups)) if row_groups is None else row_groups
    rows = sum(metadata.row_group(group).num_rows for group in groups)
    check_budget(MEMORY, rows * bytes_per_row, f"{rows:,} parquet rows", path=path)
    names = set(handle.schema_arrow.names)  # pyarrow builds the schema per call
    present = [name for name in columns if name in names]
    stamp = file_stamp(handle)
    key = (stamp, tuple(groups), tuple(present))
    with _LOCK:
        table = _TABLES.get(key) if stamp is not None else None
        if table is not None:
            _TABLES.move_to_end(key)
            return table
    table = guarded(
        path,
        "cannot read the parquet rows",
        lambda: handle.read_row_groups(groups, columns=present),
    )
    if stamp is not None and table.nbytes <= _TABLE_KEPT_BYTES:
        with _LOCK:
            _TABLES[key] = table
            while len(_TABLES) > _TABLES_KEPT or (
                sum(kept.nbytes for kept in _TABLES.values()) > _TABLE_KEPT_BYTES
            ):
                _TABLES.popitem(last=False)
    return table


def column_rows(path: Path, table: pa.Table, name: str) -> list[Any]:
    """Return a column as Python values."""
    return guarded(path, f"column {name!r}", lambda: table.column(name).to_pylist())


def float_matrix(path: Path, table: pa.Table, name: str, width: int) -> FloatArray:
    """Return a numeric column as float64, shape ``(rows,)`` or ``(rows, width)``.

    A scalar column, a fixed-size list and a list column whose every row has
    ``width`` items are read without a Python loop.

    Raises
    ------
    SchemaError
        A row has another number of items, or the values are not numbers.
    """

    def convert() -> FloatArray:
        import pyarrow as pa

        column = table.column(name).combine_chunks()
        kind = column.type
        if pa.types.is_list(kind) or pa.types.is_large_list(kind):
            sizes = np.diff(np.asarray(column.offsets))
            if column.null_count or np.any(sizes != width):
                raise SchemaError(f"column {name!r} has rows of another size")
            flat = column.flatten()
        elif pa.types.is_fixed_size_list(kind):
            if kind.list_size != width or column.null_count:
                raise SchemaError(f"column {name!r} has rows of another size")
            flat = column.flatten()
        else:
            flat = column
        if not (
            pa.types.is_integer(flat.type)
            or pa.types.is_floating(flat.type)
            or pa.types.is_boolean(flat.type)
        ):
            raise SchemaError(f"column {name!r} is {flat.type}, not numbers")
        values = np.asarray(
            flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
        if width == 1 and not (
            pa.types.is_list(kind)
            or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)
        ):
            return values
        return values.reshape(-1, width)

    return guarded(path, f"column {name!r}", convert)
