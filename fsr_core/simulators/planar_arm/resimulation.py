"""Resimulate a planar-arm recording: its authored control, the physics again.

The arm, controller, task, cameras, scripted pushes and resets come from the
recording's own resolved config; the commands are the recorded *authored*
chunks (applied control is evidence and is never read). Each source generation
is one fresh control session (a fresh controller, as in the recording), with a
fresh session ID, and each chunk a fresh chunk ID; the originals stay in the
record metadata and the footer provenance. The recorder's loop
(:class:`~fsr_core.simulators.planar_arm.recorder._Run`) does the stepping and
recording; this module decides which chunks enter it when
(:mod:`~fsr_core.simulators.planar_arm.admission`), which force acts, and when
the last generation ends:

- ``recorded_sim_time`` runs the last generation to the recorded terminal cut,
  so the final terminal policy holds through the recorded tail (a file without
  a cut runs its configured length);
- ``as_fast_as_valid`` ends it as soon as every chunk has its terminal result.

A session closes at the end of its generation: chunks still in flight are
cancelled (``chunk_result`` events, ``SESSION_CLOSED``); a chunk never admitted
fails the replay. With ``with_recorded_force`` the recorded ``ext_fx``,
``ext_fy`` channels act as the tip force at each tick instead of the config's
pushes, so a run pushed from outside its config is met by the same pushes.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.control import AuthoredChunk, ChunkResult, ChunkStatus
from fsr_core.errors import FsrError, ReplayError
from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.reader import FsrReader
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.lifecycle import cancel_check, fresh_run_id
from fsr_core.simulation.preflight import SourceChunk, authored_chunks
from fsr_core.simulation.protocol import (
    CancelToken,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
    Timing,
)
from fsr_core.simulation.provenance import replay_metadata, replay_provenance
from fsr_core.simulation.recorded_streams import AUTHORED
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.runner import (
    Body,
    FinalClock,
    ReplayContext,
    ReplayOutput,
    run_replay,
)
from fsr_core.simulators.planar_arm.admission import ChunkAdmission, PendingChunk
from fsr_core.simulators.planar_arm.model import ArmState
from fsr_core.simulators.planar_arm.observations import OBSERVATIONS, SIMULATOR_NAME
from fsr_core.simulators.planar_arm.recorder import (
    _generation_plan,
    _Run,
    recording_streams,
    reproducibility,
)
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = [
    "open_source",
    "planar_provenance",
    "resimulate",
    "run_planar_replay",
    "source_scenario",
]

PRODUCER: Final = "fsr_core.simulators.planar_arm"
SESSION_CLOSED: Final = "SESSION_CLOSED"
_PROGRESS_EVERY: Final = 50  # ticks


@dataclasses.dataclass(frozen=True)
class _Source:
    """What the resimulation reads from the source, once."""

    scenario: Scenario
    metadata: dict[str, Any]
    chunks: tuple[SourceChunk, ...]
    forces: dict[int, np.ndarray] | None
    cut: dict[str, Any] | None


def _recorded_forces(reader: FsrReader) -> dict[int, np.ndarray]:
    """Return the recorded tip force per generation, one row per tick."""
    channels = reader.streams[OBSERVATIONS].spec.channels or ()
    columns = [channels.index("ext_fx"), channels.index("ext_fy")]
    ticks, _, values = reader.read_series(OBSERVATIONS)
    generations = reader.rows(OBSERVATIONS)["generation"]
    forces: dict[int, np.ndarray] = {}
    for generation in np.unique(generations):
        mine = generations == generation
        rows = np.zeros((int(ticks[mine].max()) + 1, 2))
        rows[ticks[mine]] = values[mine][:, columns]
        forces[int(generation)] = rows
    return forces


def open_source(
    source: Path, options: ReplayOptions, cancel: CancelToken | None
) -> FsrReader:
    """Open the recording a replay rebuilds: within the input limit, pinned.

    ``cancel`` is checked between the chunks of the digest pass.
    """
    return FsrReader.open(
        source,
        max_bytes=options.max_input_bytes,
        expected_sha256=options.pinned_sha256,
        check=cancel_check(cancel, source, "while reading the source"),
    )


def _read_source(
    source: Path, options: ReplayOptions, cancel: CancelToken | None
) -> tuple[_Source, str]:
    with open_source(source, options, cancel) as reader:
        metadata = reader.metadata
        scenario = source_scenario(reader)
        forces = _recorded_forces(reader) if options.with_recorded_force else None
        cut = reader.footer.terminal_cut if reader.footer is not None else None
        read = _Source(scenario, metadata, authored_chunks(reader), forces, cut)
        return read, reader.file_sha256


def _metadata(read: _Source, provenance: dict[str, Any]) -> dict[str, Any]:
    """Return the source's metadata for the new run, its push status made true.

    Without the recorded force the new run is the unperturbed scenario, so it
    is not interactive and re-simulating it reproduces it bit for bit.
    """
    metadata = replay_metadata(read.metadata, provenance)
    run = metadata.get("run")
    if isinstance(run, dict) and read.forces is None:
        metadata["run"] = {
            **run,
            "interactive": False,
            "reproducibility": reproducibility(interactive=False),
        }
    return metadata


def source_scenario(reader: FsrReader) -> Scenario:
    """Rebuild the scenario from the recording's resolved ``config`` metadata.

    Raises
    ------
    ReplayError
        There is no config, or it is not a valid planar-arm scenario.
    """
    config = reader.metadata.get("config")
    if not isinstance(config, dict):
        raise ReplayError(
            "the source has no resolved config to rebuild its scene from",
            path=reader.path,
        )
    try:
        return Scenario.from_json(config)
    except FsrError as exc:
        raise ReplayError(
            f"the source's config is not a valid planar-arm scenario: {exc}",
            path=reader.path,
        ) from exc


class _Resimulation(_Run):
    """The recorder's loop, fed with the recorded authored control."""

    def __init__(
        self,
        read: _Source,
        writer: FsrWriter,
        options: ReplayOptions,
        context: ReplayContext,
        run_id: str,
    ) -> None:
        super().__init__(read.scenario, writer, (), None)
        self.read = read
        self.options = options
        self.context = context
        self.run_id = run_id
        self.by_generation: dict[int, list[SourceChunk]] = defaultdict(list)
        for item in read.chunks:
            self.by_generation[item.generation].append(item)
        self.plan = self._plan()
        self.total_ticks = sum(ticks for ticks, _ in self.plan)
        self.admission: ChunkAdmission | None = None
        self.final = len(self.plan) - 1
        self.sessions: list[dict[str, Any]] = []
        self.retimed = 0
        self._sources: dict[str, str] = {}

    def _plan(self) -> list[tuple[int, ArmState]]:
        """Ticks and initial state per generation; the last ends at the cut."""
        plan = _generation_plan(self.scenario)
        cut = self.read.cut
        if (
            self.options.timing is Timing.RECORDED_SIM_TIME
            and cut is not None
            and cut.get("generation") == len(plan) - 1
        ):
            plan[-1] = (int(cut["tick"]) + 1, plan[-1][1])
        return plan

    # -- hooks of the recorder's loop
    def _start_generation(self, generation: int, ticks: int, state: ArmState) -> None:
        session_id = f"{self.run_id}.g{generation}"
        pending = [
            PendingChunk(
                _fresh(item.chunk, session_id, n, generation),
                item.tick,
                item.chunk.chunk_id,
            )
            for n, item in enumerate(self.by_generation.get(generation, []))
        ]
        self.sessions.append(
            {
                "session_id": session_id,
                "generation": generation,
                "chunk_ids": {p.chunk.chunk_id: p.source_chunk_id for p in pending},
            }
        )
        self.admission = ChunkAdmission(
            pending,
            dt_s=self.scenario.dt_s,
            timing=self.options.timing,
            execution=self.options.execution,
            max_in_flight=self.options.max_in_flight,
        )

    def _admit(self, generation: int, tick: int) -> list[AuthoredChunk]:
        assert self.admission is not None
        if tick % _PROGRESS_EVERY == 0:
            self.context.report(self.done_ticks, self.total_ticks)
        admitted = self.admission.admit(tick)
        self.retimed += sum(entry.retimed for entry in admitted)
        self._sources.update(
            (entry.chunk.chunk_id, entry.source_chunk_id) for entry in admitted
        )
        return [entry.chunk for entry in admitted]

    def _submit(
        self, controller: Any, chunk: AuthoredChunk, generation: int, tick: int
    ) -> None:
        controller.submit(chunk)
        self.writer.write(
            AUTHORED,
            chunk.to_json(),
            tick=tick,
            sim_time_s=tick * self.scenario.dt_s,
            generation=generation,
            metadata={
                "source_chunk_id": self._sources[chunk.chunk_id],
                "session_id": f"{self.run_id}.g{generation}",
            },
        )

    def _force(self, time_s: float, generation: int, tick: int) -> np.ndarray:
        forces = self.read.forces
        if forces is None:
            return super()._force(time_s, generation, tick)
        recorded = forces.get(generation)
        if recorded is None or tick >= len(recorded):
            return np.zeros(2)
        return np.array(recorded[tick])

    def _stop_after(self, generation: int, tick: int) -> bool:
        if (
            self.options.timing is not Timing.AS_FAST_AS_VALID
            or generation != self.final
        ):
            return False
        assert self.admission is not None
        return self.admission.all_terminal(tick * self.scenario.dt_s)

    def run_generation(self, generation: int, ticks: int, initial: ArmState) -> int:
        ran = super().run_generation(generation, ticks, initial)
        if generation == self.final:
            self.context.teardown().check("closing the control session")
        self._close_session(generation, ran - 1)
        return ran

    def _close_session(self, generation: int, tick: int) -> None:
        """Cancel the chunks still in flight; fail on chunks never admitted."""
        assert self.admission is not None
        admission = self.admission
        for index in admission.in_flight(tick * self.scenario.dt_s):
            chunk_id = admission.admitted[index].chunk.chunk_id
            result = ChunkResult(chunk_id, ChunkStatus.CANCELLED, SESSION_CLOSED)
            self._event("chunk_result", generation, tick, **result.to_json())
        if admission.pending:
            missed = [item.source_chunk_id for item in admission.pending]
            raise ReplayError(
                f"{len(missed)} authored chunk(s) of generation {generation} were "
                f"never admitted before the session closed at tick {tick} "
                f"({self.options.execution.value} execution, max_in_flight "
                f"{self.options.max_in_flight}): {missed[:5]}",
                path=self.context.path,
            )


