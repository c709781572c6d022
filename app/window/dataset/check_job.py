"""The Dataset overview's checks, run over playlist entries off the GUI thread.

One :class:`DatasetCheckJob` first checks at once the dataset episodes a
source reads together (:func:`~fsr_core.checks.checked_together`), then opens
each other entry in turn (:func:`~fsr_core.sources.open_recording`, the
options the window opens files with) and runs
:func:`~fsr_core.checks.check_recording` on it. Each entry's
:class:`~app.window.dataset.outcomes.EntryOutcome` is reported as soon as it
is known (``measured``), so the table fills while the job runs and what was
measured before a Cancel stays measured. An entry that cannot be opened is an
outcome with its reason, never the end of the job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.window.dataset.outcomes import EntryOutcome
from app.window.workers.background_job import BackgroundJob, Ended
from app.window.workers.error_message import error_message
from app.window.workers.gui_owned import gui_parent, retire
from fsr_core.checks import CheckResult, Thresholds, check_recording, checked_together
from fsr_core.errors import FsrError
from fsr_core.playlists.episodes import split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources import OpenOptions, source_for

__all__ = ["DatasetCheckJob", "MeasuredSignals", "dataset_of"]


class MeasuredSignals(QObject):
    """Reports one entry's outcome (made on the GUI thread, deleted there)."""

    measured = Signal(object)

    def __init__(self) -> None:
        super().__init__(gui_parent())


def dataset_of(path: Path) -> tuple[Path, str]:
    """Return the dataset ``path`` belongs to and its name inside it.

    An episode's dataset is its root; a file's is its folder.
    """
    found = split_episode_path(path)
    if found is not None:
        return found[0], path.name
    return path.parent, path.name


class DatasetCheckJob(BackgroundJob):
    """Check ``paths`` one after the other; :meth:`cancel` stops between two."""

    def __init__(
        self,
        paths: Sequence[Path],
        opener: Callable[[Path], RecordingModel],
        thresholds: Thresholds,
        options: OpenOptions | None = None,
    ) -> None:
        super().__init__(tuple(paths))
        self.paths = tuple(paths)
        self._opener = opener
        self._thresholds = thresholds
        self._options = options
        self._together: dict[Path, CheckResult] = {}
        self._sources: dict[Path, str] = {}
        self.results = MeasuredSignals()

    def work(self) -> object:
        """Check every entry; return how many were checked, or Ended on Cancel."""
        try:
            total = len(self.paths)
            self._check_together()
            for done, path in enumerate(self.paths):
                if self.cancel_requested:
                    return Ended(f"checks cancelled after {done} of {total}")
                self.report_progress(done, total)
                self.results.measured.emit(self._check(path))
            self.report_progress(total, total)
            return total
        finally:
            retire(self.results)

    def _check_together(self) -> None:
        """Check at once the episodes a source reads together.

        A problem there leaves each entry to be checked alone.
        """
        try:
            self._together = checked_together(
                self.paths, self._thresholds, self._options
            )
        except (FsrError, ValueError, OSError, MemoryError):
            self._together = {}

    def _source_name(self, group: Path) -> str:
        if group not in self._sources:
            self._sources[group] = source_for(group).name
        return self._sources[group]

    def _check(self, path: Path) -> EntryOutcome:
        group, member = dataset_of(path)
        together = self._together.get(path)
        if together is not None:
            return EntryOutcome(path, group, member, self._source_name(group), together)
        try:
            model = self._opener(path)
            result = check_recording(model, self._thresholds)
        except (FsrError, ValueError, OSError, MemoryError) as exc:
            reason = error_message(exc, files=(path,), expected=(ValueError, OSError))
            return EntryOutcome(path, group, member, error=reason)
        return EntryOutcome(path, group, member, str(model.source), result)
