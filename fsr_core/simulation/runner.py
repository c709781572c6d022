"""Run a replay body into a new FSR file, with exactly one completion.

An adapter describes its output (streams, metadata, provenance) and gives a
body that writes the records. :func:`run_replay` then:

- publishes through :class:`~fsr_core.format.writer.FsrWriter` (atomic; over
  an existing file only with ``overwrite``, see :mod:`fsr_core.simulation.output`);
- on success writes ``completion: succeeded/REPLAY_COMPLETED`` to
  ``run.lifecycle`` at the body's final clock, so the footer records it too
  (the outcome is decided once, by :class:`~fsr_core.simulation.lifecycle.Completion`);
- turns a cancellation into ``cancelled/REPLAY_CANCELLED`` and any other
  error (an :class:`~fsr_core.errors.FsrError`, or an unexpected one, which is
  logged with its traceback) into ``failed/REPLAY_FAILED``; the writer is
  aborted then and nothing appears under the output's name;
- fixes one absolute teardown deadline (the first time the body or the
  runner asks for it) that closing the session and publishing share.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsr_core.errors import FsrError
from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.lifecycle import (
    Completion,
    ReplayCancelledError,
    TeardownDeadline,
    completion_record,
    raise_if_cancelled,
)
from fsr_core.simulation.output import replay_output
from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
)
from fsr_core.simulation.replay_call import ReplayCall

__all__ = ["FinalClock", "ReplayContext", "ReplayOutput", "run_replay"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplayOutput:
    """What the replayed file declares up front."""

    streams: list[StreamSpec]
    metadata: dict[str, Any]
    provenance: dict[str, Any]
    integrity: str = "structural"


@dataclass(frozen=True)
class FinalClock:
    """Where the body stopped: the completion record is written there."""

    generation: int
    tick: int
    sim_time_s: float
    steps: int
    notes: tuple[str, ...] = ()


@dataclass
class ReplayContext:
    """What a body may use besides the writer: progress, cancel, the deadline."""

    path: str
    options: ReplayOptions
    progress: ProgressFn | None
    cancel: CancelToken | None
    _deadline: TeardownDeadline | None = field(default=None, repr=False)

    def report(self, done: int, total: int) -> None:
        """Report progress and stop here if the caller cancelled."""
        if self.progress is not None:
            self.progress(done, total)
        self.check_cancelled(f"after {done} of {total} steps")

    def check_cancelled(self, where: str) -> None:
        """Raise :class:`ReplayCancelledError` if the caller cancelled."""
        raise_if_cancelled(self.cancel, path=self.path, where=where)

    def teardown(self) -> TeardownDeadline:
        """Return the teardown deadline, fixing it on the first call."""
        if self._deadline is None:
            self._deadline = TeardownDeadline(
                self.options.teardown_deadline_s, path=self.path
            )
        return self._deadline


Body = Callable[[FsrWriter, ReplayContext], FinalClock]


def run_replay(
    call: ReplayCall,
    described: ReplayOutput,
    body: Body,
    *,
    source_sha256: str,
    simulator: str,
) -> ReplayResult:
    """Run ``body`` into ``call.output``; return the outcome (see module docstring)."""
    output, options = call.output, call.options
    started = time.perf_counter()
    completion = Completion()
    context = ReplayContext(str(output), options, call.progress, call.cancel)

    def result(outcome: ReplayOutcome, message: str, **fields: Any) -> ReplayResult:
        completion.complete(outcome)
        return ReplayResult(
            outcome=outcome,
            output=fields.pop("published", None),
            source_sha256=source_sha256,
            mode=options.mode,
            simulator=simulator,
            message=message,
            wall_s=time.perf_counter() - started,
            **fields,
        )

    try:
        with replay_output(output, overwrite=options.overwrite) as target:
            final = _write(target, described, body, context)
    except ReplayCancelledError as exc:
        context.teardown()
        return result(ReplayOutcome.CANCELLED, f"{exc.reason}; nothing was written")
    except FsrError as exc:
        context.teardown()
        logger.info("replay failed: %s", exc)
        return result(ReplayOutcome.FAILED, f"{exc}; nothing was written")
    except Exception as exc:  # the replay's boundary: it still completes once
        context.teardown()
        logger.exception("replay of %s failed unexpectedly", output)
        return result(
            ReplayOutcome.FAILED,
            f"{output}: internal error ({type(exc).__name__}: {exc}); nothing was "
            "written",
        )
    return result(
        ReplayOutcome.SUCCEEDED,
        f"{options.mode.value} replay written to {output}",
        published=output,
        steps=final.steps,
        notes=final.notes,
    )


def _write(
    target: Path, described: ReplayOutput, body: Body, context: ReplayContext
) -> FinalClock:
    writer = FsrWriter(
        target,
        described.streams,
        metadata=described.metadata,
        integrity=described.integrity,
        provenance=described.provenance,
    )
    with writer:
        final = body(writer, context)
        deadline = context.teardown()
        writer.write(
            LIFECYCLE_STREAM,
            completion_record(ReplayOutcome.SUCCEEDED),
            tick=final.tick,
            sim_time_s=final.sim_time_s,
            generation=final.generation,
        )
        # Checked before publishing: a late replay fails with nothing written.
        deadline.check("publishing the output")
    return final
