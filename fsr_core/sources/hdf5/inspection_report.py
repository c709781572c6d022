"""Inspection reports of HDF5 datasets: one episode, or a whole file.

An episode's report is the shared shape of :mod:`fsr_core.sources.inspection`
with an ``hdf5`` section (layout, group, arrays and their roles, ``env_args``,
the episode's attributes and JSON metadata). A whole file's report lists its
episodes; with ``verify`` every episode's arrays are checked
(:mod:`fsr_core.sources.hdf5.verify`) and the first problem names its episode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsr_core.recording import RecordingModel
from fsr_core.sources.hdf5.arrays import CAMERA, CHANNEL, DEPTH, episode_arrays
from fsr_core.sources.hdf5.recording_model import EpisodeFile, play_rate
from fsr_core.sources.inspection import (
    add_verification,
    collection_head,
    json_safe,
    model_report,
    verification_entry,
)

__all__ = ["episode_report", "file_report"]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def episode_report(
    model: RecordingModel,
    path: Path,
    index: int | None,
    description: str,
    *,
    verify: bool,
) -> dict[str, Any]:
    """Return the report of one opened episode (verified when asked)."""
    from fsr_core.sources.hdf5.verify import verify_episodes

    report = model_report(
        model, description=description, size_bytes=_size(path), verify=False
    )
    if verify:
        source = EpisodeFile(path)
        try:
            checked, problems = verify_episodes(
                source.handle, source.layout, path, only=index
            )
        finally:
            source.close()
        add_verification(report, checked, problems)
    return report


def file_report(path: Path, description: str, *, verify: bool) -> dict[str, Any]:
    """Return the report of a whole file of episodes (all verified when asked)."""
    from fsr_core.sources.hdf5.verify import verify_episodes

    source = EpisodeFile(path)
    try:
        layout = source.layout
        rate, timing = play_rate(layout)
        first = layout.episodes[0] if layout.episodes else None
        arrays = () if first is None else episode_arrays(source.group(first), path)
        checked, problems = (
            verify_episodes(source.handle, layout, path) if verify else (0, [])
        )
    finally:
        source.close()
    steps = sum(max(episode.samples - 1, 0) for episode in layout.episodes)
    report: dict[str, Any] = {
        **collection_head("hdf5", description, str(path), _size(path), problems),
        "duration_s": steps / rate,
        "channels": [
            {
                "name": info.key,
                "unit": "",
                "label": info.key,
                "columns": [],
                "samples": info.rows,
            }
            for info in arrays
            if info.role == CHANNEL
        ],
        "cameras": [
            {"name": info.key, "frames": info.rows}
            for info in arrays
            if info.role in (CAMERA, DEPTH)
        ],
        "metadata": json_safe({"env_args": layout.env_args or {}, **layout.metadata}),
        "provenance": {},
        "notes": [timing] if timing else [],
        "hdf5": json_safe(
            {
                "layout": layout.kind,
                "rate_hz": rate,
                "episodes": [
                    {
                        "index": episode.index,
                        "name": episode.name,
                        "group": episode.group,
                        "steps": episode.steps,
                        "duration_s": max(episode.samples - 1, 0) / rate,
                    }
                    for episode in layout.episodes
                ],
            }
        ),
    }
    if verify:
        report["verification"] = verification_entry(
            checked, problems, digest_verified=False
        )
    return report
