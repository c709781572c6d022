"""The inspection report of a recording, in one JSON shape for every source.

``fsr-viewer inspect --json`` prints it. The top-level keys are the same for
every source:

``source``, ``description``
    The registry name (``fsr``, ``skelarm``) and what the file is.
``path``, ``size_bytes``
    The file and its size.
``valid``
    Whether the file can be trusted (``inspect`` exits 0 when true, 1 when not).
``integrity``
    ``{"status", "reason"}``: the playlist badge (a
    :class:`~fsr_core.recording.Integrity` value) and why.
``duration_s``
    Play-time length in seconds.
``channels``
    One entry per numeric channel: ``name``, ``unit``, ``label``, ``columns``
    and ``samples`` (as the file's metadata gives them: a channel read only
    when shown is not read for the report; ``null`` when only reading tells).
``cameras``
    One entry per camera: ``name`` and ``frames`` (FSR adds ``stream``,
    ``codec``, ``width`` and ``height``).
``metadata``, ``provenance``
    What the file says about itself and where it came from.
``notes``
    What the source chose or left out while reading (plain sentences).
``verification``
    Only with ``verify``: ``checked_records``, ``problems`` (at most 100),
    ``problem_count`` and ``payloads_digest_verified``.
``robot_description``
    Only for a recording that carries its robot's description (an MCAP's
    ``/robot_description``, the model a MuJoCo run embeds): where it is and
    its ``kind`` (``urdf``, ``mjcf``). ``inspect`` then poses that robot and
    adds ``robot`` (as ``--robot`` does), or a note saying why it cannot.

A source's own facts sit under a key named after it (``report["skelarm"]``),
except FSR's, which stay at the top level where ``inspect --json`` has always
printed them: ``version``, ``profile``, ``records``, ``streams``,
``calibration_epochs``, ``lifecycle``, ``terminal_cut``, ``completion``,
``degraded``, ``gaps`` and ``recovered``.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from typing import Any, Final

from fsr_core.format.safe_open import open_source
from fsr_core.recording import Integrity, RecordingModel

__all__ = [
    "COMMON_KEYS",
    "add_verification",
    "collection_head",
    "file_report",
    "json_safe",
    "model_report",
    "verification_entry",
]

COMMON_KEYS: Final = (
    "source",
    "description",
    "path",
    "size_bytes",
    "valid",
    "integrity",
    "duration_s",
    "channels",
    "cameras",
    "metadata",
    "provenance",
    "notes",
)
"""The keys every source's report has (``verification`` only when verified)."""


def json_safe(value: Any) -> Any:
    """Return ``value`` as plain JSON data.

    Mappings and sequences are copied, numbers become Python numbers (a
    non-finite one ``None``) and anything else JSON cannot hold (TOML dates,
    paths) becomes its text.
    """
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    if isinstance(value, str | bool) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else None
    return str(value)


def verification_entry(
    checked_records: int, problems: list[str], *, digest_verified: bool
) -> dict[str, Any]:
    """Return the ``verification`` entry of a report."""
    return {
        "checked_records": checked_records,
        "problems": problems[:100],
        "problem_count": len(problems),
        "payloads_digest_verified": digest_verified and not problems,
    }


def collection_head(
    source: str, description: str, path: str, size_bytes: int, problems: list[str]
) -> dict[str, Any]:
    """Return the first keys of a whole file's or dataset's report.

    It is valid when ``problems`` is empty; else its integrity's reason is the
    first of them.
    """
    valid = not problems
    return {
        "source": source,
        "description": description,
        "path": path,
        "size_bytes": size_bytes,
        "valid": valid,
        "integrity": {
            "status": (Integrity.VALID if valid else Integrity.INVALID).value,
            "reason": "" if valid else problems[0],
        },
    }


def add_verification(
    report: dict[str, Any],
    checked_records: int,
    problems: list[str],
    *,
    reason: str = "{first}",
) -> None:
    """Give ``report`` its ``verification`` entry; a problem makes it invalid.

    The integrity's ``reason`` is ``reason`` with ``{count}`` (the problems)
    and ``{first}`` (the first of them) filled in.
    """
    report["verification"] = verification_entry(
        checked_records, problems, digest_verified=False
    )
    if problems:
        report["valid"] = False
        report["integrity"] = {
            "status": Integrity.INVALID.value,
            "reason": reason.format(count=len(problems), first=problems[0]),
        }


def _channels(model: RecordingModel) -> list[dict[str, Any]]:
    return [
        {
            "name": channel.name,
            "unit": channel.unit,
            "label": channel.label or channel.name,
            "columns": list(channel.columns),
            "samples": channel.count,
        }
        for channel in model.channels.values()
    ]


def model_report(
    model: RecordingModel,
    *,
    description: str,
    size_bytes: int,
    verify: bool = False,
    checked_records: int | None = None,
) -> dict[str, Any]:
    """Return the report of a file opened as ``model`` (what any source can give).

    The source's own section (``report[model.source]``) is ``model.report``
    without its ``source`` and ``notes`` (``notes`` are top level). With
    ``verify``, the ``verification`` entry counts ``checked_records`` (default:
    every channel sample): opening the model read and checked them all.
    """
    own = {
        key: value
        for key, value in model.report.items()
        if key not in ("source", "notes")
    }
    notes = model.report.get("notes")
    report: dict[str, Any] = {
        "source": model.source,
        "description": description,
        "path": str(model.path),
        "size_bytes": size_bytes,
        "valid": model.integrity is not Integrity.INVALID,
        "integrity": {
            "status": model.integrity.value,
            "reason": model.integrity_reason,
        },
        "duration_s": model.duration_s,
        "channels": _channels(model),
        "cameras": [
            {"name": camera.name, "frames": camera.count} for camera in model.cameras
        ],
        "metadata": json_safe(model.metadata),
        "provenance": json_safe(model.provenance),
        "notes": [str(note) for note in notes] if isinstance(notes, list) else [],
        model.source: json_safe(own),
    }
    if model.robot_description is not None:
        report["robot_description"] = {
            "where": model.robot_description.where,
            "kind": model.robot_description.kind,
        }
    if verify:
        if checked_records is None:
            checked_records = sum(c.count or 0 for c in model.channels.values())
        report["verification"] = verification_entry(
            checked_records, [], digest_verified=False
        )
    return report


def file_report(
    model: RecordingModel,
    size_path: str | os.PathLike[str],
    *,
    description: str,
    verify: bool,
    checked_records: int | None,
) -> dict[str, Any]:
    """Return :func:`model_report` of a model opened from the file ``size_path``.

    The file's size is read through :func:`fsr_core.format.safe_open.open_source`
    (so a FIFO or a device is refused, never waited on).
    """
    source = open_source(size_path)
    try:
        size_bytes = source.size
    finally:
        source.close()
    return model_report(
        model,
        description=description,
        size_bytes=size_bytes,
        verify=verify,
        checked_records=checked_records,
    )
