"""The optional timestamps file of an image-sequence folder.

``timestamps.csv`` beside the frames, with a header row: a ``frame`` column
(the frame number in the file names; else rows are frames in order) and a
time column in seconds (``time_s``, ``timestamp``, ``time`` or ``t``; else
the last column). Times are taken from the first frame's.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Final

from fsr_core.errors import LimitExceededError, SchemaError

__all__ = ["MAX_TIMESTAMPS_BYTES", "TIMESTAMPS_FILE", "read_timestamps"]

TIMESTAMPS_FILE: Final = "timestamps.csv"
MAX_TIMESTAMPS_BYTES: Final = 64 << 20
_TIME_COLUMNS: Final = ("time_s", "timestamp", "time", "t", "seconds")


def _number(text: str, where: str, path: Path) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SchemaError(
            f"{where}: {text[:40]!r} is not a number", path=path
        ) from None
    if not math.isfinite(value):
        raise SchemaError(f"{where}: {text[:40]!r} is not finite", path=path)
    return value


def read_timestamps(folder: Path) -> dict[int, float] | list[float] | None:
    """Return the times of ``timestamps.csv``: by frame number, or in order.

    ``None`` when the folder has no such file.

    Raises
    ------
    SchemaError
        The file is not a CSV of numbers as described above.
    LimitExceededError
        It is larger than :data:`MAX_TIMESTAMPS_BYTES`.
    """
    path = folder / TIMESTAMPS_FILE
    if path.is_symlink() or not path.is_file():
        return None
    size = path.stat().st_size
    if size > MAX_TIMESTAMPS_BYTES:
        raise LimitExceededError(
            f"{TIMESTAMPS_FILE} is {size:,} bytes, more than 64 MiB", path=path
        )
    rows = list(csv.reader(io.StringIO(path.read_text("utf-8", "replace"))))
    if len(rows) < 2:
        raise SchemaError("a header row and one row per frame expected", path=path)
    header = [cell.strip().lower() for cell in rows[0]]
    time_column = next(
        (header.index(name) for name in _TIME_COLUMNS if name in header),
        len(header) - 1,
    )
    frame_column = header.index("frame") if "frame" in header else None
    by_frame: dict[int, float] = {}
    ordered: list[float] = []
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) <= time_column:
            raise SchemaError(f"line {number}: too few columns", path=path)
        time = _number(row[time_column], f"line {number}", path)
        if frame_column is None:
            ordered.append(time)
        else:
            by_frame[int(_number(row[frame_column], f"line {number}", path))] = time
    return by_frame if frame_column is not None else ordered
