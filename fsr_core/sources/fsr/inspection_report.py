"""The inspection report of an FSR file, in the shape every source shares.

:func:`inspect_fsr` is :func:`fsr_core.format.report.inspection_report` (kept
as it is, at the top level) plus the keys of
:mod:`fsr_core.sources.inspection` that it lacks: ``source``,
``description``, ``integrity``, ``duration_s``, ``channels``, ``cameras`` and
``notes``. They come from the file's index, so no payload is decoded unless
``verify`` asks for it. A run that embeds its model (the ``model`` run
metadata names its ``entry`` file) gets ``robot_description``: the inspector
then opens the recording to pose the robot the simulator's profile gives it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.format.reader import FsrReader
from fsr_core.format.report import inspection_report
from fsr_core.format.streams import StreamKind
from fsr_core.format.values import StreamInfo
from fsr_core.recording import Integrity
from fsr_core.sources.fsr.run_metadata import check_run_metadata
from fsr_core.sources.fsr.tail import recovered_copy_reason

__all__ = ["FSR_DESCRIPTION", "inspect_fsr"]

FSR_DESCRIPTION = "FSR recording"


def _duration_s(reader: FsrReader) -> float:
    """Sum over generations of each generation's sim-time span (the play time)."""
    spans: dict[int, tuple[float, float]] = {}
    for name in reader.streams:
        firsts, lasts = reader.generation_runs(name)
        for begin, end in zip(firsts, lasts, strict=True):
            generation = int(begin["generation"])
            first, last = spans.get(generation, (np.inf, -np.inf))
            spans[generation] = (
                min(first, float(begin["sim_time_s"])),
                max(last, float(end["sim_time_s"])),
            )
    return float(sum(last - first for first, last in spans.values()))


def _unit(units: str | tuple[str, ...]) -> str:
    if isinstance(units, str):
        return units
    return units[0] if len(set(units)) == 1 else ""


def _streams_of_kind(reader: FsrReader, kind: StreamKind) -> list[StreamInfo]:
    return [info for info in reader.streams.values() if info.spec.kind is kind]


def _channels(reader: FsrReader) -> list[dict[str, Any]]:
    entries = []
    for info in _streams_of_kind(reader, StreamKind.NUMERIC):
        spec = info.spec
        columns = spec.channels or tuple(str(i) for i in range(spec.element_count))
        entries.append(
            {
                "name": info.name,
                "unit": _unit(spec.units),
                "label": info.name,
                "columns": list(columns),
                "samples": info.record_count,
            }
        )
    return entries


def _cameras(reader: FsrReader) -> list[dict[str, Any]]:
    entries = []
    for info in _streams_of_kind(reader, StreamKind.CAMERA_RGB):
        spec = info.spec
        width, height = spec.frame_size
        entries.append(
            {
                "name": spec.camera or info.name,
                "frames": info.record_count,
                "stream": info.name,
                "codec": spec.codec,
                "width": width,
                "height": height,
            }
        )
    return entries


def _integrity(reader: FsrReader, report: dict[str, Any]) -> dict[str, str]:
    """Return the playlist badge of the file as inspected, and why."""
    verification = report.get("verification")
    footer = reader.footer
    profile = reader.profile.value
    if verification is not None and verification["problem_count"]:
        count = verification["problem_count"]
        status, reason = Integrity.INVALID, f"{count} problem(s) found reading records"
    elif footer is not None and footer.recovered is not None:
        status, reason = Integrity.RECOVERED, recovered_copy_reason(footer.recovered)
    elif footer is None or footer.degraded:
        gaps = 0 if footer is None else len(footer.gaps)
        status, reason = Integrity.DEGRADED, f"degraded: {gaps} gap(s)"
    elif profile == "structural":
        status, reason = (
            Integrity.UNVERIFIED,
            "integrity not verified (structural profile)",
        )
    elif verification is not None and verification["payloads_digest_verified"]:
        status, reason = Integrity.VALID, f"{profile} profile, every digest verified"
    else:
        status, reason = Integrity.VALID, f"{profile} profile, digests not checked"
    return {"status": status.value, "reason": reason}


def inspect_fsr(
    path: str | os.PathLike[str], *, verify: bool = False
) -> dict[str, Any]:
    """Return the inspection report of the FSR file at ``path``.

    Raises
    ------
    FsrError
        The file cannot be opened as FSR (a truncated file is not recovered:
        the message points at ``fsr-viewer recover``), or its run metadata
        has a well-known key of the wrong type (:class:`SchemaError`).
    """
    with FsrReader.open(Path(path)) as reader:
        check_run_metadata(reader.metadata, reader.path)  # as the player does
        report = inspection_report(reader, verify=verify)
        return {
            "source": "fsr",
            "description": FSR_DESCRIPTION,
            **report,
            "integrity": _integrity(reader, report),
            "duration_s": _duration_s(reader),
            "channels": _channels(reader),
            "cameras": _cameras(reader),
            "notes": [],
            **_embedded_model(reader),
        }


def _embedded_model(reader: FsrReader) -> dict[str, Any]:
    """Return ``robot_description`` of a run whose metadata names its model file."""
    model = reader.metadata.get("model")
    entry = model.get("entry") if isinstance(model, dict) else None
    if not isinstance(entry, str) or not entry:
        return {}
    return {"robot_description": {"where": f"{reader.path} {entry}", "kind": None}}
