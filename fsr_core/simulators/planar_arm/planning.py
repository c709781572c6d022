"""Planning: the authored control chunks that carry out a planar-arm task.

:func:`plan_chunks` turns a task into chunks a controller of
:mod:`~fsr_core.simulators.planar_arm.controllers` plays back: minimum-jerk
joint moves to the IK solutions of targets, or IK along a tip reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.control import (
    AuthoredChunk,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
)
from fsr_core.simulators.planar_arm.chunk_playback import REVOLUTE_UNITS
from fsr_core.simulators.planar_arm.controllers import (
    CONTROLLER_KINDS,
    TorqueController,
    hold_torque,
)
from fsr_core.simulators.planar_arm.dynamics import inverse_dynamics
from fsr_core.simulators.planar_arm.ik import solve_ik
from fsr_core.simulators.planar_arm.kinematics import as_joint_vector
from fsr_core.simulators.planar_arm.model import ArmModel
from fsr_core.simulators.planar_arm.tasks import (
    MultiTargetTask,
    PeriodicCurveTask,
    ReachTask,
    Task,
)

__all__ = ["CHUNK_TARGET", "plan_chunks"]


#: ``target`` of the chunks :func:`plan_chunks` authors.
CHUNK_TARGET: Final = "arm"
_REACH_RATE_S: Final = 0.02  # 50 Hz points for point-to-point moves
_PATH_RATE_S: Final = 0.01  # 100 Hz points along curves and trajectories
_MOVE_S: Final = 1.5  # longest point-to-point move
_BLEND_S: Final = 1.0  # longest lead-in from the start posture onto a path
_MAX_POINTS: Final = 1000  # points per chunk (long paths use several chunks)


@dataclass(frozen=True)
class _Plan:
    """Shared arguments of the planners."""

    model: ArmModel
    controller: str
    duration_s: float
    dt_s: float
    generation: int

    @property
    def space(self) -> CommandSpace:
        if self.controller == TorqueController.name:
            return CommandSpace.JOINT_TORQUE
        return CommandSpace.JOINT_POSITION

    def spacing(self, nominal_s: float) -> float:
        """Return a whole number of ticks near ``nominal_s``, seconds."""
        return self.dt_s * max(1, round(nominal_s / self.dt_s))

    def snap(self, time_s: float) -> float:
        """Return the tick time ``k * dt_s`` nearest ``time_s``."""
        return round(time_s / self.dt_s) * self.dt_s

    def chunk(
        self, chunk_id: str, start_s: float, spacing_s: float, q_path: FloatArray
    ) -> AuthoredChunk:
        """Make a chunk of a path sampled every ``spacing_s`` from ``start_s``."""
        times = np.arange(len(q_path), dtype=np.float64) * spacing_s
        values, policy = q_path, TerminalPolicy.HOLD
        if self.space is CommandSpace.JOINT_TORQUE:
            values, policy = (
                self._torques(q_path, spacing_s),
                (TerminalPolicy.CONTROLLER_DEFAULT),
            )
        return AuthoredChunk(
            chunk_id=chunk_id,
            target=CHUNK_TARGET,
            command_space=self.space,
            axes=self.model.joint_names,
            units=(REVOLUTE_UNITS[self.space],) * self.model.dof,
            interpolation=Interpolation.LINEAR,
            terminal_policy=policy,
            start_sim_time_s=start_s,
            times_s=times,
            values=values,
            controller=self.controller,
            generation=self.generation,
        )

    def _torques(self, q_path: FloatArray, spacing_s: float) -> FloatArray:
        """Return the inverse-dynamics torques along a sampled path."""
        if len(q_path) < 2:
            return np.array([hold_torque(self.model, q_path[0])])
        dq = np.gradient(q_path, spacing_s, axis=0)
        qdd = np.gradient(dq, spacing_s, axis=0)
        return np.array(
            [
                inverse_dynamics(self.model, q, rate, acceleration)
                for q, rate, acceleration in zip(q_path, dq, qdd, strict=True)
            ]
        )


def _min_jerk(fraction: FloatArray) -> FloatArray:
    s = np.clip(fraction, 0.0, 1.0)
    result: FloatArray = s**3 * (10.0 - 15.0 * s + 6.0 * s * s)
    return result


def _move(
    plan: _Plan, q_from: FloatArray, q_to: FloatArray
) -> tuple[float, FloatArray]:
    """Sample a minimum-jerk move at 50 Hz; return (spacing, path)."""
    move_s = min(_MOVE_S, 0.5 * plan.duration_s)
    spacing = plan.spacing(_REACH_RATE_S)
    count = max(2, math.ceil(move_s / spacing - 1e-9) + 1)
    fraction = np.arange(count, dtype=np.float64) * (spacing / max(move_s, spacing))
    blend = _min_jerk(fraction)[:, None]
    return spacing, q_from + blend * (q_to - q_from)


def _plan_reach(plan: _Plan, task: ReachTask, q0: FloatArray) -> list[AuthoredChunk]:
    goal, _ = solve_ik(plan.model, task.target_xy, q0)
    spacing, path = _move(plan, q0, goal)
    return [plan.chunk("reach-0", 0.0, spacing, path)]


def _path_at(
    start_s: float, spacing_s: float, path: FloatArray, t_s: float
) -> FloatArray:
    """Interpolate a sampled joint path at ``t_s`` (holding its ends)."""
    times = start_s + np.arange(len(path), dtype=np.float64) * spacing_s
    return np.array([np.interp(t_s, times, path[:, j]) for j in range(path.shape[1])])


def _plan_targets(
    plan: _Plan, task: MultiTargetTask, q0: FloatArray
) -> list[AuthoredChunk]:
    segments = [(0.0, 0), *task.switches]
    if len(segments) > 1 and segments[1][0] == 0.0:
        segments = segments[1:]  # a switch at time 0 replaces the first target
    chunks: list[AuthoredChunk] = []
    previous: tuple[float, float, FloatArray] | None = None
    for number, (time_s, index) in enumerate(segments):
        start_s = plan.snap(time_s)
        if previous is not None and start_s >= plan.duration_s:
            break
        # Start where the previous move's reference is, so the reference is
        # continuous even when that move is preempted.
        q_from = q0 if previous is None else _path_at(*previous, start_s)
        goal, _ = solve_ik(plan.model, task.targets[index], q_from)
        spacing, path = _move(plan, q_from, goal)
        chunks.append(plan.chunk(f"target-{number}", start_s, spacing, path))
        previous = (start_s, spacing, path)
    return chunks


def _plan_path(
    plan: _Plan,
    prefix: str,
    reference: Callable[[float], FloatArray],
    q0: FloatArray,
) -> list[AuthoredChunk]:
    """IK along a tip reference at 100 Hz, blended in from ``q0``.

    Each sample's IK is seeded with the previous solution (a continuous
    branch). The offset between ``q0`` and the first solution fades out with
    a minimum-jerk profile over the first second (at most a quarter of the
    run), so the reference starts at the arm's posture.
    """
    spacing = plan.spacing(_PATH_RATE_S)
    count = max(2, math.ceil(plan.duration_s / spacing - 1e-9) + 1)
    path = np.empty((count, plan.model.dof))
    seed = q0
    for k in range(count):
        seed, _ = solve_ik(plan.model, reference(spacing * k), seed)
        path[k] = seed
    blend_s = min(_BLEND_S, 0.25 * plan.duration_s)
    fade = 1.0 - _min_jerk(np.arange(count, dtype=np.float64) * (spacing / blend_s))
    path = path + fade[:, None] * (q0 - path[0])
    path[0] = q0  # exactly, not up to rounding
    chunks: list[AuthoredChunk] = []
    step = _MAX_POINTS - 1
    for number, first in enumerate(range(0, count - 1, step)):
        piece = path[first : first + step + 1]
        start_s = plan.snap(spacing * first)
        chunks.append(plan.chunk(f"{prefix}-{number}", start_s, spacing, piece))
    return chunks


def plan_chunks(
    task: Task,
    model: ArmModel,
    q0: npt.ArrayLike,
    controller_kind: str,
    *,
    duration_s: float,
    dt_s: float,
    generation: int = 0,
) -> list[AuthoredChunk]:
    """Plan the authored control chunks that carry out a task.

    - :class:`ReachTask`: one minimum-jerk joint move from ``q0`` to the IK
      solution of the target (``"reach-0"``), over ``min(1.5 s, duration/2)``,
      points at 50 Hz.
    - :class:`MultiTargetTask`: one such move per segment (``"target-0"``,
      ``"target-1"`` ...), starting at time 0 and at each switch, from where
      the previous move's reference is at that time; a switch before the
      previous move ends preempts it.
    - :class:`PeriodicCurveTask`, :class:`ReferenceTrajectoryTask`: IK along
      the tip reference at 100 Hz over the whole run, each solution seeded
      with the previous one, faded in from ``q0`` (``"curve-0"`` or
      ``"trajectory-0"``; a long run is split into consecutive chunks of at
      most 1000 points, ``"curve-1"`` ...).

    Every chunk interpolates linearly. Point spacings and start times are
    whole numbers of ticks, so a tick clock (``k * dt_s``) meets them. For the
    ``"torque"`` controller the chunks hold the inverse-dynamics torques of
    the same joint paths (an open-loop plan; terminal policy
    ``controller_default``, gravity compensation); for every other controller
    they are joint positions (terminal policy ``hold``). An unreachable
    target is planned to the nearest posture IK finds.

    Parameters
    ----------
    task
        The task.
    model
        The arm.
    q0
        Posture at time 0, radians, shape ``(n,)``.
    controller_kind
        One of
        :data:`~fsr_core.simulators.planar_arm.controllers.CONTROLLER_KINDS`;
        stored as each chunk's ``controller``.
    duration_s
        Length of the run, seconds.
    dt_s
        Simulation step, seconds.
    generation
        Generation stored in the chunks.

    Returns
    -------
    list of AuthoredChunk
        The chunks, start times non-decreasing, IDs unique.

    Raises
    ------
    SchemaError
        ``q0`` does not fit the arm.
    ValueError
        An unknown controller kind, or a non-positive duration or step.
    """
    if controller_kind not in CONTROLLER_KINDS:
        raise ValueError(f"unknown controller kind {controller_kind!r}")
    if not (math.isfinite(duration_s) and duration_s > 0):
        raise ValueError(f"duration_s must be positive, got {duration_s}")
    if not (math.isfinite(dt_s) and dt_s > 0):
        raise ValueError(f"dt_s must be positive, got {dt_s}")
    start = as_joint_vector(q0, model.dof, "q0").copy()
    plan = _Plan(model, controller_kind, float(duration_s), float(dt_s), generation)
    if isinstance(task, ReachTask):
        return _plan_reach(plan, task, start)
    if isinstance(task, MultiTargetTask):
        return _plan_targets(plan, task, start)
    prefix = "curve" if isinstance(task, PeriodicCurveTask) else "trajectory"
    return _plan_path(plan, prefix, task.tip_reference, start)
