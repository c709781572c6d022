"""The window's File → Export…: the dialog, the background job, its progress.

One export runs at a time, on a thread of its own (so frame decoding keeps
the global pool). A progress dialog counts the frames and its Cancel stops
the job before the next frame; the outcome is reported without blocking the
window: a message box saying where the file is, or what went wrong, and the
status bar. Closing the window cancels a running export and waits for it, so
nothing is left under the final name.

The controller takes what it uses, not the window: a parent widget (dialogs,
the close it watches), the playback speed and view options a new export
starts from, how the recording opens (the time base the window plays it on)
and the status line.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox, QWidget

from app.headless.export.command import stem
from app.headless.export.request import VideoRequest
from app.headless.export.video import ExportResult
from app.window.export.dialog import ExportDialog
from app.window.export.job import ExportJob
from app.window.job_controller import JobController
from app.window.ports import OpenChoices, PlaybackSpeed, StatusLine, ViewChoices
from app.window.workers.background_job import JobRunner
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = ["WindowExport"]


class WindowExport(JobController[ExportJob, ExportDialog]):
    """Runs File → Export… over ``parent``; ``action`` is its menu entry.

    A new export starts from the ``clock``'s speed and the view ``options``;
    ``status`` shows where it stands. :attr:`finished` carries the published
    :class:`~app.headless.export.video.ExportResult`.
    """

    title = "Export"
    thread_name = "fsr-export"
    shutdown_wait_ms = 10_000

    def __init__(
        self,
        parent: QWidget,
        *,
        clock: PlaybackSpeed,
        options: ViewChoices,
        status: StatusLine,
        runner: JobRunner | None = None,
        opening: OpenChoices | None = None,
    ) -> None:
        super().__init__(parent, status=status, runner=runner)
        self._clock = clock
        self._options = options
        self._opening = opening
        self._folder: Path | None = None
        self.action = QAction("&Export…", parent)
        self.action.setShortcut(QKeySequence("Ctrl+E"))
        self.action.triggered.connect(lambda _=False: self.open_dialog())
        self.action.setEnabled(False)

    def open_dialog(self) -> ExportDialog | None:
        """Show the export options for the playing recording (window-modal)."""
        model = self._model
        if model is None or self.running:
            return None
        dialog = ExportDialog(model, self._defaults(model), self._parent)
        self._show_dialog(dialog, lambda: self.start(dialog.request()))
        return dialog

    def start(self, request: VideoRequest) -> ExportJob:
        """Start exporting ``request`` in the background, with a progress dialog."""
        options = None if self._opening is None else self._opening.open_options
        job = ExportJob(request, functools.partial(open_recording, options=options))
        self._folder = request.output.parent
        self._run(
            job,
            progress_text=f"Exporting {request.output.name} …",
            status_text=f"exporting {request.output} …",
            title=self.title,
            min_width_px=360,
        )
        return job

    # -- building ---------------------------------------------------------

    def _defaults(self, model: RecordingModel) -> VideoRequest:
        options = self._options.options
        cameras = [track.name for track in model.cameras]
        chosen = [name for name in options.cameras if name in cameras]
        folder = self._folder or model.path.parent
        shown = replace(
            options,
            speed=self._clock.speed,
            camera=next(iter(chosen or cameras), None),
        )
        return VideoRequest(model.path, folder / f"{stem(model.path)}.mp4", shown)

    # -- reactions --------------------------------------------------------

    def _progress_label(self, done: int, total: int) -> str:
        return f"Exporting frame {done} of {total} …"

    def _failure_text(self, message: str) -> str:
        return f"Export failed: {message}"

    def _on_job_finished(self, result: object) -> None:
        assert isinstance(result, ExportResult)
        self._end_job()
        self._report(
            f"Exported {result.frames} frames ({result.width}x{result.height}) "
            f"to {result.path}",
            QMessageBox.Icon.Information,
        )
        self.finished.emit(result)

    def _update_actions(self) -> None:
        self.action.setEnabled(self._model is not None and not self.running)
