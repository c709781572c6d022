"""The window's File → Export…: the dialog, the background job, its progress.

One export runs at a time, on a thread of its own (so frame decoding keeps
the global pool). A progress dialog counts the frames and its Cancel stops
the job before the next frame; the outcome is reported without blocking the
window: a message box saying where the file is, or what went wrong, and the
status bar. Closing the window cancels a running export and waits for it, so
nothing is left under the final name.

The controller takes what it uses, not the window: a parent widget (dialogs,
the close it watches), the playback speed and view options a new export
starts from, and the status line.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from app.headless.export.command import stem
from app.headless.export.request import VideoRequest
from app.headless.export.video import ExportResult
from app.window.export.dialog import ExportDialog
from app.window.export.job import ExportJob
from app.window.ports import PlaybackSpeed, StatusLine, ViewChoices
from app.window.widgets.message_slot import MessageSlot
from app.window.widgets.progress import close_progress, open_progress
from app.window.workers.background_job import JobRunner
from app.window.workers.job_thread import JobThread
from fsr_core.recording import RecordingModel

__all__ = ["WindowExport"]

#: How long closing the window waits for a cancelled export to stop.
_SHUTDOWN_WAIT_MS = 10_000


class WindowExport(QObject):
    """Runs File → Export… over ``parent``; ``action`` is its menu entry.

    A new export starts from the ``clock``'s speed and the view ``options``;
    ``status`` shows where it stands.
    """

    #: The export was published: its :class:`~app.headless.export.ExportResult`.
    finished = Signal(object)
    #: The export failed: the message shown.
    failed = Signal(str)
    #: The export was cancelled: the message shown.
    cancelled = Signal(str)

    def __init__(
        self,
        parent: QWidget,
        *,
        clock: PlaybackSpeed,
        options: ViewChoices,
        status: StatusLine,
        runner: JobRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._clock = clock
        self._options = options
        self._status = status
        self._thread = JobThread("fsr-export")
        self._runner: JobRunner = runner if runner is not None else self._thread
        self._model: RecordingModel | None = None
        self._folder: Path | None = None
        self.job: ExportJob | None = None
        self.dialog: ExportDialog | None = None
        self.progress: QProgressDialog | None = None
        self._messages = MessageSlot(parent, "Export")
        self.action = QAction("&Export…", parent)
        self.action.setShortcut(QKeySequence("Ctrl+E"))
        self.action.triggered.connect(lambda _=False: self.open_dialog())
        self.action.setEnabled(False)
        parent.installEventFilter(self)

    @property
    def running(self) -> bool:
        """Whether an export is running."""
        return self.job is not None

    def set_model(self, model: RecordingModel | None) -> None:
        """Export ``model`` (the playing recording) from now on."""
        self._model = model
        self._update_action()

    def open_dialog(self) -> ExportDialog | None:
        """Show the export options for the playing recording (window-modal)."""
        model = self._model
        if model is None or self.running:
            return None
        dialog = ExportDialog(model, self._defaults(model), self._parent)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.accepted.connect(lambda: self.start(dialog.request()))
        dialog.finished.connect(lambda _: self._forget_dialog(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def start(self, request: VideoRequest) -> ExportJob:
        """Start exporting ``request`` in the background, with a progress dialog."""
        job = ExportJob(request)
        job.signals.progress.connect(self._on_job_progress)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        job.signals.cancelled.connect(self._on_job_cancelled)
        self.job = job
        self._folder = request.output.parent
        self.progress = self._progress_dialog(request)
        self._update_action()
        self._status.show_message(f"exporting {request.output} …")
        self._runner(job)
        return job

    def cancel(self) -> None:
        """Ask the running export to stop (nothing is left on disk)."""
        if self.job is not None:
            self.job.cancel()
            self._status.show_message("cancelling the export …")

    def wait_done(self, timeout_ms: int = _SHUTDOWN_WAIT_MS) -> bool:
        """Wait for the export thread to be idle; say whether it is."""
        return self._thread.wait(timeout_ms)

    def shutdown(self) -> None:
        """Cancel a running export and wait for its thread (window close)."""
        self.cancel()
        self.wait_done()

    # -- building ---------------------------------------------------------

    def _defaults(self, model: RecordingModel) -> VideoRequest:
        options = self._options.options
        cameras = [track.name for track in model.cameras]
        chosen = [name for name in options.cameras if name in cameras]
        folder = self._folder or model.path.parent
        return VideoRequest(
            source=model.path,
            output=folder / f"{stem(model.path)}.mp4",
            speed=self._clock.speed,
            show_com=options.show_com,
            camera=next(iter(chosen or cameras), None),
        )

    def _progress_dialog(self, request: VideoRequest) -> QProgressDialog:
        return open_progress(
            self._parent,
            f"Exporting {request.output.name} …",
            "Export",
            self.cancel,
            min_width_px=360,
        )

    # -- reactions --------------------------------------------------------

    def _on_job_progress(self, done: int, total: int) -> None:
        progress = self.progress
        if progress is None or progress.wasCanceled():
            return
        progress.setMaximum(total)
        progress.setValue(done)
        progress.setLabelText(f"Exporting frame {done} of {total} …")

    def _on_job_finished(self, result: object) -> None:
        assert isinstance(result, ExportResult)
        text = (
            f"Exported {result.frames} frames ({result.width}x{result.height}) "
            f"to {result.path}"
        )
        self._end(text, QMessageBox.Icon.Information)
        self.finished.emit(result)

    def _on_job_failed(self, message: str) -> None:
        self._end(f"Export failed: {message}", QMessageBox.Icon.Warning)
        self.failed.emit(message)

    def _on_job_cancelled(self, message: str) -> None:
        self._end(message, None)
        self.cancelled.emit(message)

    def _end(self, text: str, icon: QMessageBox.Icon | None) -> None:
        self.job = None
        close_progress(self.progress, self.cancel)
        self.progress = None
        self._update_action()
        self._status.show_message(text)
        if icon is not None:
            self._messages.show(text, icon)

    @property
    def message_box(self) -> QMessageBox | None:
        """The outcome message shown now (None when none is open)."""
        return self._messages.box

    def _forget_dialog(self, dialog: ExportDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def _update_action(self) -> None:
        self.action.setEnabled(self._model is not None and not self.running)

    # -- Qt overrides -----------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Cancel and wait for a running export when the window closes."""
        if watched is self._parent and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False
