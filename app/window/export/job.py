"""The window's video export as a background job.

The job opens its own reader on its thread (a reader belongs to one thread)
and runs the headless export entry point,
:func:`~app.headless.export.video.run_request`, the one ``--export`` runs
too. It reports like every :class:`~app.window.workers.background_job.BackgroundJob`:
progress per frame, then ``finished(ExportResult)``, ``cancelled(message)``
or ``failed(message)``. :meth:`~ExportJob.cancel` stops it before the next
frame; nothing is left under the final name then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.headless.export.request import VideoRequest
from app.headless.export.video import ExportCancelled, ExportResult, run_request
from app.window.workers.background_job import BackgroundJob
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = ["ExportJob"]


class ExportJob(BackgroundJob):
    """Export ``request`` off the GUI thread; :meth:`cancel` stops it."""

    #: An option the recording cannot satisfy (window, camera) is the user's to fix.
    expected_errors = (ValueError,)
    cancelled_errors = (ExportCancelled,)

    def __init__(
        self,
        request: VideoRequest,
        opener: Callable[[Path], RecordingModel] = open_recording,
    ) -> None:
        super().__init__((request.source, request.output))
        self.request = request
        self._opener = opener

    def work(self) -> ExportResult:
        """Open the recording and export it, frame by frame."""
        return run_request(
            self.request,
            progress=self.report_progress,
            cancelled=lambda: self.cancel_requested,
            opener=self._opener,
        )
