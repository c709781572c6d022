r"""Time stepping of the planar arm.

Each step holds the joint torques ``tau`` and the tip force constant over the
step (zero-order hold) and integrates

.. math::

    \dot q = v, \qquad
    M(q)\,\dot v = \tau - b(q, v) - \beta v + J_{tip}(q)^T f_{tip}

(see :mod:`fsr_core.simulators.planar_arm.dynamics`).

:func:`step` is semi-implicit (symplectic) Euler, the simulator's default
method::

    qdd = forward_dynamics(q, dq, tau, f_tip)
    dq <- dq + qdd dt
    q  <- q + dq dt          # uses the updated velocity

It is first order in ``dt`` and costs one dynamics evaluation per step (RK4
costs four). Its energy behaviour is far better than explicit Euler's: with a
constant mass matrix (one link, or small oscillations about an equilibrium)
the update is exactly symplectic, so without friction or torques the energy
error oscillates at ``O(dt)`` instead of drifting, and oscillations stay
stable for ``omega dt < 2`` (explicit Euler gains energy every step and
eventually blows up). For several links ``M`` depends on ``q`` and the
velocity form is no longer exactly symplectic; the energy error stays
``O(dt)`` but may wander, so fast, whipping motions need a smaller ``dt``.
It has no adaptive logic, so a run is a fixed sequence of floating-point
operations: the same inputs give bit-identical states on every run (on one
platform and numpy build), which replays and recordings rely on. Updating the
velocity first also makes the joint stops simple: the velocity that is zeroed
is the one the next step starts from.

Joint limits: after the update, when ``model.enforce_limits`` is set, each
joint outside ``[q_min, q_max]`` is clamped to the limit it crossed and its
velocity is set to zero if it points outward (an inelastic stop); the step
reports those joints in :attr:`StepResult.limited`.

:func:`rk4_step` is the classic fourth-order Runge-Kutta method on the state
``(q, dq)``, without joint limits. It is there for accuracy comparisons
(tests, diagnostics): its error is fourth order in ``dt`` and its energy drift
is tiny at small ``dt``, but it is not symplectic and costs four evaluations.

Both steppers take the same parameters: ``model`` (the arm), ``state`` (joint
positions and velocities; ``q`` and ``dq`` are replaced by new arrays, so
arrays read from the state before the call keep their values), ``tau`` (joint
torques held over the step, N m, shape ``(n,)``), ``dt_s`` (the step length in
seconds) and ``tip_force`` (an external force on the tip held over the step,
plane coordinates, newtons, shape ``(2,)``; None for none). Both raise
:class:`~fsr_core.errors.SchemaError` when ``dt_s`` is not positive or a shape
does not match the arm.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.dynamics import forward_dynamics
from fsr_core.simulators.planar_arm.kinematics import as_joint_vector
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState

__all__ = ["StepResult", "Stepper", "rk4_step", "step"]


@dataclass(frozen=True, eq=False)
class StepResult:
    """What one step used and what happened at the joint limits.

    Parameters
    ----------
    qdd
        The joint accelerations used for the step, rad/s^2, shape ``(n,)``
        (for :func:`rk4_step`, those at the start of the step).
    friction_torque
        The friction torque ``-beta dq`` at the start of the step, N m,
        shape ``(n,)``.
    limited
        Indices of the joints clamped at a limit during the step.

    The arrays are read-only. Instances compare by identity (``eq=False``:
    arrays have no single truth value).
    """

    qdd: FloatArray
    friction_torque: FloatArray
    limited: tuple[int, ...] = ()


def _check_inputs(
    model: ArmModel, state: ArmState, tau: npt.ArrayLike, dt_s: float
) -> FloatArray:
    """Validate the step arguments and return ``tau`` as a float64 vector."""
    if not math.isfinite(dt_s) or dt_s <= 0:
        raise SchemaError(f"dt_s must be a positive number, got {dt_s!r}")
    if state.q.shape != (model.dof,):
        raise SchemaError(
            f"state has {state.q.shape[0]} joints, the arm has {model.dof}"
        )
    return as_joint_vector(tau, model.dof, "tau")


def _frozen(array: FloatArray) -> FloatArray:
    """Mark ``array`` read-only (results are shared values) and return it."""
    array.flags.writeable = False
    return array


def _apply_limits(model: ArmModel, q: FloatArray, dq: FloatArray) -> tuple[int, ...]:
    """Clamp ``q`` to the joint limits in place; stop outward motion; report joints."""
    limited: list[int] = []
    for i, link in enumerate(model.links):
        if q[i] < link.q_min_rad:
            q[i] = link.q_min_rad
            if dq[i] < 0.0:
                dq[i] = 0.0
            limited.append(i)
        elif q[i] > link.q_max_rad:
            q[i] = link.q_max_rad
            if dq[i] > 0.0:
                dq[i] = 0.0
            limited.append(i)
    return tuple(limited)


@dataclass(frozen=True)
class _StepInputs:
    """The checked arguments of one step (see the module docstring)."""

    model: ArmModel
    state: ArmState
    torques: FloatArray
    dt_s: float
    tip_force: npt.ArrayLike | None


def _semi_implicit_euler(step: _StepInputs) -> StepResult:
    """Advance the state by one semi-implicit Euler step.

    Returns
    -------
    StepResult
        The acceleration and friction torque used, and the joints clamped.
    """
    model, state, dt_s = step.model, step.state, step.dt_s
    qdd = forward_dynamics(model, state.q, state.dq, step.torques, step.tip_force)
    friction = -model.friction_nms_per_rad * state.dq
    dq = state.dq + qdd * dt_s
    q = state.q + dq * dt_s
    limited = _apply_limits(model, q, dq) if model.enforce_limits else ()
    state.q, state.dq = q, dq
    return StepResult(_frozen(qdd), _frozen(friction), limited)


def _runge_kutta_4(step: _StepInputs) -> StepResult:
    """Advance the state by one classic fourth-order Runge-Kutta step (no limits).

    Returns
    -------
    StepResult
        The acceleration and friction torque at the start of the step;
        ``limited`` is always empty.
    """
    model, state, dt_s = step.model, step.state, step.dt_s

    def accel(q: FloatArray, v: FloatArray) -> FloatArray:
        return forward_dynamics(model, q, v, step.torques, step.tip_force)

    q0, v0 = state.q, state.dq
    half = 0.5 * dt_s
    a1 = accel(q0, v0)
    v2 = v0 + half * a1
    a2 = accel(q0 + half * v0, v2)
    v3 = v0 + half * a2
    a3 = accel(q0 + half * v2, v3)
    v4 = v0 + dt_s * a3
    a4 = accel(q0 + dt_s * v3, v4)
    sixth = dt_s / 6.0
    state.q = q0 + sixth * (v0 + 2.0 * v2 + 2.0 * v3 + v4)
    state.dq = v0 + sixth * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
    friction = -model.friction_nms_per_rad * v0
    return StepResult(_frozen(a1), _frozen(friction), ())


@dataclass(frozen=True)
class Stepper:
    """One integration method behind the stepper signature of the module docstring.

    Parameters
    ----------
    method
        Advances the state for checked inputs and says what the step used.
    """

    method: Callable[[_StepInputs], StepResult]

    def __call__(
        self,
        model: ArmModel,
        state: ArmState,
        tau: npt.ArrayLike,
        dt_s: float,
        tip_force: npt.ArrayLike | None = None,
    ) -> StepResult:
        """Check the arguments and advance ``state`` by one step of the method.

        Raises
        ------
        SchemaError
            ``dt_s`` is not positive, or a shape does not match the arm.
        """
        torques = _check_inputs(model, state, tau, dt_s)
        return self.method(_StepInputs(model, state, torques, dt_s, tip_force))


step: Final = Stepper(_semi_implicit_euler)
"""Semi-implicit Euler, the simulator's default method (module docstring)."""

rk4_step: Final = Stepper(_runge_kutta_4)
"""Classic fourth-order Runge-Kutta, without joint limits (module docstring)."""
