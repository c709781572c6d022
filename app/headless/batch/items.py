"""What one batch run does, as values that travel to worker processes.

Everything here is a frozen dataclass of plain values, so an item and the
options pickle for a process pool or a Ray task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsr_core.playlists.index_file import IndexEntry
from fsr_core.playlists.real2sim_index import Real2SimEpisode
from fsr_core.sources.open_options import OpenOptions

if TYPE_CHECKING:  # the export loads PyAV: only its workers import it
    from app.headless.export.request import VideoRequest
    from fsr_core.checks import Thresholds

__all__ = ["BatchOptions", "Prior", "Verb", "WorkItem"]


class Verb(StrEnum):
    """What ``batch`` does to every recording."""

    VALIDATE = "validate"
    EXPORT = "export"
    CONVERT = "convert"
    RESIMULATE = "resimulate"
    INDEX = "index"
    CHECK = "check"

    @property
    def writes_files(self) -> bool:
        """Whether each recording gives an output file in ``--out``."""
        return self in (Verb.EXPORT, Verb.CONVERT, Verb.RESIMULATE)


@dataclass(frozen=True)
class BatchOptions:
    """The options every item of one run shares."""

    verb: Verb
    video: VideoRequest | None = None
    """``export``: the ``--export`` options; ``source`` and ``output`` are set
    per item."""
    with_recorded_force: bool = False
    """``resimulate``: apply the recorded external force channel."""
    opening: OpenOptions = field(default_factory=OpenOptions)
    """How every input opens (``--time-base``)."""
    thresholds: Thresholds | None = None
    """``check``: the thresholds (``--checks FILE.toml`` over the defaults)."""


@dataclass(frozen=True)
class Prior:
    """What an earlier run's report says it did with an input (``--resume``)."""

    input_sha256: str
    output: Path | None
    output_bytes: int
    extras: dict[str, Any]
    """The earlier result's verb-specific keys (an index entry, a comparison)."""


@dataclass(frozen=True)
class WorkItem:
    """One recording to work on, and where its output goes."""

    number: int
    """Its place in the run (0-based), for a stable order of what it gives."""
    input: Path
    output: Path | None = None
    overwrite: bool = False
    expected: IndexEntry | None = None
    """The index entry the recording was listed under (its digest is checked)."""
    pinned: Real2SimEpisode | None = None
    """The replay-index episode it was listed as (its artifacts are checked)."""
    prior: Prior | None = None
    """An earlier, complete result: skipped when the input digest is unchanged."""
    problem: str = ""
    """Why the item cannot run at all (reported as failed without a worker)."""
