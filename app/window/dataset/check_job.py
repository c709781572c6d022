"""The Dataset overview's checks, run over playlist entries off the GUI thread.

One :class:`DatasetCheckJob` opens each entry in turn
(:func:`~fsr_core.sources.open_recording`, the options the window opens files
with) and runs :func:`~fsr_core.checks.check_recording` on it. Each entry's
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
from fsr_core.checks import Thresholds, check_recording
from fsr_core.errors import FsrError
from fsr_core.playlists.episodes import split_episode_path
from fsr_core.recording import RecordingModel

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
    ) -> None:
        super().__init__(tuple(paths))
        self.paths = tuple(paths)
        self._opener = opener
        self._thresholds = thresholds
        self.results = MeasuredSignals()

    def work(self) -> object:
        """Check every entry; return how many were checked, or Ended on Cancel."""
        try:
            total = len(self.paths)
            for done, path in enumerate(self.paths):
                if self.cancel_requested:
                    return Ended(f"checks cancelled after {done} of {total}")
                self.report_progress(done, total)
                self.results.measured.emit(self._check(path))
            self.report_progress(total, total)
            return total
        finally:
            retire(self.results)

    def _check(self, path: Path) -> EntryOutcome:
        group, member = dataset_of(path)
        try:
            model = self._opener(path)
            result = check_recording(model, self._thresholds)
        except (FsrError, ValueError, OSError, MemoryError) as exc:
            reason = error_message(exc, files=(path,), expected=(ValueError, OSError))
            return EntryOutcome(path, group, member, error=reason)
        return EntryOutcome(path, group, member, str(model.source), result)
