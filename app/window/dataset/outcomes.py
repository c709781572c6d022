"""What the Dataset overview knows of each playlist entry, and of its dataset.

One :class:`EntryOutcome` per checked entry (its own checks' result, or why it
could not be checked), made by the check job off the GUI thread.
:func:`overview_of` puts them together: the recordings of one dataset (the
episodes of one root, the files of one folder) are compared with each other
(:func:`fsr_core.checks.dataset_flags`), so each entry gets its own flags and
its dataset's, and each dataset its fences (where an outlier starts). No Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from fsr_core.checks import (
    CheckResult,
    Fence,
    Flag,
    Thresholds,
    dataset_fences,
    dataset_flags,
)

__all__ = [
    "METRICS",
    "DatasetOverviewData",
    "EntryOutcome",
    "EntryRow",
    "overview_of",
]

#: The metrics the table and the histograms show: key, heading, format.
METRICS: Final[tuple[tuple[str, str, str], ...]] = (
    ("duration_s", "duration s", ".2f"),
    ("frames", "frames", "d"),
    ("jerk_median", "jerk median", ".3g"),
    ("jerk_p95", "jerk p95", ".3g"),
    ("static_fraction", "static fraction", ".2f"),
    ("end_distance", "end-pose distance", ".3g"),
)


@dataclass(frozen=True)
class EntryOutcome:
    """One entry checked on its own: its result, or why it could not be."""

    path: Path
    group: Path
    """Its dataset: the root of an episode, the folder of a file."""
    member: str
    """Its name inside the dataset (``episode_000003``, ``take.fsr``)."""
    source: str = ""
    """The registry name of its source (``lerobot``, ``fsr``...)."""
    result: CheckResult | None = None
    error: str = ""
    """Why it could not be opened or checked ('' when it was)."""


@dataclass(frozen=True)
class EntryRow:
    """One row of the overview: the entry, its figures and all its flags."""

    outcome: EntryOutcome
    flags: tuple[Flag, ...]
    """Its own flags, then its dataset's."""
    values: dict[str, float | None] = field(default_factory=dict)
    """Per metric key of :data:`METRICS`."""
    outliers: frozenset[str] = frozenset()
    """The metrics on which it lies beyond its dataset's fence."""

    @property
    def path(self) -> Path:
        """The entry's playlist path."""
        return self.outcome.path

    @property
    def episode(self) -> int | None:
        """Its episode index, where it has one."""
        result = self.outcome.result
        return None if result is None else result.episode

    @property
    def first_flag_s(self) -> float | None:
        """Where its earliest flag starts (None without flags)."""
        return min((flag.start_s for flag in self.flags), default=None)


@dataclass(frozen=True)
class DatasetOverviewData:
    """Every checked entry, in playlist order, and each dataset's fences."""

    rows: tuple[EntryRow, ...]
    fences: dict[Path, tuple[Fence, ...]]

    def row_of(self, path: Path) -> EntryRow | None:
        """Return the row of ``path`` (None when it is not checked yet)."""
        for row in self.rows:
            if row.path == path:
                return row
        return None


def _values(result: CheckResult, end_distance: float | None) -> dict[str, float | None]:
    metrics = result.metrics
    return {
        "duration_s": metrics.duration_s,
        "frames": float(metrics.frames) if metrics.frames else None,
        "jerk_median": metrics.jerk_median,
        "jerk_p95": metrics.jerk_p95,
        "static_fraction": metrics.static_fraction,
        "end_distance": end_distance,
    }


def _beyond(fence: Fence, value: float | None) -> bool:
    if value is None:
        return False
    return value > fence.high or (fence.low is not None and value < fence.low)


def overview_of(
    outcomes: Sequence[EntryOutcome], thresholds: Thresholds
) -> DatasetOverviewData:
    """Return the rows of ``outcomes`` with their datasets' flags and fences."""
    groups: dict[Path, list[int]] = {}
    for number, outcome in enumerate(outcomes):
        if outcome.result is not None:
            groups.setdefault(outcome.group, []).append(number)
    more: dict[int, tuple[Flag, ...]] = {}
    distances: dict[int, float | None] = {}
    outliers: dict[int, set[str]] = {}
    fences: dict[Path, tuple[Fence, ...]] = {}
    for group, members in groups.items():
        results = [outcomes[number].result for number in members]
        checked = [result for result in results if result is not None]
        found = dataset_flags(checked, thresholds)
        group_fences = tuple(
            dataset_fences([result.metrics for result in checked], thresholds)
        )
        fences[group] = group_fences
        for place, number in enumerate(members):
            more[number] = found[place]
            for fence in group_fences:
                value = fence.values[place]
                if fence.metric == "end_distance":
                    distances[number] = value
                if _beyond(fence, value):
                    outliers.setdefault(number, set()).add(fence.metric)
    rows = []
    for number, outcome in enumerate(outcomes):
        result = outcome.result
        if result is None:
            rows.append(EntryRow(outcome, ()))
            continue
        rows.append(
            EntryRow(
                outcome,
                result.flags + more.get(number, ()),
                _values(result, distances.get(number)),
                frozenset(outliers.get(number, set())),
            )
        )
    return DatasetOverviewData(tuple(rows), fences)
