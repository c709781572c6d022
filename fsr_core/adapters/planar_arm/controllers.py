"""Controllers of the planar arm, driven by authored control chunks.

Every controller here is deterministic (a fixed sequence of numpy operations
on its inputs) and follows one life cycle:

1. ``reset(model, state)`` starts a run: it forgets earlier chunks and results
   and remembers the posture to hold until a chunk starts;
2. ``submit(chunk)`` hands it an :class:`~fsr_core.control.AuthoredChunk`,
   checked against the arm (axes ``q0, q1, ...`` in order, the command
   space's revolute unit) and against the chunks submitted before it
   (:func:`~fsr_core.control.validate_authored_chunks`);
3. ``torque(t_s, state)`` returns the joint torques for a simulation time;
4. ``chunk_results()`` lists how the chunks that ended so far ended.

Chunk selection: at time ``t`` the active chunk is the latest-submitted one
whose ``start_sim_time_s <= t`` (with a 1 ns tolerance for tick clocks).
Before any chunk starts, tracking controllers hold the posture given to
``reset`` and :class:`TorqueController` applies zero torque. After a chunk's
last point its terminal policy applies (see
:meth:`~fsr_core.control.AuthoredChunk.value_at`): ``hold`` keeps the last
value, ``zero`` commands zeros, ``controller_default`` hands over to the
controller's default: tracking controllers keep the chunk's final reference
posture at rest, :class:`TorqueController` compensates gravity.

A chunk *succeeds* (``CHUNK_COMPLETED``) once its last point's time has
passed without a later chunk starting first; it is *cancelled*
(``CHUNK_PREEMPTED``) when a later chunk starts before its last point.

Reference derivatives: for a position chunk with linear interpolation the
reference velocity is the current segment's slope (the exact derivative of
the interpolated position) and the reference acceleration is the slope of
the knot velocities (central differences of the points), i.e. the
acceleration of the smooth path the points sample; zero-order-hold position
chunks have zero velocity and acceleration. A velocity chunk's position
reference is its exact integral, starting from the reference in effect when
the chunk starts.

Gravity sign: :func:`~fsr_core.adapters.planar_arm.dynamics.gravity_torques`
returns the torque gravity applies, so compensating it adds its negative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from fsr_core.adapters.planar_arm.dynamics import (
    bias_forces,
    gravity_torques,
    inverse_dynamics,
    mass_matrix,
)
from fsr_core.adapters.planar_arm.ik import solve_ik
from fsr_core.adapters.planar_arm.kinematics import (
    as_joint_vector,
    tip_jacobian,
    tip_position,
)
from fsr_core.adapters.planar_arm.model import ArmModel, ArmState
from fsr_core.adapters.planar_arm.tasks import (
    MultiTargetTask,
    PeriodicCurveTask,
    ReachTask,
    Task,
)
from fsr_core.control import (
    AuthoredChunk,
    ChunkResult,
    ChunkStatus,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
    validate_authored_chunks,
)
from fsr_core.errors import SchemaError

__all__ = [
    "CHUNK_TARGET",
    "COMPLETED_REASON",
    "CONTROLLER_KINDS",
    "PREEMPTED_REASON",
    "REVOLUTE_UNITS",
    "ComputedTorqueController",
    "ControlOutput",
    "Controller",
    "InverseDynamicsFeedforward",
    "PDController",
    "ReachingController",
    "TorqueController",
    "check_chunk_fits",
    "controller_from_json",
    "plan_chunks",
]

FloatArray = npt.NDArray[np.float64]
Gain: TypeAlias = float | tuple[float, ...]

#: Unit of every axis of a chunk for the arm's revolute joints.
REVOLUTE_UNITS: Final[Mapping[CommandSpace, str]] = {
    CommandSpace.JOINT_POSITION: "rad",
    CommandSpace.JOINT_VELOCITY: "rad/s",
    CommandSpace.JOINT_TORQUE: "N*m",
}
#: ``target`` of the chunks :func:`plan_chunks` authors.
CHUNK_TARGET: Final = "arm"
#: Reason code of a chunk whose last point has passed.
COMPLETED_REASON: Final = "CHUNK_COMPLETED"
#: Reason code of a chunk a later-starting chunk took over from.
PREEMPTED_REASON: Final = "CHUNK_PREEMPTED"
_TIME_EPS_S: Final = 1e-9  # tick clocks (k * dt) may miss a start by an ulp
_SECTION: Final = "authored chunk"


@dataclass(frozen=True, eq=False)
class ControlOutput:
    """What a controller commands at one time, and why.

    Parameters
    ----------
    tau
        Joint torques, N m, shape ``(n,)``.
    q_ref
        Reference posture, radians, ``(n,)``; None for torque control.
    dq_ref
        Reference joint velocities, rad/s, ``(n,)``; None for torque control.
    error
        ``q_ref - q``, radians, ``(n,)``; None for torque control.
    endpoint_ref
        Reference tip position, plane coordinates, ``(2,)``, for task-space
        control; None otherwise.
    chunk_id
        The chunk the command came from; None before any chunk starts and
        under a ``controller_default`` terminal policy.
    """

    tau: FloatArray
    q_ref: FloatArray | None = None
    dq_ref: FloatArray | None = None
    error: FloatArray | None = None
    endpoint_ref: FloatArray | None = None
    chunk_id: str | None = None


class Controller(Protocol):
    """A deterministic controller driven by authored control chunks."""

    @property
    def name(self) -> str:
        """Kind of the controller (``"pd"``, ``"computed_torque"`` ...)."""
        ...

    def reset(self, model: ArmModel, state: ArmState) -> None:
        """Start a run on ``model`` from ``state``; forget chunks and results."""
        ...

    def submit(self, chunk: AuthoredChunk) -> None:
        """Accept a chunk; raise :class:`SchemaError` if it does not fit."""
        ...

    def torque(self, t_s: float, state: ArmState) -> ControlOutput:
        """Return the command at simulation time ``t_s`` for ``state``."""
        ...

    def chunk_results(self) -> list[ChunkResult]:
        """Return the results of the chunks that ended, in the order they ended."""
        ...

    def to_json(self) -> dict[str, Any]:
        """Return ``kind`` and gains, so :func:`controller_from_json` rebuilds it."""
        ...


# ---------------------------------------------------------------------------
# Chunk playback: references and commands from one chunk
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reference:
    q: FloatArray
    dq: FloatArray
    qdd: FloatArray
    chunk_id: str | None


def _rest(q: FloatArray, chunk_id: str | None) -> _Reference:
    zeros = np.zeros_like(q)
    return _Reference(q, zeros, zeros, chunk_id)


class _Playback:
    """Evaluates one submitted chunk (position, velocity or torque space)."""

    def __init__(self, chunk: AuthoredChunk, anchor_q: FloatArray) -> None:
        self.chunk = chunk
        self.at_s: FloatArray = chunk.start_sim_time_s + chunk.times_s
        values = chunk.values
        spans = np.diff(chunk.times_s)
        self.slopes: FloatArray = np.diff(values, axis=0) / spans[:, None]
        linear = chunk.interpolation is Interpolation.LINEAR
        self.accels: FloatArray = np.zeros_like(self.slopes)
        if chunk.command_space is CommandSpace.JOINT_POSITION and linear:
            self.accels = _knot_accelerations(chunk.times_s, values, self.slopes)
        elif linear:
            self.accels = self.slopes
        # Velocity chunks: the position reference at each point (exact integral).
        pieces = 0.5 * (values[1:] + values[:-1]) if linear else values[:-1]
        self.integral: FloatArray = np.empty_like(values)
        self.integral[0] = anchor_q
        self.integral[1:] = anchor_q + np.cumsum(pieces * spans[:, None], axis=0)

    @property
    def end_s(self) -> float:
        return float(self.at_s[-1])

    def _segment(self, t_s: float) -> int | None:
        """Index of the segment ``t_s`` lies in, None at or after the last point."""
        index = int(np.searchsorted(self.at_s, t_s, side="right")) - 1
        return index if index + 1 < len(self.at_s) else None

    def reference(self, t_s: float) -> _Reference | None:
        """Return the reference at ``t_s``; None when the default applies."""
        chunk = self.chunk
        when = max(t_s, chunk.start_sim_time_s)
        if chunk.command_space is CommandSpace.JOINT_VELOCITY:
            return self._velocity_reference(when)
        value = chunk.value_at(when)
        if value is None:
            return None
        k = self._segment(when)
        if k is None or chunk.interpolation is Interpolation.ZERO_ORDER_HOLD:
            return _rest(value, chunk.chunk_id)
        return _Reference(
            value, self.slopes[k].copy(), self.accels[k].copy(), chunk.chunk_id
        )

    def final_posture(self) -> FloatArray:
        """Return the reference posture at the last point (the default)."""
        source = self.chunk.values
        if self.chunk.command_space is CommandSpace.JOINT_VELOCITY:
            source = self.integral
        posture: FloatArray = np.array(source[-1], dtype=np.float64)
        return posture

    def _velocity_reference(self, when: float) -> _Reference | None:
        chunk = self.chunk
        velocity = chunk.value_at(when)  # terminal policy included
        if velocity is None:
            return None
        k = self._segment(when)
        if k is None:  # at or after the last point
            q = self.integral[-1] + velocity * (when - self.end_s)
            return _Reference(q, velocity, np.zeros_like(q), chunk.chunk_id)
        tau = when - float(self.at_s[k])
        start_v = chunk.values[k]
        if chunk.interpolation is Interpolation.ZERO_ORDER_HOLD:
            q = self.integral[k] + start_v * tau
            return _Reference(q, velocity, np.zeros_like(q), chunk.chunk_id)
        slope = self.slopes[k]
        q = self.integral[k] + start_v * tau + 0.5 * slope * tau * tau
        return _Reference(q, velocity, slope.copy(), chunk.chunk_id)


def _knot_accelerations(
    times: FloatArray, values: FloatArray, slopes: FloatArray
) -> FloatArray:
    """Per segment: slope of the knot velocities (central differences)."""
    count = len(times)
    if count < 3:
        return np.zeros_like(slopes)
    knots = np.empty_like(values)
    knots[0], knots[-1] = slopes[0], slopes[-1]
    knots[1:-1] = (values[2:] - values[:-2]) / (times[2:] - times[:-2])[:, None]
    result: FloatArray = np.diff(knots, axis=0) / np.diff(times)[:, None]
    return result


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def _chunk_error(pointer: str, message: str) -> SchemaError:
    return SchemaError(f"{pointer}: {message}", section=_SECTION)


def check_chunk_fits(
    chunk: AuthoredChunk, model: ArmModel, spaces: Sequence[CommandSpace]
) -> None:
    """Check that a chunk can drive ``model`` through a controller.

    Parameters
    ----------
    chunk
        The chunk.
    model
        The arm.
    spaces
        Command spaces the controller accepts.

    Raises
    ------
    SchemaError
        The command space is not accepted, the axes are not the arm's joint
        names in order, or a unit is not the space's revolute unit.
    """
    if chunk.command_space not in spaces:
        options = ", ".join(repr(space.value) for space in spaces)
        raise _chunk_error(
            "/command_space",
            f"this controller takes {options}, found {chunk.command_space.value!r}",
        )
    if chunk.axes != model.joint_names:
        raise _chunk_error(
            "/axes",
            f"expected the arm's joints {list(model.joint_names)}, "
            f"found {list(chunk.axes)}",
        )
    unit = REVOLUTE_UNITS[chunk.command_space]
    for index, found in enumerate(chunk.units):
        if found != unit:
            raise _chunk_error(
                f"/units/{index}",
                f"{chunk.command_space.value} of a revolute joint is in {unit!r}, "
                f"found {found!r}",
            )


def _gain(value: object, name: str) -> Gain:
    """Check a gain: a number >= 0, or a list of them (one per joint)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    items = value if isinstance(value, list | tuple) else None
    for item in [value] if items is None else items:
        if isinstance(item, bool) or not isinstance(item, int | float):
            raise SchemaError(f"{name} must be a number or a list of numbers")
        if not (math.isfinite(item) and item >= 0):
            raise SchemaError(f"{name} must be finite and >= 0, found {item!r}")
    if items is None:
        return float(value)  # type: ignore[arg-type]
    if not items:
        raise SchemaError(f"{name} must not be an empty list")
    return tuple(float(item) for item in items)


