"""Replays and comparisons as background jobs.

:class:`ReplayJob` runs :func:`~fsr_core.replay.engine.replay_file`, then
opens the source and the published replay and compares them, all on the
job's thread. :class:`CompareJob` opens two recordings and compares them.
Both report like every :class:`~app.window.workers.background_job.BackgroundJob`:
``stage(text)`` when the work changes phase, ``progress(done, total)``, then
exactly one of ``finished(report)``, ``cancelled(message)`` or
``failed(message)``. :meth:`ReplayJob.cancel` stops the replay at its next
step; nothing is published then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.window.replay.availability import MODE_VERBS
from app.window.replay.report import ComparisonReport
from app.window.replay.request import ReplayRequest
from app.window.workers.background_job import BackgroundJob, Ended
from fsr_core.compare import compare_recordings
from fsr_core.errors import CompareError
from fsr_core.recording import RecordingModel
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import CancelToken, ReplayOutcome, ReplayResult
from fsr_core.sources import open_recording

__all__ = ["CompareJob", "ReplayJob", "compare"]

Opener = Callable[[Path], RecordingModel]


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


class ReplayJob(BackgroundJob):
    """Replay ``request`` off the GUI thread and compare the result with its source."""

    def __init__(self, request: ReplayRequest, opener: Opener = open_recording) -> None:
        super().__init__((request.source, request.output))
        self.request = request
        self._opener = opener
        self._cancel = CancelToken()

    def cancel(self) -> None:
        """Ask the replay to stop at its next step (any thread)."""
        super().cancel()
        self._cancel.cancel()

    def work(self) -> ComparisonReport | Ended:
        """Replay, then compare; return the report or how the replay ended."""
        request = self.request
        verb = MODE_VERBS[request.mode]
        self.report_stage(f"{verb} {request.source.name} …")
        result = replay_file(
            request.source,
            request.output,
            request.options,
            simulator=request.simulator,
            progress=self.report_progress,
            cancel=self._cancel,
        )
        if result.outcome is ReplayOutcome.CANCELLED:
            return Ended(result.message or f"{verb} cancelled; nothing was written")
        if result.outcome is not ReplayOutcome.SUCCEEDED or result.output is None:
            return Ended(result.message or f"the replay {result.outcome.value}", True)
        self.report_stage(f"Comparing {result.output.name} with the recording …")
        return compare(
            request.source,
            result.output,
            tolerance=request.tolerance,
            pixel_tolerance=request.pixel_tolerance,
            replay=result,
            opener=self._opener,
        )


class CompareJob(BackgroundJob):
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

    def work(self) -> ComparisonReport:
        """Compare and return the report (a comparison is short: no cancel)."""
        self.report_stage(
            f"Comparing {self.candidate.name} with {self.reference.name} …"
        )
        return compare(
            self.reference,
            self.candidate,
            tolerance=self.tolerance,
            pixel_tolerance=self.pixel_tolerance,
            opener=self._opener,
        )
