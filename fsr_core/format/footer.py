"""The footer JSON: inventory, calibration epochs, integrity, provenance, gaps."""

from __future__ import annotations

from typing import Any

import numpy as np

from fsr_core.errors import IndexCorruptionError, SchemaError
from fsr_core.format.index_columns import distinct
from fsr_core.format.layout import StreamSummary
from fsr_core.format.profiles import IntegrityProfile, parse_profile
from fsr_core.format.streams import StreamSpec
from fsr_core.format.values import Footer, Gap

__all__ = ["inventory_for", "parse_footer", "summary_inventory"]


def inventory_for(spec: StreamSpec, rows: np.ndarray, batches: int) -> dict[str, Any]:
    """Compute the inventory entry of one stream from its index rows."""
    if len(rows) == 0:
        return _inventory(spec, 0, 0, 0, None, None, [])
    return _inventory(
        spec,
        len(rows),
        batches,
        int(rows["payload_length"].astype(np.int64).sum()),
        rows[:1],
        rows[-1:],
        [int(g) for g in distinct(rows["generation"])],
    )


def summary_inventory(
    spec: StreamSpec, summary: StreamSummary, batches: int
) -> dict[str, Any]:
    """Compute the inventory entry of one stream from what its checks learned."""
    if summary.records == 0:
        return _inventory(spec, 0, 0, 0, None, None, [])
    return _inventory(
        spec,
        summary.records,
        batches,
        summary.payload_bytes,
        summary.firsts[:1],
        summary.lasts[-1:],
        [int(g) for g in summary.firsts["generation"]],
    )


def _inventory(
    spec: StreamSpec,
    records: int,
    batches: int,
    payload_bytes: int,
    first: Any,
    last: Any,
    generations: list[int],
) -> dict[str, Any]:
    """Return the inventory entry (``first``, ``last``: the end records' clocks)."""
    empty = first is None
    return {
        "stream": spec.name,
        "records": records,
        "batches": batches,
        "payload_bytes": payload_bytes,
        "first_tick": None if empty else int(first["tick"][0]),
        "last_tick": None if empty else int(last["tick"][0]),
        "first_sim_time_s": None if empty else float(first["sim_time_s"][0]),
        "last_sim_time_s": None if empty else float(last["sim_time_s"][0]),
        "generations": generations,
    }


def parse_footer(
    document: Any, profile: IntegrityProfile, stream_names: list[str]
) -> Footer:
    """Check the footer's shape and return it as a :class:`Footer`."""
    if not isinstance(document, dict):
        raise SchemaError("footer must be an object", section="footer")
    for key in (
        "inventory",
        "calibration",
        "integrity",
        "provenance",
        "degraded",
        "gaps",
    ):
        if key not in document:
            raise SchemaError(f"footer has no {key!r}", section="footer")
    integrity = document["integrity"]
    if (
        not isinstance(integrity, dict)
        or parse_profile(integrity.get("profile")) is not profile
    ):
        raise SchemaError(
            "footer integrity profile differs from the header's", section="footer"
        )
    if integrity.get("digest") != "sha256":
        raise SchemaError(
            f"unsupported digest algorithm {integrity.get('digest')!r}",
            section="footer",
        )
    gaps = _parse_gaps(document["gaps"], stream_names)
    degraded = document["degraded"]
    if not isinstance(degraded, bool) or (gaps and not degraded):
        raise SchemaError(
            "footer degraded flag must be true when gaps are recorded", section="footer"
        )
    _check_objects(document)
    return Footer(
        profile=profile,
        provenance=document["provenance"],
        degraded=degraded,
        gaps=gaps,
        terminal_cut=document.get("terminal_cut"),
        completion=document.get("completion"),
        recovered=document.get("recovered"),
        raw=document,
    )


def _check_objects(document: dict[str, Any]) -> None:
    if not isinstance(document["provenance"], dict):
        raise SchemaError("footer provenance must be an object", section="footer")
    for key in ("terminal_cut", "completion", "recovered"):
        if document.get(key) is not None and not isinstance(document[key], dict):
            raise SchemaError(
                f"footer {key} must be an object or null", section="footer"
            )


def _parse_gaps(items: Any, stream_names: list[str]) -> tuple[Gap, ...]:
    if not isinstance(items, list):
        raise SchemaError("footer gaps must be a list", section="footer")
    gaps: list[Gap] = []
    for index, item in enumerate(items):
        ok = isinstance(item, dict) and item.get("stream") in stream_names
        ok = ok and all(
            isinstance(item.get(k), int) and not isinstance(item.get(k), bool)
            for k in ("after_seq", "lost")
        )
        if (
            not ok
            or not isinstance(item.get("reason"), str)
            or item["lost"] < 1
            or item["after_seq"] < -1
        ):
            raise SchemaError(f"footer gap {index} is malformed", section="footer")
        gaps.append(
            Gap(item["stream"], item["after_seq"], item["lost"], item["reason"])
        )
    return tuple(gaps)


def check_inventory(document: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    """Check that the footer's inventory equals what the index says, per stream."""
    if document.get("inventory") != expected:
        found = document.get("inventory")
        name = "?"
        if isinstance(found, list):
            for want, have in zip(expected, found, strict=False):
                if want != have:
                    name = str(want.get("stream"))
                    break
        raise IndexCorruptionError(
            f"footer inventory disagrees with the index (stream {name})",
            section="footer",
        )