def _scalar_gain(value: object, name: str) -> float:
    gain = _gain(value, name)
    if isinstance(gain, tuple):
        raise SchemaError(f"{name} must be a single number")
    return gain


def _per_joint(gain: Gain, dof: int, name: str) -> FloatArray:
    if isinstance(gain, tuple):
        if len(gain) != dof:
            raise SchemaError(f"{name} has {len(gain)} values for {dof} joints")
        return np.array(gain)
    return np.full(dof, gain)


def _gain_json(gain: Gain) -> float | list[float]:
    return list(gain) if isinstance(gain, tuple) else gain


def _hold_torque(model: ArmModel, q: FloatArray) -> FloatArray:
    """Torque that cancels gravity at ``q`` (``-gravity_torques``)."""
    result: FloatArray = -gravity_torques(model, q) + 0.0
    return result


# ---------------------------------------------------------------------------
# Chunk bookkeeping shared by every controller
# ---------------------------------------------------------------------------


class _ChunkDriven:
    """Submission, selection and results; subclasses add the control law."""

    name: ClassVar[str]
    spaces: ClassVar[tuple[CommandSpace, ...]]

    def __init__(self) -> None:
        self._model: ArmModel | None = None
        self._initial_q = np.zeros(0)
        self._playbacks: list[_Playback] = []
        self._results: list[ChunkResult] = []
        self._ended = 0  # chunks before this index all have a result

    def reset(self, model: ArmModel, state: ArmState) -> None:
        """Start a run: forget chunks and results, hold ``state.q`` until a chunk.

        Parameters
        ----------
        model
            The arm.
        state
            The initial state; its posture is held before any chunk starts.

        Raises
        ------
        SchemaError
            A per-joint gain has the wrong length, or the state does not fit.
        """
        self._initial_q = as_joint_vector(state.q, model.dof, "state.q").copy()
        self._check_gains(model)
        self._model = model
        self._playbacks = []
        self._results = []
        self._ended = 0

    def _check_gains(self, model: ArmModel) -> None:
        """Check per-joint gains against the arm (nothing by default)."""

    def _require_model(self) -> ArmModel:
        if self._model is None:
            raise RuntimeError(f"{type(self).__name__}: call reset() first")
        return self._model

    def submit(self, chunk: AuthoredChunk) -> None:
        """Accept a chunk for this run.

        Parameters
        ----------
        chunk
            The chunk; it must start no earlier than the chunks submitted
            before it and have a new ID and the same generation.

        Raises
        ------
        SchemaError
            The chunk does not fit the arm or this controller (see
            :func:`check_chunk_fits`), or breaks the sequence rules of
            :func:`~fsr_core.control.validate_authored_chunks`.
        RuntimeError
            :meth:`reset` was not called.
        """
        model = self._require_model()
        check_chunk_fits(chunk, model, self.spaces)
        validate_authored_chunks([*(p.chunk for p in self._playbacks), chunk])
        anchor = self._initial_q
        if self._playbacks:
            anchor = self._posture_of(len(self._playbacks) - 1, chunk.start_sim_time_s)
        self._playbacks.append(_Playback(chunk, anchor))

    def _posture_of(self, index: int, t_s: float) -> FloatArray:
        """Return chunk ``index``'s reference posture at ``t_s``, default included."""
        playback = self._playbacks[index]
        if playback.chunk.command_space is CommandSpace.JOINT_TORQUE:
            return self._initial_q
        reference = playback.reference(t_s)
        return playback.final_posture() if reference is None else reference.q

    def chunk_results(self) -> list[ChunkResult]:
        """Return the results of the chunks that ended so far, in ending order.

        The list only grows during a run (new results are appended).
        """
        return list(self._results)

    def _active(self, t_s: float) -> int | None:
        """Index of the latest-submitted chunk that has started at ``t_s``."""
        for index in range(len(self._playbacks) - 1, -1, -1):
            if self._playbacks[index].chunk.start_sim_time_s <= t_s + _TIME_EPS_S:
                return index
        return None

    def _update_results(self, t_s: float) -> None:
        """Record every chunk that has completed or been preempted by ``t_s``."""
        events: list[tuple[float, int, ChunkResult]] = []
        playbacks = self._playbacks
        index = self._ended
        while index < len(playbacks):
            end_s = playbacks[index].end_s
            following = index + 1 < len(playbacks)
            next_s = playbacks[index + 1].chunk.start_sim_time_s if following else None
            chunk_id = playbacks[index].chunk.chunk_id
            if next_s is not None and next_s < end_s - _TIME_EPS_S:
                if next_s > t_s + _TIME_EPS_S:
                    break
                result = ChunkResult(chunk_id, ChunkStatus.CANCELLED, PREEMPTED_REASON)
                events.append((next_s, index, result))
            elif end_s <= t_s + _TIME_EPS_S:
                result = ChunkResult(chunk_id, ChunkStatus.SUCCEEDED, COMPLETED_REASON)
                events.append((end_s, index, result))
            else:
                break
            index += 1
        self._ended = index
        events.sort(key=lambda event: (event[0], event[1]))
        self._results.extend(result for _, _, result in events)

    def _reference(self, t_s: float) -> _Reference:
        """Return the joint reference at ``t_s`` (initial posture before chunks)."""
        index = self._active(t_s)
        if index is None:
            return _rest(self._initial_q.copy(), None)
        playback = self._playbacks[index]
        reference = playback.reference(t_s)
        return _rest(playback.final_posture(), None) if reference is None else reference


