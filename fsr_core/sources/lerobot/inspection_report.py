"""Inspection reports of LeRobot episodes and datasets.

An episode's report is the shared shape of :mod:`fsr_core.sources.inspection`
with a ``lerobot`` section (dataset, codebase version, rows, files, tasks,
statistics). A dataset root's report lists every episode (index, length,
task, problem) and the files they use; with ``verify`` every episode is
checked (:mod:`fsr_core.sources.lerobot.verify`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsr_core.errors import FsrError
from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources.inspection import (
    add_verification,
    collection_head,
    json_safe,
    model_report,
    verification_entry,
)
from fsr_core.sources.lerobot.recording_model import journal_section
from fsr_core.sources.lerobot.table import EpisodeTable, episode_table
from fsr_core.sources.lerobot.verify import episode_problems, files_of

__all__ = ["dataset_report", "episode_report", "unreadable_episode_report"]


def _size(files: dict[str, Any]) -> int:
    return sum(size for size in files.values() if isinstance(size, int))


def episode_report(
    model: RecordingModel, root: Path, index: int, description: str, *, verify: bool
) -> dict[str, Any]:
    """Return the report of one opened episode (verified when asked)."""
    table = episode_table(root)
    episode = table.find(index)
    files = files_of(table, (episode,))
    report = model_report(
        model, description=description, size_bytes=_size(files), verify=False
    )
    report["lerobot"]["files"] = files
    if verify:
        checked, problems = episode_problems(table, episode)
        add_verification(report, checked, problems)
    return report


def unreadable_episode_report(
    address: Path, root: Path, index: int, description: str, error: FsrError
) -> dict[str, Any]:
    """Return the report of an episode that does not open: why, and its journal."""
    table = episode_table(root)
    episode = table.find(index)
    files = files_of(table, (episode,))
    reason = str(error)
    return {
        "source": "lerobot",
        "description": description,
        "path": str(address),
        "size_bytes": _size(files),
        "valid": False,
        "integrity": {"status": Integrity.INVALID.value, "reason": reason},
        "duration_s": episode.length / table.info.fps,
        "channels": [],
        "cameras": [],
        "metadata": {"dataset": root.name, "episode_index": index},
        "provenance": {},
        "notes": [reason],
        "lerobot": json_safe(
            {
                "dataset": str(root),
                "episode_index": index,
                "length": episode.length,
                "tasks": list(episode.tasks),
                "files": files,
                "embodichain": journal_section(table, index),
            }
        ),
        "verification": verification_entry(0, [reason], digest_verified=False),
    }


def _episodes(table: EpisodeTable) -> list[dict[str, Any]]:
    return [
        {
            "index": episode.index,
            "length": episode.length,
            "duration_s": episode.length / table.info.fps,
            "tasks": list(episode.tasks),
            "problem": episode.problem,
        }
        for episode in table.episodes
    ]


def dataset_report(root: Path, description: str, *, verify: bool) -> dict[str, Any]:
    """Return the report of a whole dataset (every episode verified when asked)."""
    table = episode_table(root)
    info = table.info
    files = files_of(table, table.episodes)
    problems = list(table.problems)
    problems.extend(
        f"{name} is missing" for name, size in files.items() if size is None
    )
    problems.extend(
        f"episode {episode.index}: {episode.problem}"
        for episode in table.episodes
        if episode.problem
    )
    checked = 0
    if verify:
        problems = list(table.problems)
        for episode in table.episodes:
            rows, found = episode_problems(table, episode)
            checked += rows
            problems.extend(found)
    report: dict[str, Any] = {
        **collection_head("lerobot", description, str(root), _size(files), problems),
        "duration_s": sum(episode.length for episode in table.episodes) / info.fps,
        "channels": [
            {
                "name": feature.key,
                "unit": "",
                "label": feature.key,
                "columns": list(feature.columns),
                "samples": info.total_frames,
            }
            for feature in info.numeric
        ],
        "cameras": [
            {
                "name": feature.key,
                "frames": info.total_frames,
                "stored_as": feature.dtype,
            }
            for feature in info.cameras
        ],
        "metadata": json_safe({k: v for k, v in info.raw.items() if k != "features"}),
        "provenance": {},
        "notes": [],
        "lerobot": {
            "codebase_version": info.version,
            "fps": info.fps,
            "robot_type": info.robot_type,
            "episodes": _episodes(table),
            "tasks": {str(k): v for k, v in sorted(table.tasks.items())},
            "files": files,
        },
    }
    if verify:
        report["verification"] = verification_entry(
            checked, problems, digest_verified=False
        )
    return report
