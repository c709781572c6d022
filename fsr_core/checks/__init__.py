"""Quality checks of recordings and datasets: flags with a kind, a span, a value.

:func:`check_recording` checks one recording (a file or a dataset episode)
on its own and measures it; :func:`checked_together` does the same for the
many episodes of a dataset a source reads in one go, where they need no
more than their numbers; :func:`dataset_flags` compares the recordings of
one dataset by those measures (length, jerk, stillness, final pose). The
thresholds are one table, :class:`Thresholds` (docs/checks.md), which a
``--checks FILE.toml`` overrides (:func:`read_thresholds`). No Qt: the
command line and the window use the same values.
"""

from fsr_core.checks.column_checks import check_columns, checked_together
from fsr_core.checks.dataset import MIN_EPISODES, Fence, dataset_fences, dataset_flags
from fsr_core.checks.flags import (
    DATASET_KINDS,
    ERROR_KINDS,
    CheckResult,
    EpisodeMetrics,
    Flag,
    FlagKind,
)
from fsr_core.checks.recording_checks import check_recording, episode_of, error_flags
from fsr_core.checks.thresholds import Thresholds, read_thresholds, threshold_rows

__all__ = [
    "DATASET_KINDS",
    "ERROR_KINDS",
    "MIN_EPISODES",
    "CheckResult",
    "EpisodeMetrics",
    "Fence",
    "Flag",
    "FlagKind",
    "Thresholds",
    "check_columns",
    "check_recording",
    "checked_together",
    "dataset_fences",
    "dataset_flags",
    "episode_of",
    "error_flags",
    "read_thresholds",
    "threshold_rows",
]