def _time(t_s: float) -> float:
    if not math.isfinite(t_s):
        raise ValueError(f"t_s must be finite, got {t_s}")
    return float(t_s)


class _JointTracking(_ChunkDriven):
    """A controller that tracks a joint reference with gains ``kp``, ``kd``."""

    spaces: ClassVar[tuple[CommandSpace, ...]] = (
        CommandSpace.JOINT_POSITION,
        CommandSpace.JOINT_VELOCITY,
    )

    def __init__(self, kp: Gain, kd: Gain) -> None:
        super().__init__()
        self.kp = _gain(kp, "kp")
        self.kd = _gain(kd, "kd")

    def _check_gains(self, model: ArmModel) -> None:
        _per_joint(self.kp, model.dof, "kp")
        _per_joint(self.kd, model.dof, "kd")

    def torque(self, t_s: float, state: ArmState) -> ControlOutput:
        """Return the command at simulation time ``t_s`` for ``state``.

        Parameters
        ----------
        t_s
            Simulation time, seconds.
        state
            The arm's current state.

        Returns
        -------
        ControlOutput
            Torques, the joint reference and its error.

        Raises
        ------
        RuntimeError
            :meth:`reset` was not called.
        """
        model = self._require_model()
        when = _time(t_s)
        self._update_results(when)
        reference = self._reference(when)
        q = as_joint_vector(state.q, model.dof, "state.q")
        dq = as_joint_vector(state.dq, model.dof, "state.dq")
        error = reference.q - q
        feedback = _per_joint(self.kp, model.dof, "kp") * error + _per_joint(
            self.kd, model.dof, "kd"
        ) * (reference.dq - dq)
        tau = self._law(model, reference, q, dq, feedback)
        return ControlOutput(
            tau=tau + 0.0,
            q_ref=reference.q,
            dq_ref=reference.dq,
            error=error,
            chunk_id=reference.chunk_id,
        )

    def _law(
        self,
        model: ArmModel,
        reference: _Reference,
        q: FloatArray,
        dq: FloatArray,
        feedback: FloatArray,
    ) -> FloatArray:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """Return ``kind`` and gains (per-joint gains as lists)."""
        return {"kind": self.name, "kp": _gain_json(self.kp), "kd": _gain_json(self.kd)}