def _fresh(
    chunk: AuthoredChunk, session_id: str, index: int, generation: int
) -> AuthoredChunk:
    """Return ``chunk`` with a fresh ID in ``session_id`` and the target generation."""
    return dataclasses.replace(
        chunk, chunk_id=f"{session_id}.c{index:04d}", generation=generation
    )


def planar_provenance(
    call: ReplayCall, mode: ReplayMode, digest: str, run_id: str
) -> dict[str, Any]:
    """Return the footer provenance of a planar-arm replay of ``call.source``."""
    return replay_provenance(
        producer=PRODUCER,
        mode=mode,
        source=call.source,
        source_sha256=digest,
        simulator=SIMULATOR_NAME,
        run_id=run_id,
        options=call.options,
    )


def run_planar_replay(
    call: ReplayCall, described: ReplayOutput, body: Body, digest: str
) -> ReplayResult:
    """Run ``body`` into ``call.output`` as a planar-arm replay of ``digest``."""
    return run_replay(
        call, described, body, source_sha256=digest, simulator=SIMULATOR_NAME
    )


def resimulate(call: ReplayCall) -> ReplayResult:
    """Resimulate ``call.source`` into ``call.output`` (see the module docstring)."""
    options = call.options
    read, digest = _read_source(call.source, options, call.cancel)
    run_id = fresh_run_id()
    provenance = planar_provenance(call, ReplayMode.RESIMULATE, digest, run_id)
    described = ReplayOutput(
        streams=recording_streams(read.scenario),
        metadata=_metadata(read, provenance),
        provenance=provenance,
        integrity=read.scenario.recording.integrity,
    )

    def body(writer: FsrWriter, context: ReplayContext) -> FinalClock:
        run = _Resimulation(read, writer, options, context, run_id)
        return _run_generations(run, writer)

    return run_planar_replay(call, described, body, digest)


