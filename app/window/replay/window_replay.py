"""The window's Replay menu: Re-render…, Re-simulate…, Compare with….

Like File → Export…: one job at a time on a thread of its own, a progress
dialog whose Cancel stops the replay at its next step, and
outcomes reported without blocking the window (a message box for errors, the
status bar always). An entry that cannot run for the playing file is disabled
and says why (tooltip and status tip): no render state, a simulator that is
not installed (naming the extra), a skelarm log. When a replay succeeds its
file joins the playlist and the comparison with the source shows. Closing
the window cancels a running replay and waits for it, so nothing is left
under the final name.

The controller takes what it uses, not the window: a parent widget (dialogs,
the close it watches), the comparison presenter, the playlist a replay joins
and the status line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from app.window.job_controller import JobController
from app.window.ports import StatusLine
from app.window.replay.availability import MODE_VERBS, replay_block_reason
from app.window.replay.dialog import ReplayDialog
from app.window.replay.job import CompareJob, ReplayJob
from app.window.replay.presenter import ComparisonPresenter
from app.window.replay.report import ComparisonReport
from app.window.replay.request import ReplayRequest, default_output, output_suffix
from app.window.widgets.plain_text import tooltip_html, visible_text
from app.window.workers.background_job import JobRunner
from fsr_core.recording import RecordingModel
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.sources import open_dialog_filter

__all__ = ["PlaylistInsertion", "WindowReplay"]


class PlaylistInsertion(Protocol):
    """Adds files to the playlist beside another (the player session)."""

    def insert_paths_after(self, anchor: Path, paths: list[Path]) -> None:
        """Add ``paths`` right after ``anchor`` (else at the end)."""


class WindowReplay(JobController[ReplayJob | CompareJob, ReplayDialog]):
    """Runs the Replay menu over ``parent``; ``actions`` are its entries.

    A finished replay joins the ``playlist`` and shows through ``presenter``;
    ``status`` shows where a job stands. :attr:`finished` carries the
    :class:`ComparisonReport` of a replay or comparison.
    """

    title = "Replay"
    thread_name = "fsr-replay"
    shutdown_wait_ms = 30_000

    def __init__(
        self,
        parent: QWidget,
        presenter: ComparisonPresenter,
        *,
        playlist: PlaylistInsertion,
        status: StatusLine,
        runner: JobRunner | None = None,
    ) -> None:
        super().__init__(parent, status=status, runner=runner)
        self._playlist = playlist
        self.presenter = presenter
        self.render_action = self._action(ReplayMode.RENDER)
        self.resimulate_action = self._action(ReplayMode.RESIMULATE)
        self.compare_action = QAction("&Compare with…", parent)
        self.compare_action.triggered.connect(lambda _=False: self.choose_other())
        self.dock_action = self.presenter.dock.toggleViewAction()
        self.dock_action.setText("Show c&omparison")
        self._update_actions()

    def _action(self, mode: ReplayMode) -> QAction:
        action = QAction(f"{MODE_VERBS[mode]}…", self._parent)
        action.triggered.connect(lambda _=False: self.open_dialog(mode))
        return action

    @property
    def actions(self) -> tuple[QAction, ...]:
        """Re-render…, Re-simulate… and Compare with…, in menu order."""
        return self.render_action, self.resimulate_action, self.compare_action

    def set_model(self, model: RecordingModel | None) -> None:
        """Replay ``model`` (the playing recording) from now on."""
        super().set_model(model)
        self.presenter.set_model(model)

    # -- intents ----------------------------------------------------------

    def open_dialog(self, mode: ReplayMode) -> ReplayDialog | None:
        """Show the replay options for the playing recording (window-modal)."""
        model = self._model
        if model is None or self.running or replay_block_reason(model, mode):
            return None
        defaults = ReplayRequest(
            source=model.path,
            output=default_output(model.path, mode, output_suffix(model.source)),
            options=ReplayOptions(mode=mode),
        )
        dialog = ReplayDialog(model, defaults, self._parent)
        self._show_dialog(dialog, lambda: self.start(dialog.request()))
        return dialog

    def start(self, request: ReplayRequest) -> ReplayJob:
        """Start replaying ``request`` in the background, with a progress dialog."""
        job = ReplayJob(request)
        verb = MODE_VERBS[request.mode]
        text = f"{verb} {request.source.name} …"
        self._run(job, progress_text=text, status_text=text, title=verb)
        return job

    def choose_other(self) -> None:
        """Ask for a recording to compare the playing one with."""
        model = self._model
        if model is None or self.running:
            return
        name, _ = QFileDialog.getOpenFileName(
            self._parent, "Compare with", str(model.path.parent), open_dialog_filter()
        )
        if name:
            self.compare_with(Path(name))

    def compare_with(
        self, other: Path, tolerance: float = 0.0, pixel_tolerance: float = 0.0
    ) -> CompareJob | None:
        """Compare ``other`` with the playing recording in the background.

        Channels within ``tolerance``, camera frames within ``pixel_tolerance``
        levels.
        """
        model = self._model
        if model is None or self.running:
            return None
        if other.resolve() == model.path.resolve():
            self._fail(f"{other.name} is the playing recording; pick another file")
            return None
        job = CompareJob(
            model.path, other, tolerance=tolerance, pixel_tolerance=pixel_tolerance
        )
        text = f"Comparing {other.name} with {model.path.name} …"
        self._run(job, progress_text=text, status_text=text, title="Compare")
        return job

    # -- reactions --------------------------------------------------------

    def _progress_label(self, done: int, total: int) -> str | None:
        job = self.job
        if not isinstance(job, ReplayJob):
            return None
        verb = MODE_VERBS[job.request.mode]
        return f"{verb} {job.request.source.name}: step {done} of {total} …"

    def _on_job_finished(self, report: object) -> None:
        assert isinstance(report, ComparisonReport)
        self._end_job()
        if not self._closing:  # a closed window loads and checks no more files
            self._playlist.insert_paths_after(
                report.reference.path, [report.candidate.path]
            )
            self.presenter.show_report(report)
        self.finished.emit(report)

    def _update_actions(self) -> None:
        model, idle = self._model, not self.running
        for mode, action in (
            (ReplayMode.RENDER, self.render_action),
            (ReplayMode.RESIMULATE, self.resimulate_action),
        ):
            reason = "open a recording first" if model is None else None
            if model is not None:
                reason = replay_block_reason(model, mode)
            action.setEnabled(idle and reason is None)
            verb = MODE_VERBS[mode]
            tip = (
                f"{verb} the playing recording"
                if reason is None
                else (f"Cannot {verb.lower()}: {reason}")
            )
            # A reason may quote the file (a layout, an attribute): plain text.
            action.setToolTip(tooltip_html(tip))
            action.setStatusTip(visible_text(tip))
        self.compare_action.setEnabled(idle and model is not None)