# ---------------------------------------------------------------------------
# Controllers
# ---------------------------------------------------------------------------


class PDController(_JointTracking):
    """Joint-space PD control, optionally with gravity compensation.

    ``tau = kp (q_ref - q) + kd (dq_ref - dq) [- gravity_torques(q)]``.
    Takes joint-position and joint-velocity chunks.

    The integrator's explicit velocity update limits the damping: roughly
    ``kd * dt_s * max eig(M(q)^-1) < 2``. Light distal links make
    ``M^-1`` large, so keep ``kd`` modest (the defaults suit arms of
    about 1 kg and 0.5 m links at ``dt_s <= 0.005``).

    Parameters
    ----------
    kp
        Stiffness, N m/rad: one value for every joint or one per joint.
    kd
        Damping, N m s/rad: one value or one per joint.
    gravity_compensation
        Whether to cancel gravity at the measured posture.

    Raises
    ------
    SchemaError
        A gain is negative, not finite or an empty list.
    """

    name: ClassVar[str] = "pd"

    def __init__(
        self, kp: Gain = 40.0, kd: Gain = 4.0, gravity_compensation: bool = True
    ) -> None:
        super().__init__(kp, kd)
        self.gravity_compensation = bool(gravity_compensation)

    def _law(
        self,
        model: ArmModel,
        reference: _Reference,
        q: FloatArray,
        dq: FloatArray,
        feedback: FloatArray,
    ) -> FloatArray:
        if not self.gravity_compensation:
            return feedback
        result: FloatArray = feedback + _hold_torque(model, q)
        return result

    def to_json(self) -> dict[str, Any]:
        """Return ``kind``, gains and ``gravity_compensation``."""
        return {**super().to_json(), "gravity_compensation": self.gravity_compensation}


