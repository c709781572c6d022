"""The window's video export as a background job (a ``QRunnable``).

The job opens its own reader on the worker thread (a reader belongs to one
thread), draws and encodes there, and reports through :class:`ExportSignals`,
queued to the GUI thread: ``progress(done, total)`` at most every
``PROGRESS_EVERY_S`` (and for the last frame), then exactly one of
``finished(result)``, ``cancelled(message)`` or ``failed(message)``.
:meth:`ExportJob.cancel` asks it to stop between frames; nothing is left
under the final name then.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from app.headless.export.request import VideoRequest, run_request
from app.headless.export.video import ExportCancelled
from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

__all__ = ["PROGRESS_EVERY_S", "ExportJob", "ExportSignals"]

logger = logging.getLogger(__name__)

#: The least time between two progress reports (the last frame always reports).
PROGRESS_EVERY_S = 0.05


class ExportSignals(QObject):
    """What an export job reports (emitted on the worker thread)."""

    progress = Signal(int, int)
    finished = Signal(object)
    cancelled = Signal(str)
    failed = Signal(str)


class ExportJob(QRunnable):
    """Export ``request`` off the GUI thread; :meth:`cancel` stops it."""

    def __init__(
        self,
        request: VideoRequest,
        opener: Callable[[Path], RecordingModel] = open_recording,
    ) -> None:
        super().__init__()
        # The window keeps the job until it reports, so Qt must not delete it.
        self.setAutoDelete(False)
        self.request = request
        self.signals = ExportSignals()
        self._opener = opener
        self._stop = threading.Event()
        self._last_report_s = float("-inf")

    def cancel(self) -> None:
        """Ask the export to stop before its next frame (any thread)."""
        self._stop.set()

    def run(self) -> None:
        """Run the export (QRunnable override); report the outcome once."""
        try:
            result = run_request(
                self.request,
                progress=self._report,
                cancelled=self._stop.is_set,
                opener=self._opener,
            )
        except ExportCancelled as exc:
            self.signals.cancelled.emit(str(exc))
        except (FsrError, ValueError) as exc:
            self.signals.failed.emit(self._message(exc))
        except MemoryError:
            self.signals.failed.emit(f"{self.request.output}: out of memory")
        except Exception as exc:  # a worker boundary: report, never crash the UI
            logger.exception("export to %s failed", self.request.output)
            self.signals.failed.emit(self._message(exc, f"{type(exc).__name__}: {exc}"))
        else:
            self.signals.finished.emit(result)

    def _report(self, done: int, total: int) -> None:
        now_s = time.monotonic()
        if done < total and now_s - self._last_report_s < PROGRESS_EVERY_S:
            return
        self._last_report_s = now_s
        self.signals.progress.emit(done, total)

    def _message(self, exc: BaseException, text: str | None = None) -> str:
        """Name a file in the message (the source's when the text names none)."""
        message = str(exc) if text is None else text
        named = (self.request.source, self.request.output)
        if any(str(path) in message or path.name in message for path in named):
            return message
        return f"{self.request.source.name}: {message}"
