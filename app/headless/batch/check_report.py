"""``batch check``'s pass in the parent: the dataset-level flags, once every item is in.

Workers measure each recording and flag what it shows on its own; the
dataset-level kinds (length, jerk, stillness, final pose) need every episode's
metrics, so the parent groups the results by dataset (an episode's dataset
root; a file's folder), runs :func:`~fsr_core.checks.dataset_flags` over each
group and adds its flags to each line, after the recording's own. A result
taken over by ``--resume`` has its old dataset-level flags replaced.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from fsr_core.checks import (
    DATASET_KINDS,
    CheckResult,
    EpisodeMetrics,
    Thresholds,
    dataset_flags,
)
from fsr_core.playlists.episodes import split_episode_path

__all__ = ["add_dataset_flags", "dataset_key"]

_DATASET_KIND_NAMES = frozenset(kind.value for kind in DATASET_KINDS)


def dataset_key(address: str) -> str:
    """Return what groups a recording with its dataset: the root, or the folder."""
    path = Path(address)
    found = split_episode_path(path)
    return str(found[0] if found is not None else path.parent)


def _measured(result: dict[str, Any]) -> bool:
    return result.get("status") != "failed" and isinstance(result.get("metrics"), dict)


def add_dataset_flags(results: list[dict[str, Any]], thresholds: Thresholds) -> None:
    """Add each measured result's dataset-level flags to its ``flags``, in place."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        if _measured(result):
            groups[dataset_key(str(result.get("recording") or result["input"]))].append(
                result
            )
    for members in groups.values():
        checked = [
            CheckResult(
                str(result.get("recording")),
                result.get("episode"),
                EpisodeMetrics.from_json(result["metrics"]),
            )
            for result in members
        ]
        for result, found in zip(
            members, dataset_flags(checked, thresholds), strict=True
        ):
            own = [
                flag
                for flag in result.get("flags") or []
                if isinstance(flag, dict)
                and flag.get("kind") not in _DATASET_KIND_NAMES
            ]
            result["flags"] = own + [flag.to_json() for flag in found]
