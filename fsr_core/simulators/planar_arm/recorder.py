"""Run a scenario and record everything it does into a new FSR file.

One loop per generation: at each tick the controller turns the active authored
chunk into torques, the observation record is written (state before the
step), cameras render at their own rate, render state and body transforms at
theirs, then the integrator advances the arm. Chunks are submitted, and
recorded on ``control.authored``, at the tick their start time is reached;
what the arm actually received is recorded on ``control.applied``.

Pushes from the scenario's ``[[pushes]]`` are part of the config and replay
from it. :class:`ExternalPush` is a force from outside the config (a person
dragging the arm in an interactive run): it is recorded on the ``ext_f*``
channels and marks the run interactive, but a re-simulation from the config
alone does not contain it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.control import AppliedControl, AuthoredChunk, CommandSpace
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter, PublishResult
from fsr_core.simulation.recorded_streams import (
    APPLIED,
    AUTHORED,
    EVENTS,
    TASK,
    run_metadata,
    scene_streams,
    stream_table,
)
from fsr_core.simulators.planar_arm.controllers import controller_from_json
from fsr_core.simulators.planar_arm.integrator import step
from fsr_core.simulators.planar_arm.model import ArmState
from fsr_core.simulators.planar_arm.observations import (
    OBSERVATIONS,
    SIMULATOR_NAME,
    observation_channels,
)
from fsr_core.simulators.planar_arm.planning import plan_chunks
from fsr_core.simulators.planar_arm.scenario import Scenario
from fsr_core.simulators.planar_arm.scene_capture import SceneCapture
from fsr_core.simulators.planar_arm.tasks import task_from_json

__all__ = [
    "ExternalPush",
    "RunResult",
    "record_run",
    "recording_metadata",
    "recording_streams",
    "reproducibility",
]


@dataclass(frozen=True)
class ExternalPush:
    """A tip force applied from outside the scenario config (interactive)."""

    start_s: float
    end_s: float
    force_n: tuple[float, float]
    generation: int = 0


@dataclass(frozen=True)
class RunResult:
    """What a recorded run produced."""

    published: PublishResult
    ticks: int
    """Physics ticks run, over every generation."""
    generations: int
    wall_s: float
    """Wall-clock time of the whole run, seconds."""


def recording_streams(scenario: Scenario) -> list[StreamSpec]:
    """Every stream a run of ``scenario`` records."""
    dof = scenario.model.dof
    return stream_table(
        SIMULATOR_NAME,
        OBSERVATIONS,
        observation_channels(dof),
        rate_hz=1.0 / scenario.dt_s,
        cameras=scenario.cameras,
        scene=scene_streams([f"link{i}" for i in range(dof)]),
    )


def reproducibility(*, interactive: bool) -> str:
    """Say what a re-run of a run, pushed from outside its config or not, gives."""
    if interactive:
        return (
            "interactive: pushed from outside its config; replay plays it back, "
            "re-simulation gives the unperturbed scenario"
        )
    return "deterministic: re-simulation reproduces every channel bit for bit"


def recording_metadata(scenario: Scenario, *, interactive: bool) -> dict[str, Any]:
    """Return the metadata: run, scenario summary, config, contract, versions."""
    model = scenario.model
    return run_metadata(
        SIMULATOR_NAME,
        name=scenario.name,
        description=scenario.description,
        reproducibility=reproducibility(interactive=interactive),
        interactive=interactive,
        scenario={
            "task": scenario.task.get("kind"),
            "controller": scenario.controller.get("kind"),
            "dof": model.dof,
            "duration_s": scenario.duration_s,
            "generations": len(scenario.resets) + 1,
        },
        config=scenario.resolved(),
        contract={
            "simulator": SIMULATOR_NAME,
            "dof": model.dof,
            "axes": list(model.joint_names),
            "dt_s": scenario.dt_s,
            "command_spaces": ["joint_position", "joint_velocity", "joint_torque"],
            "units": {
                "joint_position": "rad",
                "joint_velocity": "rad/s",
                "joint_torque": "N*m",
            },
        },
    )


def _force_at(
    time_s: float,
    generation: int,
    scenario: Scenario,
    external: Sequence[ExternalPush],
) -> np.ndarray:
    force = np.zeros(2)
    for scripted in scenario.pushes:
        if scripted.start_s <= time_s < scripted.end_s:
            force += np.array(scripted.force_n)
    for push in external:
        if push.generation == generation and push.start_s <= time_s < push.end_s:
            force += np.array(push.force_n)
    return force


def _generation_plan(scenario: Scenario) -> list[tuple[int, ArmState]]:
    """Ticks and initial state of each generation (resets end generations early)."""
    plan: list[tuple[int, ArmState]] = []
    state = scenario.initial.copy()
    for reset in scenario.resets:
        # A reset ends its generation early; it never makes one longer.
        ticks = min(max(1, round(reset.after_s / scenario.dt_s)), scenario.ticks)
        plan.append((ticks, state))
        q = scenario.initial.q if reset.q_rad is None else np.array(reset.q_rad)
        state = ArmState(q.copy(), np.zeros_like(q))
    plan.append((scenario.ticks, state))
    return plan


class _Run:
    """The state of one recording run (one writer, several generations)."""

    def __init__(
        self,
        scenario: Scenario,
        writer: FsrWriter,
        external: Sequence[ExternalPush],
        progress: Callable[[float], None] | None,
    ) -> None:
        self.scenario = scenario
        self.writer = writer
        self.external = external
        self.progress = progress
        self.task = task_from_json(scenario.task)
        self.capture = SceneCapture(scenario, writer)
        self.total_ticks = sum(ticks for ticks, _ in _generation_plan(scenario))
        self.done_ticks = 0
        self._pending: list[AuthoredChunk] = []

    def write(self, stream: str, value: Any, gen: int, tick: int, dt: float) -> None:
        self.writer.write(
            stream, value, tick=tick, sim_time_s=tick * dt, generation=gen
        )

    def run_generation(self, generation: int, ticks: int, initial: ArmState) -> int:
        """Simulate one generation; return how many ticks it ran."""
        scenario, dt = self.scenario, self.scenario.dt_s
        model = scenario.model
        state = initial.copy()
        controller = controller_from_json(scenario.controller)
        controller.reset(model, state)
        self._start_generation(generation, ticks, state)
        context = {
            "task": self.task.to_json(),
            "overlay": self.task.overlay_json(model),
        }
        self.write(TASK, context, generation, 0, dt)
        reported = 0
        last_target = None
        limited: tuple[int, ...] = ()
        pushing = False
        ran = 0
        for tick in range(ticks):
            time_s = tick * dt
            for chunk in self._admit(generation, tick):
                self._submit(controller, chunk, generation, tick)
            force = self._force(time_s, generation, tick)
            output = controller.torque(time_s, state)
            active = self.task.active_target(time_s)
            if active != last_target and tick > 0:
                self._event("target_switched", generation, tick, active_target=active)
            last_target = active
            if bool(force.any()) != pushing:
                pushing = bool(force.any())
                name = "push_started" if pushing else "push_ended"
                self._event(name, generation, tick, force_n=force.tolist())
            self._observe(generation, tick, state, output, force, active)
            self.capture.capture(generation, tick, state, self.task, active, force)
            if tick % scenario.recording.applied_every_n_ticks == 0:
                self._applied(generation, tick, output)
            result = step(model, state, output.tau, dt, tip_force=force)
            if result.limited != limited and result.limited:
                self._event(
                    "joint_limit", generation, tick, joints=list(result.limited)
                )
            limited = result.limited
            reported = self._chunk_results(controller, reported, generation, tick)
            self.done_ticks += 1
            ran = tick + 1
            if self.progress is not None and tick % 50 == 0:
                self.progress(self.done_ticks / self.total_ticks)
            if self._stop_after(generation, tick):
                break
        if pushing:  # a push still acting when the generation ends
            self._event("push_ended", generation, ran - 1, force_n=[0.0, 0.0])
        self._generation_summary(generation, ran, state)
        return ran

    # Hooks a replay overrides: where chunks come from, when they are
    # submitted, which force acts, and whether a generation stops early.
    def _start_generation(self, generation: int, ticks: int, state: ArmState) -> None:
        """Plan the generation's chunks from the task."""
        scenario = self.scenario
        chunks = plan_chunks(
            self.task,
            scenario.model,
            state.q.copy(),
            str(scenario.controller["kind"]),
            duration_s=ticks * scenario.dt_s,
            dt_s=scenario.dt_s,
            generation=generation,
        )
        self._pending = sorted(chunks, key=lambda chunk: chunk.start_sim_time_s)

    def _admit(self, generation: int, tick: int) -> list[AuthoredChunk]:
        """Return the chunks to submit at ``tick``: those whose start is reached."""
        time_s = tick * self.scenario.dt_s
        due: list[AuthoredChunk] = []
        while self._pending and self._pending[0].start_sim_time_s <= time_s + 1e-12:
            due.append(self._pending.pop(0))
        return due

    def _submit(
        self, controller: Any, chunk: AuthoredChunk, generation: int, tick: int
    ) -> None:
        """Hand ``chunk`` to the controller and record it on ``control.authored``."""
        controller.submit(chunk)
        self.write(AUTHORED, chunk.to_json(), generation, tick, self.scenario.dt_s)

    def _force(self, time_s: float, generation: int, tick: int) -> np.ndarray:
        """Return the tip force acting at this tick (scripted and external pushes)."""
        return _force_at(time_s, generation, self.scenario, self.external)

    def _stop_after(self, generation: int, tick: int) -> bool:
        """Whether the generation ends after ``tick`` (never, for a recording)."""
        return False

    def _generation_summary(self, generation: int, ticks: int, state: ArmState) -> None:
        """Close a generation with an event: its length and where the tip ended."""
        tip, _ = self.capture.tip(state)
        reference = self.task.tip_reference(ticks * self.scenario.dt_s)
        self._event(
            "generation_ended",
            generation,
            ticks - 1,
            ticks=ticks,
            tip_xy=[float(tip[0]), float(tip[1])],
            tip_error_m=float(np.linalg.norm(tip - reference)),
        )

    def _event(self, name: str, generation: int, tick: int, **fields: Any) -> None:
        event = {"name": name, **fields}
        self.write(EVENTS, event, generation, tick, self.scenario.dt_s)

    def _observe(
        self,
        generation: int,
        tick: int,
        state: ArmState,
        output: Any,
        force: np.ndarray,
        active: int | None,
    ) -> None:
        scenario = self.scenario
        model = scenario.model
        tip, tip_speed = self.capture.tip(state)
        reference = self.task.tip_reference(tick * scenario.dt_s)
        q_ref = state.q if output.q_ref is None else output.q_ref
        error = q_ref - state.q
        row = np.concatenate(
            [
                state.q,
                state.dq,
                output.tau,
                tip,
                [tip_speed],
                reference,
                q_ref,
                error,
                [-1.0 if active is None else float(active)],
                force,
                [model.friction_nms_per_rad],
            ]
        )
        self.write(OBSERVATIONS, row, generation, tick, scenario.dt_s)

    def _applied(self, generation: int, tick: int, output: Any) -> None:
        model = self.scenario.model
        applied = AppliedControl(
            tick=tick,
            sim_time_s=tick * self.scenario.dt_s,
            target="arm",
            command_space=CommandSpace.JOINT_TORQUE,
            axes=model.joint_names,
            values=np.asarray(output.tau, dtype=np.float64),
            chunk_id=output.chunk_id,
        )
        self.write(APPLIED, applied.to_json(), generation, tick, self.scenario.dt_s)

    def _chunk_results(
        self, controller: Any, reported: int, gen: int, tick: int
    ) -> int:
        results = controller.chunk_results()
        for result in results[reported:]:
            self._event("chunk_result", gen, tick, **result.to_json())
        return len(results)


