"""View → Dataset: check the playlist's entries, show them, flag and export them.

:class:`DatasetOverview` owns the overview's dock and drives it:

- when the dock is shown (and when entries join the playlist while it is),
  the entries not checked yet are checked on a thread of their own
  (:class:`~app.window.dataset.check_job.DatasetCheckJob`), with the dock's
  progress bar and Cancel; each entry's outcome is kept for the session;
- the outcomes of one dataset are compared (:func:`overview_of`) into the
  table, the histograms, the playlist's flag badges and the timeline's flag
  marks of the playing entry;
- a click on a row opens that entry at its first flag;
- key F (and the table's box) flags or unflags the playing entry; the
  verdict is kept in the user's settings (:class:`ManualFlags`);
- Export kept…/Export flagged… write a playlist index of those entries
  (:class:`IndexExportJob`), and for a LeRobot dataset the dock shows the
  ``lerobot-edit-dataset`` command that drops the flagged episodes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

from PySide6.QtCore import QModelIndex, QObject, QSettings, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from app.window.dataset.check_job import DatasetCheckJob, dataset_of
from app.window.dataset.dock import DatasetDock
from app.window.dataset.index_export import (
    ExportedIndex,
    IndexExportJob,
    delete_episodes_command,
)
from app.window.dataset.manual_flags import ManualFlags, Verdict
from app.window.dataset.outcomes import (
    DatasetOverviewData,
    EntryOutcome,
    EntryRow,
    overview_of,
)
from app.window.dataset.table_model import DatasetTableModel
from app.window.ports import StatusLine
from app.window.state.session import PlayerSession
from app.window.widgets.flag_text import (
    Severity,
    badge_text,
    flag_line,
    severity_of,
)
from app.window.widgets.timeline import TimelineScrubber
from app.window.workers.background_job import BackgroundJob
from app.window.workers.job_thread import JobThread
from fsr_core.checks import Thresholds
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = ["DatasetOverview", "Selection"]

#: Which entries an export lists.
Selection = Literal["kept", "flagged"]
#: The least time between two redraws while the checks report.
REDRAW_MS: Final = 250
#: How long closing the window waits for a job to stop.
SHUTDOWN_WAIT_MS: Final = 10_000
_INDEX_FILTER: Final = "Playlist index (*.json)"


class DatasetOverview(QObject):
    """The Dataset overview of ``session``'s playlist, in :attr:`dock`."""

    def __init__(
        self,
        parent: QWidget,
        *,
        session: PlayerSession,
        timeline: TimelineScrubber,
        status: StatusLine,
        store: QSettings,
        thresholds: Thresholds | None = None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._session = session
        self._timeline = timeline
        self._status = status
        self.thresholds = thresholds or Thresholds()
        self.manual = ManualFlags(store)
        self._outcomes: dict[Path, EntryOutcome] = {}
        self.data = DatasetOverviewData((), {})
        self._pending_seek: tuple[Path, float] | None = None
        self._thread = JobThread("dataset-checks")
        self.job: BackgroundJob | None = None
        self.last_export: ExportedIndex | None = None
        self.table = DatasetTableModel(self.is_flagged, self)
        self.dock = DatasetDock(self.table, parent)
        self._redraw = QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(REDRAW_MS)
        self._redraw.timeout.connect(self.refresh)
        self._connect()

    def _connect(self) -> None:
        dock, session = self.dock, self._session
        dock.visibilityChanged.connect(self._on_visibility)
        dock.check_button.clicked.connect(lambda _=False: self.check_pending())
        dock.cancel_button.clicked.connect(lambda _=False: self.cancel())
        dock.export_kept.clicked.connect(lambda _=False: self._ask_export("kept"))
        dock.export_flagged.clicked.connect(lambda _=False: self._ask_export("flagged"))
        dock.copy_button.clicked.connect(lambda _=False: self._copy_command())
        dock.table.clicked.connect(self._on_row_clicked)
        self.table.flag_toggled.connect(self._on_box_toggled)
        session.playlist.rowsInserted.connect(self._on_rows_inserted)
        session.model_changed.connect(self._on_model_changed)

    # -- state ------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether checks or an export are running."""
        return self.job is not None

    @property
    def pending(self) -> list[Path]:
        """The playlist's entries not checked yet, in playlist order."""
        return [
            entry.path
            for entry in self._session.playlist.entries
            if entry.path not in self._outcomes
        ]

    def is_flagged(self, row: EntryRow) -> bool:
        """Whether ``row`` is flagged: the user's verdict, else the checks'."""
        verdict = self.manual.verdict(row.outcome.group, row.outcome.member)
        if verdict is not None:
            return verdict is Verdict.FLAGGED
        return bool(row.flags) or bool(row.outcome.error)

    def selected(self, which: Selection) -> list[EntryRow]:
        """Return the checked rows that are kept, or flagged, in playlist order."""
        return [
            row for row in self.data.rows if self.is_flagged(row) == (which != "kept")
        ]

    # -- checks -----------------------------------------------------------

    def check_pending(self) -> bool:
        """Check the entries not checked yet; False when none or a job runs."""
        paths = self.pending
        if self.job is not None or not paths:
            return False
        options = self._session.open_options
        opener = functools.partial(open_recording, options=options)
        job = DatasetCheckJob(paths, opener, self.thresholds, options)
        job.results.measured.connect(self._on_measured)
        self._start(job, f"checking {len(paths)} entries…")
        return True

    def _start(self, job: BackgroundJob, text: str) -> None:
        job.signals.progress.connect(self._on_progress)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_ended)
        job.signals.cancelled.connect(self._on_job_ended)
        self.job = job
        dock = self.dock
        dock.progress.setRange(0, 0)
        dock.cancel_button.setEnabled(True)
        self._update_buttons()
        self._status.show_message(text)
        self._thread(job)

    def cancel(self) -> None:
        """Ask the running job to stop at its next entry."""
        if self.job is not None:
            self.job.cancel()

    def shutdown(self) -> None:
        """Cancel a running job and wait for it (window close)."""
        self.cancel()
        self._thread.wait(SHUTDOWN_WAIT_MS)

    def _on_measured(self, outcome: object) -> None:
        assert isinstance(outcome, EntryOutcome)
        self._outcomes[outcome.path] = outcome
        if not self._redraw.isActive():
            self._redraw.start()

    def _on_progress(self, done: int, total: int) -> None:
        self.dock.progress.setRange(0, max(total, 1))
        self.dock.progress.setValue(done)

    def _on_job_finished(self, result: object) -> None:
        self._end_job()
        if isinstance(result, ExportedIndex):
            self.last_export = result
            self._status.show_message(f"{result.path}: {result.count} entries listed")
            return
        self.refresh()
        self._status.show_message(self.dock.summary.text())
        if self.dock.isVisible() and self.pending:
            self.check_pending()  # entries came while the checks ran

    def _on_job_ended(self, message: str) -> None:
        self._end_job()
        self.refresh()
        self._status.show_message(message)

    def _end_job(self) -> None:
        self.job = None
        self.dock.cancel_button.setEnabled(False)
        self.dock.progress.setRange(0, 1)
        self.dock.progress.setValue(1)
        self._update_buttons()

    # -- what is shown ----------------------------------------------------

    def refresh(self) -> None:
        """Compare the outcomes again and redraw the dock, badges and marks."""
        self._redraw.stop()
        order = [entry.path for entry in self._session.playlist.entries]
        outcomes = [self._outcomes[path] for path in order if path in self._outcomes]
        self.data = overview_of(outcomes, self.thresholds)
        self.table.set_data(self.data)
        self.dock.histograms.set_data(self.data)
        self._update_badges()
        self._update_summary()
        self._update_marks()

    def _update_summary(self) -> None:
        rows = self.data.rows
        flagged = sum(self.is_flagged(row) for row in rows)
        failed = sum(bool(row.outcome.error) for row in rows)
        total = self._session.playlist.rowCount()
        text = f"{len(rows)} of {total} checked · {flagged} flagged"
        text += f" ({failed} not readable)" if failed else ""
        text += f" · {len(rows) - flagged} kept"
        self.dock.summary.setText(text)
        self.dock.set_command(self._lerobot_command())
        self._update_buttons()

    def _update_buttons(self) -> None:
        idle = self.job is None and bool(self.data.rows)
        self.dock.export_kept.setEnabled(idle)
        self.dock.export_flagged.setEnabled(idle)
        self.dock.check_button.setEnabled(self.job is None)

    def _lerobot_command(self) -> str:
        groups: dict[Path, list[int]] = {}
        for row in self.data.rows:
            outcome = row.outcome
            if outcome.source != "lerobot" or row.episode is None:
                continue
            episodes = groups.setdefault(outcome.group, [])
            if self.is_flagged(row):
                episodes.append(row.episode)
        commands = [
            delete_episodes_command(root, episodes)
            for root, episodes in groups.items()
            if episodes
        ]
        return " ; ".join(commands)

    def _copy_command(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.dock.command.text())
            self._status.show_message("command copied")

    def _update_badges(self) -> None:
        playlist = self._session.playlist
        for number, entry in enumerate(playlist.entries):
            row = self.data.row_of(entry.path)
            if row is None:
                self._badge_unchecked(number, entry.path)
                continue
            verdict = self.manual.verdict(row.outcome.group, row.outcome.member)
            lines = tuple(flag_line(flag) for flag in row.flags)
            if verdict is Verdict.KEPT:
                playlist.set_flag_badge(number, "kept" if row.flags else "", "", lines)
            elif row.flags:
                badge = badge_text(row.flags)
                playlist.set_flag_badge(number, badge, severity_of(row.flags), lines)
            elif row.outcome.error:
                playlist.set_flag_badge(number, "not checked", Severity.ERROR)
            elif verdict is Verdict.FLAGGED:
                playlist.set_flag_badge(number, "flagged", Severity.MANUAL)
            else:
                playlist.set_flag_badge(number, "")

    def _badge_unchecked(self, number: int, path: Path) -> None:
        group, member = dataset_of(path)
        flagged = self.manual.verdict(group, member) is Verdict.FLAGGED
        self._session.playlist.set_flag_badge(
            number, "flagged" if flagged else "", Severity.MANUAL
        )

    def _update_marks(self) -> None:
        model = self._session.model
        row = None if model is None else self.data.row_of(model.path)
        self._timeline.set_flags(() if row is None else row.flags)

    # -- reactions --------------------------------------------------------

    def _on_visibility(self, visible: bool) -> None:
        if visible and self.job is None:
            self.check_pending()

    def _on_rows_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        playlist = self._session.playlist
        for number in range(first, last + 1):
            self._badge_unchecked(number, playlist.entry(number).path)
        if self.dock.isVisible() and self.job is None:
            self.check_pending()

    def _on_model_changed(self, model: RecordingModel | None) -> None:
        self._update_marks()
        pending, self._pending_seek = self._pending_seek, None
        if model is not None and pending is not None:
            if pending[0] == model.path:
                self._session.clock.seek(pending[1])
            else:
                self._pending_seek = pending  # another load finished first

    def _on_row_clicked(self, index: QModelIndex) -> None:
        source = self.dock.proxy.mapToSource(index)
        if source.isValid():
            self.open_at_first_flag(self.table.entry_row(source.row()).path)

    def open_at_first_flag(self, path: Path) -> None:
        """Show ``path`` at its first flag (its start without flags)."""
        row = self.data.row_of(path)
        at = 0.0 if row is None or row.first_flag_s is None else row.first_flag_s
        session = self._session
        model = session.model
        if model is not None and model.path == path:
            session.clock.seek(at)
            return
        number = session.playlist.row_of(path)
        if number < 0:
            return
        self._pending_seek = (path, at)
        session.load_row(number)

    # -- manual flags -----------------------------------------------------

    def toggle_current(self) -> bool | None:
        """Flag or unflag the playing entry (key F); return its new state.

        None when nothing plays.
        """
        playlist = self._session.playlist
        current = playlist.current
        if current < 0:
            return None
        path = playlist.entry(current).path
        flagged = self._flagged_path(path)
        self._set_flagged(path, not flagged)
        name = path.name
        said = "flagged" if not flagged else "unflagged"
        self._status.show_message(f"{name} {said} (kept in your settings)")
        return not flagged

    def _flagged_path(self, path: Path) -> bool:
        row = self.data.row_of(path)
        if row is not None:
            return self.is_flagged(row)
        group, member = dataset_of(path)
        return self.manual.verdict(group, member) is Verdict.FLAGGED

    def _set_flagged(self, path: Path, flagged: bool) -> None:
        row = self.data.row_of(path)
        if row is not None:
            group, member = row.outcome.group, row.outcome.member
            automatic = bool(row.flags) or bool(row.outcome.error)
        else:
            group, member = dataset_of(path)
            automatic = False
        wanted = Verdict.FLAGGED if flagged else Verdict.KEPT
        self.manual.set_verdict(group, member, None if flagged == automatic else wanted)
        self.table.refresh_flagged()
        self._update_badges()
        self._update_summary()

    def _on_box_toggled(self, row: int, checked: bool) -> None:
        self._set_flagged(self.table.entry_row(row).path, checked)

    # -- export -----------------------------------------------------------

    def _ask_export(self, which: Selection) -> None:
        rows = self.selected(which)
        if not rows:
            self._status.show_message(f"no {which} entries to export")
            return
        first = rows[0].outcome.group
        suggested = first.parent / f"{first.name}-{which}.json"
        name, _ = QFileDialog.getSaveFileName(
            self._parent,
            f"Export the {which} entries as a playlist index",
            str(suggested),
            _INDEX_FILTER,
        )
        if name:
            self.export_index(which, Path(name))

    def export_index(self, which: Selection, output: Path) -> bool:
        """Write the ``which`` entries to a new index at ``output`` (background).

        False when a job runs or there is nothing to list.
        """
        paths: Sequence[Path] = [row.path for row in self.selected(which)]
        if self.job is not None or not paths:
            return False
        job = IndexExportJob(output, paths, self._session.open_options)
        self._start(job, f"writing {output.name}: {len(paths)} {which} entries…")
        return True
