"""What a replay of another tool's file does the same for Genesis and robosuite.

Each simulator's ``replay.py`` checks its own file and settings and builds its
request and output; the steps after that are the same and live here: the
runtime found or refused (:func:`available_runtime`), the source hashed and
checked against the pinned digest (:func:`source_digest`), and the run into
its output with the file published, or dropped on a cancel or a failure,
and the :class:`~.protocol.ReplayResult` that says how it ended
(:meth:`SideReplay.run`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.format.safe_open import open_source
from fsr_core.simulation.lifecycle import cancel_check, check_pinned
from fsr_core.simulation.output import replay_output
from fsr_core.simulation.protocol import (
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
)
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.side_output import SideReplayFile
from fsr_core.simulation.side_runner import SideRunner, WhereItRuns
from fsr_core.simulation.worker_process import RunOutcome

__all__ = [
    "CANCELLED_MESSAGE",
    "PublishedSink",
    "SideReplay",
    "available_runtime",
    "source_digest",
]

CANCELLED_MESSAGE = "cancelled; nothing was published"

RuntimeT = TypeVar("RuntimeT")


class PublishedSink(Protocol):
    """An output a run writes into: published by ``finish``, dropped by ``abort``."""

    @property
    def request(self) -> Any:
        """What the run is asked (the runner's request)."""
        ...

    @property
    def frames(self) -> int:
        """How many frames (steps) were written."""
        ...

    def finish(self) -> None:
        """Publish the file."""

    def abort(self) -> None:
        """Drop the file."""


SinkT = TypeVar("SinkT", bound=PublishedSink)


class DigestedSource(Protocol):
    """The file a run replays, with the digest it was hashed to."""

    @property
    def sha256(self) -> str:
        """The file's SHA-256."""
        ...


@dataclass(frozen=True)
class SideReplay(Generic[SinkT]):
    """How one simulator runs a replay into its output, and words its failures.

    Failures read ``{tool} could not rebuild or replay the {rebuilt}: ...``
    and ``{tool} replayed no {unit}``.
    """

    simulator: str
    """The simulator's name in the result."""
    tool: str
    """The tool as the messages name it (``Genesis``, ``robosuite``)."""
    rebuilt: str
    """What it rebuilds (``scene``, ``episode``)."""
    unit: str
    """What one frame of the run is (``frame``, ``step``)."""
    runner: SideRunner[Any, Any]
    """Runs a request here or in the worker (the simulator's ``run_request``)."""
    output: Callable[[Path, Any, Any, ReplayOptions, str, ProgressFn | None], SinkT]
    """Opens the output: path, source, request, options, run id, progress."""
    verdict: Callable[[SinkT, Any, float], tuple[str, tuple[str, ...]]]
    """The result's message and notes from the sink, the runtime and the
    seconds the replay took."""

    def run(
        self,
        call: ReplayCall,
        runtime: WhereItRuns,
        started: float,
        source: DigestedSource,
        request: Any,
    ) -> ReplayResult:
        """Run ``request`` on ``source`` into a new output and say how it ended.

        The output (:attr:`output`) gets the staging path of ``call.output``
        and a fresh run id. On success the file is published and
        :attr:`verdict` gives the result's message and notes; on a cancel
        the file is dropped and nothing is published. ``started``: when the
        replay started (``time.perf_counter``).

        Raises
        ------
        ReplayError
            The tool refused or failed, or replayed no frame (the file is
            dropped).
        TargetExistsError
            ``call.output`` exists and ``overwrite`` is false.
        """
        output, options = Path(call.output), call.options
        with replay_output(output, overwrite=options.overwrite) as target:
            sink = self.output(
                target, source, request, options,
                f"replay-{secrets.token_hex(6)}", call.progress,
            )  # fmt: skip
            try:
                outcome = self._run_into(sink, runtime, call)
            except BaseException:
                sink.abort()
                raise
        wall_s = time.perf_counter() - started
        notes: tuple[str, ...]
        if outcome.cancelled:
            kind, published = ReplayOutcome.CANCELLED, None
            message, notes = CANCELLED_MESSAGE, ()
        else:
            kind, published = ReplayOutcome.SUCCEEDED, output
            message, notes = self.verdict(sink, runtime, wall_s)
        return ReplayResult(
            outcome=kind,
            output=published,
            source_sha256=source.sha256,
            mode=options.mode,
            simulator=self.simulator,
            message=message,
            steps=sink.frames,
            wall_s=wall_s,
            notes=notes,
        )

    def timing_note(
        self,
        where: str,
        rebuilt: str,
        sink: SideReplayFile[Any, Any],
        busy_s: float,
        pace: str,
        wall_s: float,
    ) -> str:
        """Say where the tool ran and how long the rebuild and the frames took.

        ``busy_s``: the seconds the frames took; ``pace``: how fast that is.
        """
        build = float(sink.facts.get("build_s", 0.0))
        verb = "rendered" if sink.mode is ReplayMode.RENDER else "re-simulated"
        return (
            f"{where}: {rebuilt} rebuilt in {build:.1f} s, {sink.frames} "
            f"{self.unit}(s) {verb} in {busy_s:.2f} s ({pace}), {wall_s:.1f} s in all"
        )

    def _run_into(
        self, sink: PublishedSink, runtime: WhereItRuns, call: ReplayCall
    ) -> RunOutcome:
        """Run the sink's request; publish on success, drop the file on a cancel."""
        outcome = self.runner(
            sink.request,
            sink,
            runtime,
            cancel=call.cancel,
            scratch=Path(call.output).parent,
        )
        if outcome.failed:
            raise ReplayError(
                f"{self.tool} could not rebuild or replay the {self.rebuilt}: "
                f"{outcome.error}",
                path=call.source,
            )
        if outcome.cancelled:
            sink.abort()
        elif sink.frames == 0:
            raise ReplayError(f"{self.tool} replayed no {self.unit}", path=call.source)
        else:
            sink.finish()
        return outcome


def available_runtime(found: RuntimeT | str, simulator: str) -> RuntimeT:
    """Return the runtime ``find_runtime`` found, or refuse with why there is none.

    Raises
    ------
    AdapterUnavailableError
        ``found`` is the reason the tool runs nowhere here.
    """
    if isinstance(found, str):
        raise AdapterUnavailableError(
            f"simulator {simulator!r} is unavailable: {found}"
        )
    return found


def source_digest(call: ReplayCall, file: Path) -> str:
    """Return ``file``'s SHA-256, checked against the call's pinned digest.

    Raises
    ------
    ReplayError
        The digest differs from the pinned one, or the call was cancelled.
    """
    check = cancel_check(call.cancel, file, "while hashing the source")
    source = open_source(file)
    try:
        digest = source.sha256(check)
    finally:
        source.close()
    check_pinned(digest, call.options.pinned_sha256, file)
    return digest
