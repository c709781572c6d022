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

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from app.window.ports import StatusLine
from app.window.replay.availability import MODE_VERBS, replay_block_reason
from app.window.replay.dialog import ReplayDialog
from app.window.replay.job import CompareJob, ReplayJob
from app.window.replay.presenter import ComparisonPresenter
from app.window.replay.report import ComparisonReport
from app.window.replay.request import ReplayRequest, default_output, output_suffix
from app.window.widgets.message_slot import MessageSlot
from app.window.widgets.progress import close_progress, open_progress
from app.window.workers.background_job import JobRunner
from app.window.workers.job_thread import JobThread
from fsr_core.recording import RecordingModel
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions

__all__ = ["PlaylistInsertion", "WindowReplay"]

#: How long closing the window waits for a cancelled replay to stop.
_SHUTDOWN_WAIT_MS = 30_000
_OPEN_FILTER = "Recordings (*.fsr *.sklog.npz);;All files (*)"


class PlaylistInsertion(Protocol):
    """Adds files to the playlist beside another (the player session)."""

    def insert_paths_after(self, anchor: Path, paths: list[Path]) -> None:
        """Add ``paths`` right after ``anchor`` (else at the end)."""


class WindowReplay(QObject):
    """Runs the Replay menu over ``parent``; ``actions`` are its entries.

    A finished replay joins the ``playlist`` and shows through ``presenter``;
    ``status`` shows where a job stands.
    """

    #: A replay or comparison finished: its :class:`ComparisonReport`.
    finished = Signal(object)
    #: A replay or comparison failed: the message shown.
    failed = Signal(str)
    #: A replay was cancelled: the message shown.
    cancelled = Signal(str)

    def __init__(
        self,
        parent: QWidget,
        presenter: ComparisonPresenter,
        *,
        playlist: PlaylistInsertion,
        status: StatusLine,
        runner: JobRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._playlist = playlist
        self._status = status
        self._thread = JobThread("fsr-replay")
        self._runner: JobRunner = runner if runner is not None else self._thread
        self._model: RecordingModel | None = None
        self.presenter = presenter
        self.job: ReplayJob | CompareJob | None = None
        self.dialog: ReplayDialog | None = None
        self.progress: QProgressDialog | None = None
        self._messages = MessageSlot(parent, "Replay")
        self._closing = False
        self.render_action = self._action(ReplayMode.RENDER)
        self.resimulate_action = self._action(ReplayMode.RESIMULATE)
        self.compare_action = QAction("&Compare with…", parent)
        self.compare_action.triggered.connect(lambda _=False: self.choose_other())
        self.dock_action = self.presenter.dock.toggleViewAction()
        self.dock_action.setText("Show c&omparison")
        parent.installEventFilter(self)
        self._update_actions()

    def _action(self, mode: ReplayMode) -> QAction:
        action = QAction(f"{MODE_VERBS[mode]}…", self._parent)
        action.triggered.connect(lambda _=False: self.open_dialog(mode))
        return action

    @property
    def actions(self) -> tuple[QAction, ...]:
        """Re-render…, Re-simulate… and Compare with…, in menu order."""
        return self.render_action, self.resimulate_action, self.compare_action

    @property
    def running(self) -> bool:
        """Whether a replay or comparison is running."""
        return self.job is not None

    def set_model(self, model: RecordingModel | None) -> None:
        """Replay ``model`` (the playing recording) from now on."""
        self._model = model
        self._update_actions()
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
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.accepted.connect(lambda: self.start(dialog.request()))
        dialog.finished.connect(lambda _: self._forget_dialog(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def start(self, request: ReplayRequest) -> ReplayJob:
        """Start replaying ``request`` in the background, with a progress dialog."""
        job = ReplayJob(request)
        verb = MODE_VERBS[request.mode]
        self._run(job, f"{verb} {request.source.name} …", verb)
        return job

    def choose_other(self) -> None:
        """Ask for a recording to compare the playing one with."""
        model = self._model
        if model is None or self.running:
            return
        name, _ = QFileDialog.getOpenFileName(
            self._parent, "Compare with", str(model.path.parent), _OPEN_FILTER
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
        self._run(job, f"Comparing {other.name} with {model.path.name} …", "Compare")
        return job

    def cancel(self) -> None:
        """Ask the running replay to stop (nothing is published)."""
        if self.job is not None:
            self.job.cancel()
            self._status.show_message("cancelling the replay …")

    def wait_done(self, timeout_ms: int = _SHUTDOWN_WAIT_MS) -> bool:
        """Wait for the replay thread to be idle; say whether it is."""
        return self._thread.wait(timeout_ms)

    def shutdown(self) -> None:
        """Cancel a running replay and wait for its thread (window close)."""
        self._closing = True
        self.cancel()
        self.wait_done()

    # -- running ----------------------------------------------------------

    def _run(self, job: ReplayJob | CompareJob, text: str, title: str) -> None:
        job.signals.stage.connect(self._on_job_stage)
        job.signals.progress.connect(self._on_job_progress)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        job.signals.cancelled.connect(self._on_job_cancelled)
        self.job = job
        self.progress = self._progress_dialog(text, title)
        self._update_actions()
        self._status.show_message(text)
        self._runner(job)

    def _progress_dialog(self, text: str, title: str) -> QProgressDialog:
        return open_progress(self._parent, text, title, self.cancel)

    # -- reactions --------------------------------------------------------

    def _on_job_stage(self, text: str) -> None:
        if self.progress is not None and not self.progress.wasCanceled():
            self.progress.setLabelText(text)
            self.progress.setMaximum(0)

    def _on_job_progress(self, done: int, total: int) -> None:
        progress = self.progress
        if progress is None or progress.wasCanceled() or total <= 0:
            return
        progress.setMaximum(total)
        progress.setValue(done)
        job = self.job
        if isinstance(job, ReplayJob):
            verb = MODE_VERBS[job.request.mode]
            progress.setLabelText(
                f"{verb} {job.request.source.name}: step {done} of {total} …"
            )

    def _on_job_finished(self, report: object) -> None:
        assert isinstance(report, ComparisonReport)
        self._end()
        if not self._closing:  # a closed window loads and checks no more files
            self._playlist.insert_paths_after(
                report.reference.path, [report.candidate.path]
            )
            self.presenter.show_report(report)
        self.finished.emit(report)

    def _on_job_failed(self, message: str) -> None:
        self._end()
        self._fail(message)

    def _on_job_cancelled(self, message: str) -> None:
        self._end()
        self._status.show_message(message)
        self.cancelled.emit(message)

    def _fail(self, message: str) -> None:
        self._status.show_message(message)
        self._messages.show(message, QMessageBox.Icon.Warning)
        self.failed.emit(message)

    def _end(self) -> None:
        self.job = None
        close_progress(self.progress, self.cancel)
        self.progress = None
        self._update_actions()

    @property
    def message_box(self) -> QMessageBox | None:
        """The outcome message shown now (None when none is open)."""
        return self._messages.box

    def _forget_dialog(self, dialog: ReplayDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

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
            action.setToolTip(tip)
            action.setStatusTip(tip)
        self.compare_action.setEnabled(idle and model is not None)

    # -- Qt overrides -----------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Cancel and wait for a running replay when the window closes."""
        if watched is self._parent and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False