class ComputedTorqueController(_JointTracking):
    """Computed-torque (feedback-linearising) control.

    ``tau = M(q) (qdd_ref + kp e + kd de) + bias(q, dq) + beta dq`` with
    ``e = q_ref - q``: it cancels the arm's known dynamics, viscous friction
    ``beta`` included, so the error obeys ``e'' + kd e' + kp e = 0``.
    Takes joint-position and joint-velocity chunks.

    Parameters
    ----------
    kp
        Stiffness, 1/s^2 (scaled by the mass matrix); one value or per joint.
    kd
        Damping, 1/s; one value or per joint.

    Raises
    ------
    SchemaError
        A gain is negative, not finite or an empty list.
    """

    name: ClassVar[str] = "computed_torque"

    def __init__(self, kp: Gain = 100.0, kd: Gain = 20.0) -> None:
        super().__init__(kp, kd)

    def _law(
        self,
        model: ArmModel,
        reference: _Reference,
        q: FloatArray,
        dq: FloatArray,
        feedback: FloatArray,
    ) -> FloatArray:
        acceleration = reference.qdd + feedback
        friction = model.friction_nms_per_rad * dq
        result: FloatArray = (
            mass_matrix(model, q) @ acceleration + bias_forces(model, q, dq) + friction
        )
        return result


