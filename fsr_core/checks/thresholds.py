"""The checks' thresholds: one table with defaults, and a TOML file that overrides them.

Every threshold is a field of :class:`Thresholds`, with its default, its unit
and what it means (the field's metadata); ``docs/checks.md`` shows the same
table (a test keeps them equal). ``--checks FILE.toml`` names a file of
``key = value`` lines, top level or under ``[checks]``;
:func:`read_thresholds` refuses an unknown key or a value out of its range
with one line naming the file.
"""

from __future__ import annotations

import dataclasses
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import LimitExceededError, SchemaError
from fsr_core.toml_text import parse_bounded_toml

__all__ = ["MAX_CHECKS_FILE_BYTES", "Thresholds", "read_thresholds", "threshold_rows"]

MAX_CHECKS_FILE_BYTES: Final = 64 << 10
"""Largest ``--checks`` file read (docs/robustness.md)."""


def _row(default: float, unit: str, meaning: str, *, low: float = 0.0) -> Any:
    return field(
        default=default, metadata={"unit": unit, "meaning": meaning, "low": low}
    )


@dataclass(frozen=True)
class Thresholds:
    """Where each check draws its line (defaults as documented in docs/checks.md)."""

    iqr_k: float = _row(
        1.5,
        "",
        "k of the IQR rule: a dataset outlier lies above Q3 + k*IQR (or below "
        "Q1 - k*IQR for lengths)",
    )
    length_min_ratio: float = _row(
        1.25,
        "x",
        "a length outlier's frame count is also at least this times the median "
        "(or at most its inverse)",
        low=1.0,
    )
    gap_factor: float = _row(
        4.0,
        "x median period",
        "timestamp_gap: a step between samples longer than this many median periods",
        low=1.0,
    )
    min_samples: float = _row(
        8,
        "samples",
        "a channel with fewer samples is not checked for gaps; a recording with "
        "fewer joint frames gets no motion metrics",
        low=2,
    )
    video_tolerance_s: float = _row(
        0.0,
        "s",
        "video_desync: how far a camera frame may be from its row's time; 0 takes "
        "the format's own (LeRobot's tolerance_s, 1e-4 s)",
    )
    frozen_diff: float = _row(
        4.0,
        "grey levels",
        "frozen_video: consecutive frames whose largest pixel difference (0-255, "
        "at the reduced size) is below this show the same picture",
    )
    frozen_min_frames: float = _row(
        5, "frames", "frozen_video: the shortest run of same pictures flagged", low=2
    )
    frozen_size: float = _row(
        64, "pixels", "frozen_video: frames are compared at about this width", low=4
    )
    moving_speed: float = _row(
        0.5,
        "rad/s (m/s)",
        "the joints move (frozen_video) when the fastest moves faster than this",
    )
    still_speed: float = _row(
        0.01,
        "rad/s (m/s)",
        "a frame is still (static, action_state_offset) when no joint moves "
        "faster than this",
    )
    static_min_delta: float = _row(
        0.25,
        "fraction",
        "a static outlier's still fraction is also this much above the median's",
    )
    jerk_min_ratio: float = _row(
        3.0,
        "x median",
        "a jerk outlier's median or p95 jerk is also this many times the "
        "dataset's median of it",
        low=1.0,
    )
    end_pose_min_distance: float = _row(
        0.1,
        "rad (m)",
        "an end_pose_outlier's final state is also this far (norm over joints) "
        "from the dataset's median final state",
    )
    offset_threshold: float = _row(
        0.05,
        "rad (m)",
        "action_state_offset: the median of action - state of a joint over "
        "still frames, either way",
    )
    offset_min_frames: float = _row(
        5, "frames", "action_state_offset: still frames needed to judge", low=1
    )
    limit_tolerance: float = _row(
        1e-3, "rad (m)", "limit_violation: how far past a joint limit counts"
    )
    max_camera_frames: float = _row(
        100_000,
        "frames",
        "frozen_video: frames decoded per camera at most (the rest is not checked)",
        low=1,
    )


def threshold_rows() -> list[tuple[str, float, str, str]]:
    """Return ``(key, default, unit, meaning)`` of every threshold, in order."""
    defaults = Thresholds()
    return [
        (
            item.name,
            float(getattr(defaults, item.name)),
            str(item.metadata["unit"]),
            str(item.metadata["meaning"]),
        )
        for item in dataclasses.fields(Thresholds)
    ]


def read_thresholds(path: Path) -> Thresholds:
    """Return the defaults with what ``path`` (a TOML file) overrides.

    Raises
    ------
    SchemaError
        Not TOML, an unknown key, or a value that is not a number in range.
    LimitExceededError
        The file is larger than :data:`MAX_CHECKS_FILE_BYTES`.
    OpenFailedError
        It cannot be read.
    """
    raw = _read_bounded(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError("checks file is not UTF-8 text", path=path) from exc
    document = parse_bounded_toml(text, what="checks file", path=path)
    table = (
        document.get("checks", document) if set(document) == {"checks"} else document
    )
    if not isinstance(table, dict):
        raise SchemaError("[checks] is not a table", path=path)
    fields = {item.name: item for item in dataclasses.fields(Thresholds)}
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise SchemaError(
            f"unknown key {unknown[0]!r} in the checks file (known: "
            f"{', '.join(fields)})",
            path=path,
        )
    values: dict[str, float] = {}
    for key, value in table.items():
        low = fields[key].metadata["low"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < low
        ):
            raise SchemaError(
                f"{key} = {value!r}: expected a number >= {low:g}", path=path
            )
        values[key] = float(value)
    return dataclasses.replace(Thresholds(), **values)


def _read_bounded(path: Path) -> bytes:
    """Return the bytes of the regular file ``path`` within the size budget."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block open()
            raise SchemaError("the checks file is not a regular file", path=path)
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SchemaError("the checks file is not a regular file", path=path)
            if info.st_size > MAX_CHECKS_FILE_BYTES:
                raise LimitExceededError(
                    f"checks file of {info.st_size} bytes exceeds the limit of "
                    f"{MAX_CHECKS_FILE_BYTES}",
                    path=path,
                )
            return handle.read(MAX_CHECKS_FILE_BYTES + 1)
    except OSError as exc:
        raise SchemaError(
            f"cannot read the checks file: {exc.strerror or exc}", path=path
        ) from exc
