"""Run a MuJoCo scenario and record it into a new FSR file.

Each step: start the authored chunks whose time has come (recorded on
``control.authored``), set ``ctrl`` from the running chunks, compute the
state's derived quantities (``mj_forward``), write the observation row and
whatever scene capture is due, then ``mj_step``. So every record of a tick
describes the state at that tick and the control acting from it. The same
loop re-simulates a recording (:mod:`fsr_core.simulators.mujoco.replay`): the
same model, initial state and chunks give the same bits on the same machine.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.control import AuthoredChunk
from fsr_core.errors import FsrError, SchemaError
from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter, PublishResult
from fsr_core.simulation.recorded_streams import (
    APPLIED,
    AUTHORED,
    EVENTS,
    TASK,
    run_metadata,
    stream_table,
)
from fsr_core.simulation.scene_capture import Stamp
from fsr_core.simulators.mujoco.capture import (
    SceneCapture,
    scene_table,
    write_scene_once,
)
from fsr_core.simulators.mujoco.control import ControlPlayback, authored_chunks
from fsr_core.simulators.mujoco.model_session import (
    LoadedModel,
    load_model,
    simulation_contract,
)
from fsr_core.simulators.mujoco.observations import (
    OBSERVATIONS,
    observation_channels,
    observation_row,
)
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = [
    "MujocoRunResult",
    "record_mujoco_run",
    "recording_metadata",
    "recording_streams",
    "simulate_into",
]

ProgressFn = Callable[[int, int], None]
CancelFn = Callable[[], bool]

_REPRODUCIBILITY: Final = (
    "deterministic on one machine: re-simulation from the embedded "
    "model and authored control reproduces every channel bit for bit"
)


@dataclass(frozen=True)
class MujocoRunResult:
    """What a recorded MuJoCo run produced."""

    published: PublishResult
    ticks: int
    wall_s: float
    cancelled: bool = False


def recording_streams(
    scenario: MujocoScenario, loaded: LoadedModel
) -> list[StreamSpec]:
    """Every stream a recording of ``scenario`` has."""
    return stream_table(
        SIMULATOR_NAME,
        OBSERVATIONS,
        observation_channels(loaded),
        rate_hz=1.0 / float(loaded.model.opt.timestep),
        cameras=scenario.cameras,
        scene=scene_table(loaded),
    )


def recording_metadata(scenario: MujocoScenario, loaded: LoadedModel) -> dict[str, Any]:
    """Return the metadata: run, scenario summary, config, model, contract, versions."""
    return run_metadata(
        SIMULATOR_NAME,
        name=scenario.name,
        description=scenario.description,
        reproducibility=_REPRODUCIBILITY,
        scenario={
            "model": scenario.model.entry,
            "duration_s": scenario.duration_s,
            "actuators": loaded.model.nu,
            "cameras": [camera.name for camera in scenario.cameras],
            "generations": 1,
        },
        config=scenario.to_json(),
        model=scenario.model.metadata(),
        contract=simulation_contract(loaded),
        packages={"mujoco": str(loaded.mujoco.__version__)},
    )


def _targets(loaded: LoadedModel, scenario: MujocoScenario) -> dict[str, Any]:
    mujoco, model, data = loaded.mujoco, loaded.model, loaded.data
    targets = []
    for site in scenario.target_sites:
        index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, site)
        if index < 0:
            raise SchemaError(f"targets.sites: the model has no site {site!r}")
        position = [float(v) for v in data.site_xpos[index]]
        targets.append(
            {"name": site, "pos_m": position, "radius_m": scenario.target_radius_m}
        )
    return {"task": {"kind": "mujoco_targets"}, "targets_3d": targets}


class _Loop:
    """One simulated run writing into one writer."""

    def __init__(
        self,
        scenario: MujocoScenario,
        loaded: LoadedModel,
        writer: FsrWriter,
        chunks: Sequence[AuthoredChunk],
        *,
        sequential: bool = False,
        max_in_flight: int | None = None,
        until_chunks_done: bool = False,
    ) -> None:
        self.until_chunks_done = until_chunks_done
        self.scenario = scenario
        self.loaded = loaded
        self.writer = writer
        self.dt_s = float(loaded.model.opt.timestep)
        self.ticks = max(1, math.ceil(scenario.duration_s / self.dt_s - 1e-9))
        self.playback = ControlPlayback(
            chunks, loaded.actuators, sequential=sequential, max_in_flight=max_in_flight
        )
        self.capture = SceneCapture(scenario, loaded, writer)
        self.reported = 0
        self.touching = False

    def event(self, stamp: Stamp, name: str, **fields: Any) -> None:
        stamp.write(self.writer, EVENTS, {"name": name, **fields})

    def step(self, tick: int) -> None:
        mujoco, model, data = self.loaded.mujoco, self.loaded.model, self.loaded.data
        stamp = Stamp(tick, tick * self.dt_s)
        for chunk in self.playback.submit_due(stamp.sim_time_s):
            stamp.write(self.writer, AUTHORED, chunk.to_json())
        newest = self.playback.apply(stamp.sim_time_s, data.ctrl)
        mujoco.mj_forward(model, data)
        stamp.write(self.writer, OBSERVATIONS, observation_row(self.loaded))
        self.capture.capture(stamp)
        if tick % self.scenario.recording.applied_every_n_steps == 0 and model.nu:
            ctrl = np.array(data.ctrl, dtype=np.float64)
            for applied in self.playback.applied(tick, stamp.sim_time_s, ctrl, newest):
                stamp.write(self.writer, APPLIED, applied.to_json())
        if bool(data.ncon) != self.touching:
            self.touching = bool(data.ncon)
            name = "contact_started" if self.touching else "contact_ended"
            self.event(stamp, name, contacts=int(data.ncon))
        results = self.playback.results()
        for result in results[self.reported :]:
            self.event(stamp, "chunk_result", **result.to_json())
        self.reported = len(results)
        mujoco.mj_step(model, data)

    def run(self, progress: ProgressFn | None, cancelled: CancelFn | None) -> int:
        """Run every step; return how many ran (fewer when cancelled)."""
        start = Stamp(0, 0.0)
        start.write(self.writer, LIFECYCLE_STREAM, {"event": "start"})
        write_scene_once(self.writer, self.loaded)
        start.write(self.writer, TASK, _targets(self.loaded, self.scenario))
        done = 0
        try:
            for tick in range(self.ticks):
                if cancelled is not None and cancelled():
                    break
                self.step(tick)
                done += 1
                if self.until_chunks_done and self.playback.finished:
                    break
                if progress is not None and tick % 100 == 0:
                    progress(tick, self.ticks)
        finally:
            self.capture.close()
        last = Stamp(max(done - 1, 0), max(done - 1, 0) * self.dt_s)
        last.write(self.writer, LIFECYCLE_STREAM, {"event": "terminal_semantic_cut"})
        return done


def simulate_into(
    writer: FsrWriter,
    scenario: MujocoScenario,
    loaded: LoadedModel,
    chunks: Sequence[AuthoredChunk],
    *,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
    sequential: bool = False,
    max_in_flight: int | None = None,
    until_chunks_done: bool = False,
) -> int:
    """Simulate ``scenario`` from ``loaded``'s state into an open writer.

    Writes everything but the completion record; returns the steps run.
    ``sequential`` starts each chunk only after the previous ones ended;
    ``max_in_flight`` bounds the chunks started and not yet ended;
    ``until_chunks_done`` stops at the step every chunk has ended.
    """
    loop = _Loop(
        scenario,
        loaded,
        writer,
        chunks,
        sequential=sequential,
        max_in_flight=max_in_flight,
        until_chunks_done=until_chunks_done,
    )
    return loop.run(progress, cancelled)


def completion(
    writer: FsrWriter, ticks: int, dt_s: float, status: str, code: str
) -> None:
    """Write the lifecycle completion record at the last step."""
    last = Stamp(max(ticks - 1, 0), max(ticks - 1, 0) * dt_s)
    last.write(
        writer,
        LIFECYCLE_STREAM,
        {"event": "completion", "status": status, "reason_code": code},
    )


def record_mujoco_run(
    scenario: MujocoScenario,
    path: str | os.PathLike[str],
    *,
    progress: ProgressFn | None = None,
    where: Path | None = None,
) -> MujocoRunResult:
    """Simulate ``scenario`` with MuJoCo and record it to a new FSR file.

    Raises
    ------
    AdapterUnavailableError
        MuJoCo is not installed (the message names the extra).
    FsrError
        The scenario does not fit its model, or writing failed (nothing is
        published then).
    """
    started = time.perf_counter()
    try:
        return _record(scenario, Path(path), progress, started)
    except FsrError as exc:
        if where is None:
            raise
        raise exc.with_path(where) from exc.__cause__


def _record(
    scenario: MujocoScenario,
    path: Path,
    progress: ProgressFn | None,
    started: float,
) -> MujocoRunResult:
    loaded = load_model(scenario)
    chunks = authored_chunks(scenario.control, loaded.actuators)
    writer = FsrWriter(
        path,
        recording_streams(scenario, loaded),
        metadata=recording_metadata(scenario, loaded),
        integrity=scenario.recording.integrity,
        provenance={"producer": "fsr_core.simulators.mujoco", "mode": "simulate"},
    )
    with writer:
        ticks = simulate_into(writer, scenario, loaded, chunks, progress=progress)
        completion(
            writer,
            ticks,
            float(loaded.model.opt.timestep),
            "succeeded",
            "RUN_COMPLETED",
        )
    return MujocoRunResult(writer.finish(), ticks, time.perf_counter() - started)