class InverseDynamicsFeedforward(_JointTracking):
    """Inverse-dynamics feedforward of the reference plus PD feedback.

    ``tau = inverse_dynamics(q_ref, dq_ref, qdd_ref) + kp e + kd de``
    (the feedforward includes viscous friction). Takes joint-position and
    joint-velocity chunks.

    Parameters
    ----------
    kp
        Stiffness, N m/rad; one value or per joint.
    kd
        Damping, N m s/rad; one value or per joint.

    Raises
    ------
    SchemaError
        A gain is negative, not finite or an empty list.
    """

    name: ClassVar[str] = "inverse_dynamics_feedforward"

    def __init__(self, kp: Gain = 40.0, kd: Gain = 4.0) -> None:
        super().__init__(kp, kd)

    def _law(
        self,
        model: ArmModel,
        reference: _Reference,
        q: FloatArray,
        dq: FloatArray,
        feedback: FloatArray,
    ) -> FloatArray:
        feedforward = inverse_dynamics(model, reference.q, reference.dq, reference.qdd)
        result: FloatArray = feedforward + feedback
        return result


class ReachingController(_ChunkDriven):
    """Task-space virtual spring-damper pulling the tip to a moving equilibrium.

    Joint-position chunks give an equilibrium posture trajectory ``q_eq(t)``;
    the tip's equilibrium is ``x_ref = FK(q_eq)`` and

    ``tau = J^T (K (x_ref - x) - D xdot) - joint_damping dq - gravity_torques(q)``

    with ``x``, ``xdot = J dq`` the tip's position and velocity. At rest the
    tip settles on ``x_ref`` exactly (gravity is cancelled), though the
    posture may differ from ``q_eq`` for a redundant arm.

    Parameters
    ----------
    stiffness_npm
        Spring constant ``K``, N/m, isotropic.
    damping_nspm
        Tip damping ``D``, N s/m.
    joint_damping_nms_per_rad
        Extra joint damping, N m s/rad (null-space damping of redundant arms).

    Raises
    ------
    SchemaError
        A gain is negative or not finite.
    """

    name: ClassVar[str] = "reaching"
    spaces: ClassVar[tuple[CommandSpace, ...]] = (CommandSpace.JOINT_POSITION,)

    def __init__(
        self,
        stiffness_npm: float = 200.0,
        damping_nspm: float = 20.0,
        joint_damping_nms_per_rad: float = 0.2,
    ) -> None:
        super().__init__()
        self.stiffness_npm = _scalar_gain(stiffness_npm, "stiffness_npm")
        self.damping_nspm = _scalar_gain(damping_nspm, "damping_nspm")
        self.joint_damping_nms_per_rad = _scalar_gain(
            joint_damping_nms_per_rad, "joint_damping_nms_per_rad"
        )

    def torque(self, t_s: float, state: ArmState) -> ControlOutput:
        """Return the command at simulation time ``t_s`` for ``state``.

        Parameters
        ----------
        t_s
            Simulation time, seconds.
        state
            The arm's current state.

        Returns
        -------
        ControlOutput
            Torques, the equilibrium posture (as ``q_ref``) and its tip
            position (``endpoint_ref``).

        Raises
        ------
        RuntimeError
            :meth:`reset` was not called.
        """
        model = self._require_model()
        when = _time(t_s)
        self._update_results(when)
        reference = self._reference(when)
        q = as_joint_vector(state.q, model.dof, "state.q")
        dq = as_joint_vector(state.dq, model.dof, "state.dq")
        endpoint_ref = tip_position(model, reference.q)
        jacobian = tip_jacobian(model, q)
        force = self.stiffness_npm * (
            endpoint_ref - tip_position(model, q)
        ) - self.damping_nspm * (jacobian @ dq)
        tau = (
            jacobian.T @ force
            - self.joint_damping_nms_per_rad * dq
            + _hold_torque(model, q)
        )
        return ControlOutput(
            tau=tau + 0.0,
            q_ref=reference.q,
            dq_ref=reference.dq,
            error=reference.q - q,
            endpoint_ref=endpoint_ref,
            chunk_id=reference.chunk_id,
        )

    def to_json(self) -> dict[str, Any]:
        """Return ``kind`` and gains."""
        return {
            "kind": self.name,
            "stiffness_npm": self.stiffness_npm,
            "damping_nspm": self.damping_nspm,
            "joint_damping_nms_per_rad": self.joint_damping_nms_per_rad,
        }


