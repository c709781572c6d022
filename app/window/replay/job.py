"""Replays and comparisons as background jobs (``QRunnable``).

:class:`ReplayJob` runs :func:`~fsr_core.replay.engine.replay_file`, then
opens the source and the published replay and compares them, all on the
worker thread. :class:`CompareJob` opens two recordings and compares them.
Both report through :class:`ReplaySignals`, queued to the GUI thread:
``stage(text)`` when the work changes phase, ``progress(done, total)`` at most
every ``PROGRESS_EVERY_S`` (and for the last step), then exactly one of
``finished(report)``, ``cancelled(message)`` or ``failed(message)``.
:meth:`ReplayJob.cancel` stops the replay at its next step; nothing is
published then.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from app.window.replay.availability import MODE_VERBS
from app.window.replay.report import ComparisonReport
from app.window.replay.request import ReplayRequest
from fsr_core.compare import compare_recordings
from fsr_core.errors import CompareError, FsrError
from fsr_core.recording import RecordingModel
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import CancelToken, ReplayOutcome, ReplayResult
from fsr_core.sources import open_recording

__all__ = ["PROGRESS_EVERY_S", "CompareJob", "ReplayJob", "ReplaySignals", "compare"]

logger = logging.getLogger(__name__)

#: The least time between two progress reports (the last step always reports).
PROGRESS_EVERY_S = 0.05

Opener = Callable[[Path], RecordingModel]


@dataclass(frozen=True)
class _Ended:
    """A job that ended without a report: cancelled, or failed with a message."""

    message: str
    failed: bool = False


class ReplaySignals(QObject):
    """What a replay or comparison job reports (emitted on the worker thread)."""

    stage = Signal(str)
    progress = Signal(int, int)
    finished = Signal(object)
    cancelled = Signal(str)
    failed = Signal(str)


def compare(
    reference: Path,
    candidate: Path,
    *,
    tolerance: float,
    pixel_tolerance: float = 0.0,
    replay: ReplayResult | None = None,
    opener: Opener = open_recording,
) -> ComparisonReport:
    """Open both recordings and compare ``candidate`` with ``reference``.

    Channels and camera frames are compared (each frame decoded here, on the
    calling worker thread).

    Raises
    ------
    FsrError
        A file cannot be opened, or a frame cannot be decoded. Two files that
        cannot be compared (no channel, camera or time in common) give a
        report with its ``problem``.
    """
    reference_model = opener(reference)
    candidate_model = opener(candidate)
    try:
        comparison = compare_recordings(
            reference_model,
            candidate_model,
            tolerance=tolerance,
            pixel_tolerance=pixel_tolerance,
        )
    except CompareError as exc:
        return ComparisonReport(
            reference_model, candidate_model, None, problem=exc.reason, replay=replay
        )
    return ComparisonReport(reference_model, candidate_model, comparison, replay=replay)


class _ReportingJob(QRunnable):
    """Runs :meth:`work` and turns its outcome into exactly one signal."""

    def __init__(self, named: tuple[Path, ...]) -> None:
        super().__init__()
        # The window keeps the job until it reports, so Qt must not delete it.
        self.setAutoDelete(False)
        self.signals = ReplaySignals()
        self._named = named

    def work(self) -> ComparisonReport | _Ended:
        """Return the report, or how the job ended without one (overridden)."""
        raise NotImplementedError

    def run(self) -> None:
        """Run the job (QRunnable override); report the outcome once."""
        try:
            outcome = self.work()
        except FsrError as exc:
            self.signals.failed.emit(self._message(exc))
        except MemoryError:
            self.signals.failed.emit(f"{self._named[0].name}: out of memory")
        except Exception as exc:  # a worker boundary: report, never crash the UI
            logger.exception("replay job on %s failed", self._named[0])
            self.signals.failed.emit(self._message(exc, f"{type(exc).__name__}: {exc}"))
        else:
            if isinstance(outcome, ComparisonReport):
                self.signals.finished.emit(outcome)
            elif outcome.failed:
                self.signals.failed.emit(self._message(outcome.message))
            else:
                self.signals.cancelled.emit(outcome.message)

    def _message(self, exc: BaseException | str, text: str | None = None) -> str:
        """Name a file in the message (the first one when the text names none)."""
        message = str(exc) if text is None else text
        if any(str(path) in message or path.name in message for path in self._named):
            return message
        return f"{self._named[0].name}: {message}"


class ReplayJob(_ReportingJob):
    """Replay ``request`` off the GUI thread and compare the result with its source."""

    def __init__(self, request: ReplayRequest, opener: Opener = open_recording) -> None:
        super().__init__((request.source, request.output))
        self.request = request
        self._opener = opener
        self._cancel = CancelToken()
        self._last_report_s = float("-inf")

    def cancel(self) -> None:
        """Ask the replay to stop at its next step (any thread)."""
        self._cancel.cancel()

    @property
    def cancel_requested(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancel.cancelled

    def work(self) -> ComparisonReport | _Ended:
        """Replay, then compare; return the report or how the replay ended."""
        request = self.request
        verb = MODE_VERBS[request.mode]
        self.signals.stage.emit(f"{verb} {request.source.name} …")
        result = replay_file(
            request.source,
            request.output,
            request.options,
            simulator=request.simulator,
            progress=self._report,
            cancel=self._cancel,
        )
        if result.outcome is ReplayOutcome.CANCELLED:
            return _Ended(result.message or f"{verb} cancelled; nothing was written")
        if result.outcome is not ReplayOutcome.SUCCEEDED or result.output is None:
            return _Ended(result.message or f"the replay {result.outcome.value}", True)
        self.signals.stage.emit(f"Comparing {result.output.name} with the recording …")
        return compare(
            request.source,
            result.output,
            tolerance=request.tolerance,
            pixel_tolerance=request.pixel_tolerance,
            replay=result,
            opener=self._opener,
        )

    def _report(self, done: int, total: int) -> None:
        now_s = time.monotonic()
        if done < total and now_s - self._last_report_s < PROGRESS_EVERY_S:
            return
        self._last_report_s = now_s
        self.signals.progress.emit(done, total)


class CompareJob(_ReportingJob):
    """Open two recordings off the GUI thread and compare them."""

    def __init__(
        self,
        reference: Path,
        candidate: Path,
        *,
        tolerance: float = 0.0,
        pixel_tolerance: float = 0.0,
        opener: Opener = open_recording,
    ) -> None:
        super().__init__((reference, candidate))
        self.reference, self.candidate = reference, candidate
        self.tolerance = tolerance
        self.pixel_tolerance = pixel_tolerance
        self._opener = opener

    def cancel(self) -> None:
        """Do nothing: a comparison is short and runs to its end."""

    def work(self) -> ComparisonReport | _Ended:
        """Compare and return the report."""
        self.signals.stage.emit(
            f"Comparing {self.candidate.name} with {self.reference.name} …"
        )
        return compare(
            self.reference,
            self.candidate,
            tolerance=self.tolerance,
            pixel_tolerance=self.pixel_tolerance,
            opener=self._opener,
        )
