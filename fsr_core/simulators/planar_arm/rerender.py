"""Re-render a planar-arm recording from its recorded render state.

The clock is paused: each recorded ``render.state`` frame is applied in turn
(the arm is put at its joint positions and velocities) and the cameras due at
that tick re-render it with this simulator's own renderer, through the
calibration epochs of the recording's config. No control session, no
controller, no physics step, no wall-clock wait: frames go as fast as they
render. The force arrow and the active target come from the recorded
observations and the task, as drawn at recording time.

The new file holds the lifecycle, the applied render state, the task context,
the scene geometry (meshes, and body transforms at the frames), the cameras
with their calibration, and a footer naming ``mode: render`` and the source.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.format.values import Record
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.lifecycle import fresh_run_id
from fsr_core.simulation.protocol import ReplayMode, ReplayResult
from fsr_core.simulation.provenance import replay_metadata
from fsr_core.simulation.recorded_streams import RENDER_STATE, TASK
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.runner import FinalClock, ReplayContext, ReplayOutput
from fsr_core.simulators.planar_arm.model import ArmState
from fsr_core.simulators.planar_arm.observations import OBSERVATIONS
from fsr_core.simulators.planar_arm.recorder import recording_streams
from fsr_core.simulators.planar_arm.resimulation import (
    open_source,
    planar_provenance,
    run_planar_replay,
    source_scenario,
)
from fsr_core.simulators.planar_arm.scene_capture import SceneCapture
from fsr_core.simulators.planar_arm.tasks import task_from_json

__all__ = ["rerender"]

_PROGRESS_EVERY: Final = 10  # frames


def _recorded_force(reader: FsrReader) -> dict[tuple[int, int], np.ndarray]:
    """Return the tip force drawn at each (generation, tick), when recorded."""
    if OBSERVATIONS not in reader.streams:
        return {}
    channels = reader.streams[OBSERVATIONS].spec.channels or ()
    if "ext_fx" not in channels:
        return {}
    columns = [channels.index("ext_fx"), channels.index("ext_fy")]
    ticks, _, values = reader.read_series(OBSERVATIONS)
    generations = reader.rows(OBSERVATIONS)["generation"]
    return {
        (int(generation), int(tick)): row[columns]
        for generation, tick, row in zip(generations, ticks, values, strict=True)
    }


def _write_frames(
    reader: FsrReader, writer: FsrWriter, context: ReplayContext
) -> FinalClock:
    scenario = source_scenario(reader)
    capture = SceneCapture(scenario, writer)
    capture.records_render_state = False  # each applied frame is written as applied
    task = task_from_json(scenario.task)
    forces = _recorded_force(reader)
    total = reader.streams[RENDER_STATE].record_count
    writer.write(LIFECYCLE_STREAM, {"event": "start"}, tick=0, sim_time_s=0.0)
    capture.write_meshes()
    contexts = {record.generation: record for record in reader.iter_records(TASK)}
    generation, tick, time_s = 0, 0, 0.0
    for index, frame in enumerate(reader.iter_records(RENDER_STATE)):
        if index % _PROGRESS_EVERY == 0:
            context.report(index, total)
        if index == 0 or frame.generation != generation:
            _open_generation(writer, frame.generation, contexts, first=index == 0)
        generation, tick, time_s = frame.generation, frame.tick, frame.sim_time_s
        arrays = frame.decoded
        writer.write(
            RENDER_STATE, arrays, tick=tick, sim_time_s=time_s, generation=generation
        )
        state = ArmState(
            np.array(arrays["joint_positions"], dtype=np.float64),
            np.array(arrays["joint_velocities"], dtype=np.float64),
        )
        force = forces.get((generation, tick), np.zeros(2))
        active = task.active_target(time_s)
        capture.capture(generation, tick, state, task, active, force)
    context.report(total, total)
    return _close(reader, writer, FinalClock(generation, tick, time_s, total))


def _open_generation(
    writer: FsrWriter, generation: int, contexts: dict[int, Record], *, first: bool
) -> None:
    """Mark a generation reset and write the generation's task context."""
    if not first:
        reset = {"event": "generation_reset", "generation": generation}
        writer.write(
            LIFECYCLE_STREAM, reset, tick=0, sim_time_s=0.0, generation=generation
        )
    record = contexts.get(generation)
    if record is not None:
        writer.write(
            TASK,
            record.decoded,
            tick=record.tick,
            sim_time_s=record.sim_time_s,
            generation=generation,
        )


def _close(reader: FsrReader, writer: FsrWriter, last: FinalClock) -> FinalClock:
    """Write the terminal cut where the source has it (else at the last frame)."""
    cut = reader.footer.terminal_cut if reader.footer is not None else None
    final = last
    if cut is not None and int(cut["generation"]) == last.generation:
        final = FinalClock(
            last.generation, int(cut["tick"]), float(cut["sim_time_s"]), last.steps
        )
    writer.write(
        LIFECYCLE_STREAM,
        {"event": "terminal_semantic_cut"},
        tick=final.tick,
        sim_time_s=final.sim_time_s,
        generation=final.generation,
    )
    return final


_KEPT_KINDS: Final = frozenset(
    {
        StreamKind.LIFECYCLE,
        StreamKind.CAMERA_RGB,
        StreamKind.CAMERA_INTRINSICS,
        StreamKind.CAMERA_TRANSLATION,
        StreamKind.CAMERA_QUATERNION,
        StreamKind.TASK,
        StreamKind.RENDER_STATE,
        StreamKind.GEOMETRY_MESH,
        StreamKind.GEOMETRY_TRANSFORM,
    }
)


def rerender(call: ReplayCall) -> ReplayResult:
    """Re-render ``call.source`` into ``call.output`` (see the module docstring)."""
    source, options = call.source, call.options
    with open_source(source, options, call.cancel) as reader:
        scenario = source_scenario(reader)
        digest = reader.file_sha256
        provenance = planar_provenance(call, ReplayMode.RENDER, digest, fresh_run_id())
        described = ReplayOutput(
            streams=[
                spec for spec in recording_streams(scenario) if spec.kind in _KEPT_KINDS
            ],
            metadata=replay_metadata(reader.metadata, provenance),
            provenance=provenance,
            integrity=scenario.recording.integrity,
        )

        def body(writer: FsrWriter, context: ReplayContext) -> FinalClock:
            return _write_frames(reader, writer, context)

        return run_planar_replay(call, described, body, digest)