class TorqueController(_ChunkDriven):
    """Applies joint-torque chunks as they are.

    Zero torque before any chunk starts; gravity compensation under a
    ``controller_default`` terminal policy.
    """

    name: ClassVar[str] = "torque"
    spaces: ClassVar[tuple[CommandSpace, ...]] = (CommandSpace.JOINT_TORQUE,)

    def torque(self, t_s: float, state: ArmState) -> ControlOutput:
        """Return the command at simulation time ``t_s`` for ``state``.

        Parameters
        ----------
        t_s
            Simulation time, seconds.
        state
            The arm's current state (used by gravity compensation only).

        Returns
        -------
        ControlOutput
            Torques; no reference.

        Raises
        ------
        RuntimeError
            :meth:`reset` was not called.
        """
        model = self._require_model()
        when = _time(t_s)
        self._update_results(when)
        index = self._active(when)
        if index is None:
            return ControlOutput(tau=np.zeros(model.dof))
        chunk = self._playbacks[index].chunk
        value = chunk.value_at(max(when, chunk.start_sim_time_s))
        if value is None:
            q = as_joint_vector(state.q, model.dof, "state.q")
            return ControlOutput(tau=_hold_torque(model, q))
        return ControlOutput(tau=value + 0.0, chunk_id=chunk.chunk_id)

    def to_json(self) -> dict[str, Any]:
        """Return ``kind`` (a torque controller has no gains)."""
        return {"kind": self.name}