def record_run(
    scenario: Scenario,
    path: str | os.PathLike[str],
    *,
    external_pushes: Sequence[ExternalPush] = (),
    progress: Callable[[float], None] | None = None,
    batch_limits: BatchLimits | None = None,
) -> RunResult:
    """Simulate ``scenario`` and record it to a new FSR file at ``path``.

    Raises
    ------
    FsrError
        The scenario is invalid, or writing failed (nothing is published then).
    """
    started = time.perf_counter()
    interactive = bool(external_pushes)
    writer = FsrWriter(
        Path(path),
        recording_streams(scenario),
        metadata=recording_metadata(scenario, interactive=interactive),
        integrity=scenario.recording.integrity,
        batch_limits=batch_limits,
        provenance={"producer": "fsr_core.simulators.planar_arm", "mode": "simulate"},
    )
    run = _Run(scenario, writer, external_pushes, progress)
    plan = _generation_plan(scenario)
    dt = scenario.dt_s
    total = 0
    with writer:
        run.write(LIFECYCLE_STREAM, {"event": "start"}, 0, 0, dt)
        run.capture.write_meshes()
        last_ticks = 0
        for generation, (ticks, initial) in enumerate(plan):
            if generation:
                reset = {"event": "generation_reset", "generation": generation}
                run.write(LIFECYCLE_STREAM, reset, generation, 0, dt)
            last_ticks = run.run_generation(generation, ticks, initial)
            total += last_ticks
        final = len(plan) - 1
        cut = {"event": "terminal_semantic_cut"}
        run.write(LIFECYCLE_STREAM, cut, final, last_ticks - 1, dt)
        done = {
            "event": "completion",
            "status": "succeeded",
            "reason_code": "RUN_COMPLETED",
        }
        run.write(LIFECYCLE_STREAM, done, final, last_ticks - 1, dt)
    if progress is not None:
        progress(1.0)
    return RunResult(writer.finish(), total, len(plan), time.perf_counter() - started)
