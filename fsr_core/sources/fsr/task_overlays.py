"""Task overlays of an FSR file, from its ``task`` records, checked into typed values.

A task record may carry ``{"overlay": {"kind", "targets", "curve_xy",
"reference_xy", "active_index"}}``; each target is ``{"xy": [x, y], "label"?,
"tolerance_m"?}``. Every value is checked for its JSON type here, at the
boundary, so a record holding a string where a number belongs is refused with
the stream and record named, never half-drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fsr_core.errors import SchemaError
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.recording import TaskOverlay
from fsr_core.sources.fsr.run_metadata import json_kind

__all__ = ["load_overlays"]

_MAX_POINTS = 1_000_000
"""Points one overlay curve may hold (a ``json`` payload caps it well before)."""


class _BadValue(ValueError):  # noqa: N818 - internal, never escapes
    """A value of the overlay is not what it must be (``reason`` says which)."""


def _finite(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _BadValue(f"{what} is {json_kind(value)}, expected a number")
    number = float(value)
    if not math.isfinite(number):
        raise _BadValue(f"{what} is not finite")
    return number


def _pair(value: Any, what: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise _BadValue(f"{what} is {json_kind(value)}, expected [x, y]")
    return _finite(value[0], f"{what}[0]"), _finite(value[1], f"{what}[1]")


def _pairs(value: Any, what: str) -> tuple[tuple[float, float], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > _MAX_POINTS:
        raise _BadValue(f"{what} is {json_kind(value)}, expected an array of [x, y]")
    return tuple(_pair(item, f"{what}[{i}]") for i, item in enumerate(value))


def _target(value: Any, what: str) -> tuple[tuple[float, float], str, float | None]:
    if not isinstance(value, Mapping):
        raise _BadValue(f"{what} is {json_kind(value)}, expected an object")
    label = value.get("label", "")
    if not isinstance(label, str):
        raise _BadValue(f"{what}.label is {json_kind(label)}, expected a string")
    tolerance = value.get("tolerance_m")
    tolerance_m = (
        None if tolerance is None else _finite(tolerance, f"{what}.tolerance_m")
    )
    return _pair(value.get("xy"), f"{what}.xy"), label, tolerance_m


def _overlay(value: Any) -> TaskOverlay:
    if not isinstance(value, Mapping):
        raise _BadValue(f"overlay is {json_kind(value)}, expected an object")
    kind = value.get("kind", "")
    if not isinstance(kind, str):
        raise _BadValue(f"overlay.kind is {json_kind(kind)}, expected a string")
    raw_targets = value.get("targets", [])
    if raw_targets is None:
        raw_targets = []
    if not isinstance(raw_targets, list):
        raise _BadValue(
            f"overlay.targets is {json_kind(raw_targets)}, expected an array"
        )
    targets = [_target(t, f"overlay.targets[{i}]") for i, t in enumerate(raw_targets)]
    active = value.get("active_index")
    if active is not None and (isinstance(active, bool) or not isinstance(active, int)):
        raise _BadValue(
            f"overlay.active_index is {json_kind(active)}, expected an integer"
        )
    return TaskOverlay(
        kind=kind,
        targets_xy=tuple(target[0] for target in targets),
        target_labels=tuple(target[1] for target in targets),
        tolerance_m=targets[0][2] if targets else None,
        curve_xy=_pairs(value.get("curve_xy"), "overlay.curve_xy"),
        reference_xy=_pairs(value.get("reference_xy"), "overlay.reference_xy"),
        active_index=active,
    )


def load_overlays(reader: FsrReader) -> dict[int, TaskOverlay]:
    """Return the overlay of each generation (the last task record's wins).

    Raises
    ------
    SchemaError
        A task record's ``overlay`` has a value of the wrong type or shape; the
        message names the stream, the record and the value.
    """
    overlays: dict[int, TaskOverlay] = {}
    for info in reader.streams.values():
        if info.spec.kind is not StreamKind.TASK:
            continue
        for record in reader.iter_records(info.name):
            value = record.decoded
            overlay = value.get("overlay") if isinstance(value, Mapping) else None
            if overlay is None:
                continue
            try:
                overlays[record.generation] = _overlay(overlay)
            except _BadValue as exc:
                raise SchemaError(
                    f"malformed task overlay: {exc}",
                    path=reader.path,
                    stream=info.name,
                    record=record.stream_seq,
                ) from exc
    return overlays