_CONTROLLERS: Final[Mapping[str, tuple[Callable[..., Controller], tuple[str, ...]]]] = {
    PDController.name: (PDController, ("kp", "kd", "gravity_compensation")),
    ComputedTorqueController.name: (ComputedTorqueController, ("kp", "kd")),
    InverseDynamicsFeedforward.name: (InverseDynamicsFeedforward, ("kp", "kd")),
    ReachingController.name: (
        ReachingController,
        ("stiffness_npm", "damping_nspm", "joint_damping_nms_per_rad"),
    ),
    TorqueController.name: (TorqueController, ()),
}
#: Controller kinds, as in ``to_json()["kind"]`` and ``AuthoredChunk.controller``.
CONTROLLER_KINDS: Final = tuple(_CONTROLLERS)


def controller_from_json(obj: object) -> Controller:
    """Build a controller from its :meth:`to_json` form (or a TOML table).

    Parameters
    ----------
    obj
        An object with ``kind`` (one of :data:`CONTROLLER_KINDS`) and the
        kind's gains; missing gains take the constructor's defaults.

    Returns
    -------
    Controller
        A new controller (call ``reset`` before use).

    Raises
    ------
    SchemaError
        Not an object, an unknown kind or key, or an invalid gain.
    """
    if not isinstance(obj, Mapping):
        raise SchemaError(f"a controller must be an object, found {obj!r}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _CONTROLLERS:
        options = ", ".join(CONTROLLER_KINDS)
        raise SchemaError(f"controller kind must be one of {options}, found {kind!r}")
    factory, keys = _CONTROLLERS[kind]
    for key in sorted(str(key) for key in obj):
        if key != "kind" and key not in keys:
            raise SchemaError(f"{kind} controller: unknown key {key!r}")
    arguments = {key: obj[key] for key in keys if key in obj}
    if not isinstance(arguments.get("gravity_compensation", True), bool):
        raise SchemaError("pd controller: gravity_compensation must be true or false")
    return factory(**arguments)


# ---------------------------------------------------------------------------
# Planning: authored chunks for a task
# ---------------------------------------------------------------------------

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
            return np.array([_hold_torque(self.model, q_path[0])])
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
        One of :data:`CONTROLLER_KINDS`; stored as each chunk's ``controller``.
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
    if controller_kind not in _CONTROLLERS:
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
