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

The bookkeeping (submission, selection, results, reference derivatives) is
:class:`~fsr_core.simulators.planar_arm.chunk_playback.ChunkDriven`, the base of
every controller here; :mod:`~fsr_core.simulators.planar_arm.planning` authors
the chunks for a task.

Gravity sign: :func:`~fsr_core.simulators.planar_arm.dynamics.gravity_torques`
returns the torque gravity applies, so compensating it adds its negative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol, TypeAlias

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.control import AuthoredChunk, ChunkResult, CommandSpace
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.chunk_playback import ChunkDriven, Reference
from fsr_core.simulators.planar_arm.dynamics import (
    bias_forces,
    gravity_torques,
    inverse_dynamics,
    mass_matrix,
)
from fsr_core.simulators.planar_arm.kinematics import (
    as_joint_vector,
    tip_jacobian,
    tip_position,
)
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState

__all__ = [
    "CONTROLLER_KINDS",
    "ComputedTorqueController",
    "ControlOutput",
    "Controller",
    "InverseDynamicsFeedforward",
    "PDController",
    "ReachingController",
    "TorqueController",
    "controller_from_json",
    "hold_torque",
]

Gain: TypeAlias = float | tuple[float, ...]


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
# Gains and gravity compensation
# ---------------------------------------------------------------------------


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


def hold_torque(model: ArmModel, q: FloatArray) -> FloatArray:
    """Torque that cancels gravity at ``q`` (``-gravity_torques``)."""
    result: FloatArray = -gravity_torques(model, q) + 0.0
    return result


@dataclass(frozen=True)
class _Step:
    """What a reference-following law sees at one time.

    Parameters
    ----------
    model
        The arm.
    reference
        The joint reference in effect.
    q, dq
        The measured posture and joint velocities, ``(n,)``.
    """

    model: ArmModel
    reference: Reference
    q: FloatArray
    dq: FloatArray


class _ChunkController(ChunkDriven):
    """A controller: the chunk bookkeeping of each command, then its own law."""

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
            Torques; a tracking controller adds the joint reference and its
            error, a task-space one its tip reference (``endpoint_ref``).

        Raises
        ------
        RuntimeError
            :meth:`reset` was not called.
        """
        model, when = self._advance(t_s)
        return self._command(model, when, state)

    def _command(self, model: ArmModel, when: float, state: ArmState) -> ControlOutput:
        raise NotImplementedError


class _ReferenceFollowing(_ChunkController):
    """A controller that follows the joint reference of its chunks."""

    def _command(self, model: ArmModel, when: float, state: ArmState) -> ControlOutput:
        step = _Step(
            model,
            self._reference(when),
            as_joint_vector(state.q, model.dof, "state.q"),
            as_joint_vector(state.dq, model.dof, "state.dq"),
        )
        return self._follow(step)

    def _follow(self, step: _Step) -> ControlOutput:
        raise NotImplementedError


class _JointTracking(_ReferenceFollowing):
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

    def _follow(self, step: _Step) -> ControlOutput:
        reference, dof = step.reference, step.model.dof
        error = reference.q - step.q
        feedback = _per_joint(self.kp, dof, "kp") * error + _per_joint(
            self.kd, dof, "kd"
        ) * (reference.dq - step.dq)
        tau = self._law(step, feedback)
        return ControlOutput(
            tau=tau + 0.0,
            q_ref=reference.q,
            dq_ref=reference.dq,
            error=error,
            chunk_id=reference.chunk_id,
        )

    def _law(self, step: _Step, feedback: FloatArray) -> FloatArray:
        """Return the torques of the law, given the PD feedback term."""
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

    def _law(self, step: _Step, feedback: FloatArray) -> FloatArray:
        if not self.gravity_compensation:
            return feedback
        result: FloatArray = feedback + hold_torque(step.model, step.q)
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

    The gains are checked as :class:`PDController`'s are.
    """

    name: ClassVar[str] = "computed_torque"

    def __init__(self, kp: Gain = 100.0, kd: Gain = 20.0) -> None:
        super().__init__(kp, kd)

    def _law(self, step: _Step, feedback: FloatArray) -> FloatArray:
        model, q, dq = step.model, step.q, step.dq
        acceleration = step.reference.qdd + feedback
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

    The gains are checked as :class:`PDController`'s are.
    """

    name: ClassVar[str] = "inverse_dynamics_feedforward"

    def __init__(self, kp: Gain = 40.0, kd: Gain = 4.0) -> None:
        super().__init__(kp, kd)

    def _law(self, step: _Step, feedback: FloatArray) -> FloatArray:
        reference = step.reference
        feedforward = inverse_dynamics(
            step.model, reference.q, reference.dq, reference.qdd
        )
        result: FloatArray = feedforward + feedback
        return result


class ReachingController(_ReferenceFollowing):
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

    def _follow(self, step: _Step) -> ControlOutput:
        """Pull the tip to the equilibrium posture's tip (``q_ref`` is ``q_eq``)."""
        model, reference, q, dq = step.model, step.reference, step.q, step.dq
        endpoint_ref = tip_position(model, reference.q)
        jacobian = tip_jacobian(model, q)
        force = self.stiffness_npm * (
            endpoint_ref - tip_position(model, q)
        ) - self.damping_nspm * (jacobian @ dq)
        tau = (
            jacobian.T @ force
            - self.joint_damping_nms_per_rad * dq
            + hold_torque(model, q)
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


class TorqueController(_ChunkController):
    """Applies joint-torque chunks as they are.

    Zero torque before any chunk starts; gravity compensation under a
    ``controller_default`` terminal policy.
    """

    name: ClassVar[str] = "torque"
    spaces: ClassVar[tuple[CommandSpace, ...]] = (CommandSpace.JOINT_TORQUE,)

    def _command(self, model: ArmModel, when: float, state: ArmState) -> ControlOutput:
        """Apply the active chunk; the state is used by gravity compensation only."""
        index = self._active(when)
        if index is None:
            return ControlOutput(tau=np.zeros(model.dof))
        chunk = self._playbacks[index].chunk
        value = chunk.value_at(max(when, chunk.start_sim_time_s))
        if value is None:
            q = as_joint_vector(state.q, model.dof, "state.q")
            return ControlOutput(tau=hold_torque(model, q))
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