def _run_generations(run: _Resimulation, writer: FsrWriter) -> FinalClock:
    dt = run.scenario.dt_s
    run.write(LIFECYCLE_STREAM, {"event": "start"}, 0, 0, dt)
    run.capture.write_meshes()
    ran = 0
    for generation, (ticks, initial) in enumerate(run.plan):
        if generation:
            reset = {"event": "generation_reset", "generation": generation}
            run.write(LIFECYCLE_STREAM, reset, generation, 0, dt)
        ran = run.run_generation(generation, ticks, initial)
    last = ran - 1
    run.write(LIFECYCLE_STREAM, {"event": "terminal_semantic_cut"}, run.final, last, dt)
    writer.set_provenance(sessions=run.sessions)
    # Complete even when as_fast_as_valid stopped before the planned ticks.
    run.context.report(run.done_ticks, run.done_ticks)
    notes = []
    interactive = run.read.metadata.get("run", {}).get("interactive") is True
    if interactive and run.read.forces is None:
        notes.append(
            "the source was pushed from outside its config; without the recorded "
            "force the resimulation is the unperturbed run"
        )
    if run.retimed:
        notes.append(f"{run.retimed} chunk(s) started later than recorded")
    return FinalClock(run.final, last, last * dt, run.done_ticks, tuple(notes))
