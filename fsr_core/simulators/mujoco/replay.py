"""Render and resimulate replays of MuJoCo recordings.

``render``
    Load the embedded model, then for every recorded render-state frame set
    ``qpos``, ``qvel`` and the mocap poses, compute the kinematics
    (``mj_forward``; no control, no ``mj_step``) and render the cameras of
    the recorded config, each on its own schedule (a camera at the
    render-state rate, or a divisor of it, lands on its recorded ticks). The
    new file holds the re-rendered cameras, the render state and body
    transforms, the geometry and the model.
``resimulate``
    Load the embedded model and its initial state, check the simulation
    contract (model digest, time step, integrator, gravity, actuators against
    the recorded command axes), then run the recorder's own loop on the
    recorded *authored* chunks. On the same machine every channel reproduces
    bit for bit.

Both publish atomically; the footer's provenance names the mode and the
source's SHA-256. With ``overwrite``, the new file is published under a hidden
sibling name first and then replaces the output in one ``os.replace``.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsr_core.control import AuthoredChunk
from fsr_core.errors import ReplayError, TargetExistsError
from fsr_core.format.catalog import LIFECYCLE_STREAM, json_stream, lifecycle_stream
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.lifecycle import cancel_check
from fsr_core.simulation.protocol import (
    Execution,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
    Timing,
)
from fsr_core.simulation.recorded_streams import (
    RENDER_STATE,
    TASK,
    TRANSFORMS,
    camera_table,
)
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.scene_capture import Stamp
from fsr_core.simulators.mujoco.capture import (
    SceneCapture,
    render_state,
    scene_table,
    write_scene_once,
)
from fsr_core.simulators.mujoco.geometry import body_poses
from fsr_core.simulators.mujoco.model_session import (
    LoadedModel,
    check_contract,
    load_model,
    simulation_contract,
)
from fsr_core.simulators.mujoco.recorded_run import (
    RecordedRun,
    can_replay,
    read_recorded_run,
)
from fsr_core.simulators.mujoco.recorder import (
    completion,
    recording_streams,
    simulate_into,
)
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME

__all__ = ["can_replay", "replay_recording"]


def _check_chunks(
    chunks: tuple[AuthoredChunk, ...], loaded: LoadedModel, where: Path
) -> None:
    """Every recorded axis must be an actuator with the same space and unit."""
    actuators = {actuator.name: actuator for actuator in loaded.actuators}
    for chunk in chunks:
        for axis, unit in zip(chunk.axes, chunk.units, strict=True):
            actuator = actuators.get(axis)
            if actuator is None:
                raise ReplayError(
                    f"chunk {chunk.chunk_id!r} commands {axis!r}, which is not an "
                    f"actuator of the model ({', '.join(actuators) or 'none'})",
                    path=where,
                    section="preflight",
                )
            if (actuator.command_space, actuator.unit) != (chunk.command_space, unit):
                raise ReplayError(
                    f"chunk {chunk.chunk_id!r} commands {axis!r} as "
                    f"{chunk.command_space.value} in {unit}, the actuator takes "
                    f"{actuator.command_space.value} in {actuator.unit}",
                    path=where,
                    section="preflight",
                )


def _metadata(run: RecordedRun, mode: ReplayMode) -> dict[str, Any]:
    metadata = dict(run.metadata)
    metadata["replay"] = {
        "mode": mode.value,
        "source": run.path.name,
        "source_sha256": run.sha256,
    }
    return metadata


def _writer(
    path: Path, run: RecordedRun, mode: ReplayMode, streams: list[Any]
) -> FsrWriter:
    return FsrWriter(
        path,
        streams,
        metadata=_metadata(run, mode),
        integrity=run.scenario.recording.integrity,
        provenance={
            "producer": "fsr_core.simulators.mujoco",
            "mode": mode.value,
            "source": run.path.name,
            "source_sha256": run.sha256,
        },
    )


def _resimulate(
    run: RecordedRun,
    path: Path,
    options: ReplayOptions,
    progress: ProgressFn | None,
    cancelled: Callable[[], bool],
) -> tuple[int, bool]:
    loaded = load_model(run.scenario, where=run.path)
    check_contract(
        run.metadata.get("simulation_contract"),
        simulation_contract(loaded),
        where=run.path,
    )
    _check_chunks(run.chunks, loaded, run.path)
    streams = recording_streams(run.scenario, loaded)
    with _writer(path, run, ReplayMode.RESIMULATE, streams) as writer:
        ticks = simulate_into(
            writer,
            run.scenario,
            loaded,
            run.chunks,
            progress=progress,
            cancelled=cancelled,
            sequential=options.execution is Execution.SEQUENTIAL,
            max_in_flight=options.max_in_flight,
            until_chunks_done=options.timing is Timing.AS_FAST_AS_VALID,
        )
        if cancelled():
            writer.abort()
            return ticks, False
        dt_s = float(loaded.model.opt.timestep)
        completion(
            writer, ticks, dt_s, "succeeded", ReplayOutcome.SUCCEEDED.reason_code
        )
    return ticks, True


def _render_frames(
    reader: FsrReader,
    loaded: LoadedModel,
    capture: SceneCapture,
    writer: FsrWriter,
    progress: ProgressFn | None,
    cancelled: Callable[[], bool],
) -> int | None:
    mujoco, model, data = loaded.mujoco, loaded.model, loaded.data
    total = reader.streams[RENDER_STATE].record_count
    done = 0
    for record in reader.iter_records(RENDER_STATE):
        if cancelled():
            return None
        state = record.decoded
        data.qpos[:] = state["joint_positions"]
        data.qvel[:] = state["joint_velocities"]
        data.mocap_pos[:] = state["mocap_pos"]
        data.mocap_quat[:] = state["mocap_quat"]
        mujoco.mj_forward(model, data)
        stamp = Stamp(record.tick, record.sim_time_s)
        stamp.write(writer, RENDER_STATE, render_state(loaded))
        stamp.write(writer, TRANSFORMS, body_poses(loaded))
        for camera in capture.cameras_due(record.tick):
            capture.camera(camera, stamp)
        done += 1
        if progress is not None:
            progress(done, total)
    return done


def _render(
    run: RecordedRun,
    path: Path,
    progress: ProgressFn | None,
    cancelled: Callable[[], bool],
) -> tuple[int, bool]:
    if run.render_frames == 0:
        raise ReplayError(
            "no render state recorded: re-render needs render.state; choose "
            "resimulate to re-run it from its authored control",
            path=run.path,
        )
    loaded = load_model(run.scenario, where=run.path)
    streams = [
        lifecycle_stream(),
        *camera_table(run.scenario.cameras),
        json_stream(TASK, StreamKind.TASK, schema="fsr.task/1"),
        *scene_table(loaded),
    ]
    with (
        FsrReader.open(run.path) as reader,
        _writer(path, run, ReplayMode.RENDER, streams) as writer,
    ):
        start = Stamp(0, 0.0)
        start.write(writer, LIFECYCLE_STREAM, {"event": "start"})
        write_scene_once(writer, loaded)
        for record in reader.iter_records(TASK):
            start.write(writer, TASK, record.decoded)
        capture = SceneCapture(run.scenario, loaded, writer)
        try:
            frames = _render_frames(
                reader, loaded, capture, writer, progress, cancelled
            )
        finally:
            capture.close()
        if frames is None:
            writer.abort()
            return 0, False
        last = reader.rows(RENDER_STATE)[-1]
        end = Stamp(int(last["tick"]), float(last["sim_time_s"]))
        end.write(writer, LIFECYCLE_STREAM, {"event": "terminal_semantic_cut"})
        code = ReplayOutcome.SUCCEEDED.reason_code
        end.write(
            writer,
            LIFECYCLE_STREAM,
            {"event": "completion", "status": "succeeded", "reason_code": code},
        )
    return frames, True


def _staging(output: Path, overwrite: bool) -> Path:
    if not os.path.lexists(output):
        return output
    if not overwrite:
        raise TargetExistsError(
            "file already exists; a replay never overwrites it unless asked "
            "(overwrite)",
            path=output,
        )
    return output.with_name(f".{output.name}.{secrets.token_hex(6)}.replaced")


def replay_recording(call: ReplayCall) -> ReplayResult:
    """Re-render or re-simulate a MuJoCo recording into a new FSR file.

    Raises
    ------
    ReplayError
        The source is not a replayable MuJoCo recording, its digest differs
        from the pinned one, or its contract or control does not fit the model.
    AdapterUnavailableError
        MuJoCo is not installed.
    TargetExistsError
        ``output`` exists and ``options.overwrite`` is false.
    """
    options, progress, cancel = call.options, call.progress, call.cancel
    started = time.perf_counter()
    check = cancel_check(cancel, call.source, "while reading the source")
    run = read_recorded_run(Path(call.source), options.pinned_sha256, check)
    target = Path(call.output)
    staging = _staging(target, options.overwrite)

    def cancelled() -> bool:
        return cancel is not None and cancel.cancelled

    if options.mode is ReplayMode.RENDER:
        steps, finished = _render(run, staging, progress, cancelled)
    else:
        steps, finished = _resimulate(run, staging, options, progress, cancelled)
    if finished and staging != target:
        staging.replace(target)
    outcome = ReplayOutcome.SUCCEEDED if finished else ReplayOutcome.CANCELLED
    return ReplayResult(
        outcome=outcome,
        output=target if finished else None,
        source_sha256=run.sha256,
        mode=options.mode,
        simulator=SIMULATOR_NAME,
        message="" if finished else "cancelled; nothing was published",
        steps=steps,
        wall_s=time.perf_counter() - started,
    )
