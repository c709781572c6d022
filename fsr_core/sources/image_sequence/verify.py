"""The inspection report of an image-sequence folder; ``verify`` reads every frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel
from fsr_core.sources.inspection import add_verification, model_report

__all__ = ["folder_report"]


def folder_report(
    model: RecordingModel, path: Path, description: str, verify: bool
) -> dict[str, Any]:
    """Return the folder's report; with ``verify``, every frame is decoded."""
    report = model_report(model, description=description, size_bytes=0, verify=False)
    if not verify:
        return report
    problems: list[str] = []
    checked = 0
    for track in model.cameras:
        for index in range(track.count or 0):
            try:
                track.fetch(index)
            except FsrError as exc:
                problems.append(f"{track.name} frame {index}: {exc}")
            checked += 1
    add_verification(report, checked, problems)
    return report
