"""What File → Export… and the Replay menu share: one long job at a time.

A window-modal dialog gathers the options; the job runs on a thread of its
own (:class:`~app.window.workers.job_thread.JobThread`); a non-modal
progress dialog shows where it stands and its Cancel stops the job at its
next step; the outcome goes to the status bar, and to a non-modal message
box when it must be read. Closing the window cancels a running job and waits
for it, so nothing is left under the final name.

:class:`JobController` is that machinery. A subclass builds its actions, its
dialog and its job, and says what a result means (:meth:`_on_job_finished`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Generic, TypeVar

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QMessageBox, QProgressDialog, QWidget

from app.window.ports import StatusLine
from app.window.widgets.message_slot import MessageSlot
from app.window.widgets.progress import close_progress, open_progress
from app.window.workers.background_job import BackgroundJob, JobRunner
from app.window.workers.job_thread import JobThread
from fsr_core.recording import RecordingModel

__all__ = ["JobController"]

JobT = TypeVar("JobT", bound=BackgroundJob)
DialogT = TypeVar("DialogT", bound=QDialog)


class JobController(QObject, Generic[JobT, DialogT]):
    """Runs one ``JobT`` at a time over ``parent``, from a ``DialogT``.

    ``status`` shows where a job stands; ``runner`` starts a job (by default
    on a thread of the controller's own, named :attr:`thread_name`).
    """

    #: Names the message boxes and the work ("Export": "cancelling the export").
    title: ClassVar[str] = ""
    #: The name of the job's thread.
    thread_name: ClassVar[str] = ""
    #: How long closing the window waits for a cancelled job to stop.
    shutdown_wait_ms: ClassVar[int] = 10_000

    #: The job succeeded: its result.
    finished = Signal(object)
    #: The job failed (or could not start): the message.
    failed = Signal(str)
    #: The job was cancelled: the message shown.
    cancelled = Signal(str)

    def __init__(
        self,
        parent: QWidget,
        *,
        status: StatusLine,
        runner: JobRunner | None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._status = status
        self._thread = JobThread(self.thread_name)
        self._runner: JobRunner = runner if runner is not None else self._thread
        self._model: RecordingModel | None = None
        self._messages = MessageSlot(parent, self.title)
        self._closing = False
        self.job: JobT | None = None
        self.dialog: DialogT | None = None
        self.progress: QProgressDialog | None = None
        parent.installEventFilter(self)

    @property
    def running(self) -> bool:
        """Whether a job is running."""
        return self.job is not None

    @property
    def message_box(self) -> QMessageBox | None:
        """The outcome message shown now (None when none is open)."""
        return self._messages.box

    def set_model(self, model: RecordingModel | None) -> None:
        """Work on ``model`` (the playing recording) from now on."""
        self._model = model
        self._update_actions()

    def cancel(self) -> None:
        """Ask the running job to stop (nothing is published)."""
        if self.job is not None:
            self.job.cancel()
            self._status.show_message(f"cancelling the {self.title.lower()} …")

    def wait_done(self, timeout_ms: int | None = None) -> bool:
        """Wait for the job's thread to be idle; say whether it is.

        ``timeout_ms`` defaults to the wait on window close.
        """
        return self._thread.wait(
            self.shutdown_wait_ms if timeout_ms is None else timeout_ms
        )

    def shutdown(self) -> None:
        """Cancel a running job and wait for its thread (window close)."""
        self._closing = True
        self.cancel()
        self.wait_done()

    # -- for subclasses ---------------------------------------------------

    def _update_actions(self) -> None:
        """Enable the menu entries for the model and job now (overridden)."""
        raise NotImplementedError

    def _on_job_finished(self, result: object) -> None:
        """Publish the job's ``result`` (overridden; start with :meth:`_end_job`)."""
        raise NotImplementedError

    def _progress_label(self, done: int, total: int) -> str | None:
        """Return the progress dialog's text at ``done`` of ``total`` (None: keep)."""
        del done, total
        return None

    def _failure_text(self, message: str) -> str:
        """Return what a failure with ``message`` says to the user."""
        return message

    def _show_dialog(self, dialog: DialogT, on_accepted: Callable[[], object]) -> None:
        """Open ``dialog`` window-modal; ``on_accepted`` runs when it is accepted."""
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.accepted.connect(on_accepted)
        dialog.finished.connect(lambda _: self._forget_dialog(dialog))
        self.dialog = dialog
        dialog.open()

    def _run(
        self,
        job: JobT,
        *,
        progress_text: str,
        status_text: str,
        title: str,
        min_width_px: int = 380,
    ) -> None:
        """Start ``job``; its progress dialog, titled ``title``, says ``progress_text``.

        The status bar says ``status_text``.
        """
        job.signals.stage.connect(self._on_job_stage)
        job.signals.progress.connect(self._on_job_progress)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        job.signals.cancelled.connect(self._on_job_cancelled)
        self.job = job
        self.progress = open_progress(
            self._parent,
            progress_text,
            title,
            self.cancel,
            min_width_px=min_width_px,
        )
        self._update_actions()
        self._status.show_message(status_text)
        self._runner(job)

    def _end_job(self) -> None:
        """Forget the job that ended and close its progress dialog."""
        self.job = None
        close_progress(self.progress, self.cancel)
        self.progress = None
        self._update_actions()

    def _report(self, text: str, icon: QMessageBox.Icon) -> None:
        """Say ``text`` in the status bar and in a message box."""
        self._status.show_message(text)
        self._messages.show(text, icon)

    def _fail(self, message: str) -> None:
        """Report a failure with ``message`` and emit :attr:`failed`."""
        self._report(self._failure_text(message), QMessageBox.Icon.Warning)
        self.failed.emit(message)

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
        label = self._progress_label(done, total)
        if label is not None:
            progress.setLabelText(label)

    def _on_job_failed(self, message: str) -> None:
        self._end_job()
        self._fail(message)

    def _on_job_cancelled(self, message: str) -> None:
        self._end_job()
        self._status.show_message(message)
        self.cancelled.emit(message)

    def _forget_dialog(self, dialog: DialogT) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    # -- Qt overrides -----------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Cancel and wait for a running job when the window closes."""
        if watched is self._parent and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False
