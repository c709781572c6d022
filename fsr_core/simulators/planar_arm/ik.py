"""Inverse kinematics of the planar arm's tip: damped least squares.

:func:`solve_ik` is deterministic: a fixed sequence of numpy operations on the
inputs, no random restarts. It respects the joint limits by clamping every
iterate into them, and adapts its damping (Levenberg-Marquardt style) so it
converges fast near a solution yet stays stable near singular postures.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.kinematics import (
    as_joint_vector,
    tip_jacobian,
    tip_position,
)
from fsr_core.simulators.planar_arm.model import ArmModel

__all__ = ["solve_ik"]


_INITIAL_DAMPING_M = 1e-2  # lambda of the first step, metres
_MIN_DAMPING_M = 1e-6
_MAX_DAMPING_M = 1e3
_MAX_STEP_RAD = 0.5  # largest joint change of one iteration
_UNBEND_RAD = 0.2  # elbow bend that leaves a stretched-out, stalled posture


def _target(target_xy: npt.ArrayLike) -> FloatArray:
    target = np.asarray(target_xy, dtype=np.float64)
    if target.shape != (2,) or not np.isfinite(target).all():
        raise SchemaError(f"target_xy must be 2 finite numbers, got {target_xy!r}")
    return target


def _clamp(model: ArmModel, q: FloatArray) -> FloatArray:
    low, high = model.limits()
    return np.clip(q, low, high)


def _dls_step(jacobian: FloatArray, error: FloatArray, damping_m: float) -> FloatArray:
    """``J^T (J J^T + lambda^2 I)^-1 e``, its norm capped at ``_MAX_STEP_RAD``."""
    gram = jacobian @ jacobian.T + (damping_m**2) * np.eye(2)
    try:
        step: FloatArray = jacobian.T @ np.linalg.solve(gram, error)
    except np.linalg.LinAlgError:  # numerically singular: propose no move
        return np.zeros(jacobian.shape[1])
    size = float(np.linalg.norm(step))
    if size > _MAX_STEP_RAD:
        step = step * (_MAX_STEP_RAD / size)
    return step


def _unbend(model: ArmModel, q: FloatArray) -> FloatArray:
    """Bend the inner joints a little (within limits) to leave a singularity."""
    bent = q.copy()
    bent[1:] += _UNBEND_RAD
    bent = _clamp(model, bent)
    if np.array_equal(bent, q):
        bent[1:] -= 2 * _UNBEND_RAD
        bent = _clamp(model, bent)
    return bent


def _fallback_seeds(
    model: ArmModel, target: FloatArray, start: FloatArray
) -> list[FloatArray]:
    """Return the other starts tried when descent from ``start`` fails.

    A joint limit may block the way from ``start``: try the other elbow
    configuration (inner joints negated), then the first link aimed at the
    target with the inner joints bent either way.
    """
    if model.dof < 2:
        return []
    mirrored = start.copy()
    mirrored[1:] = -mirrored[1:]
    offset = target - np.asarray(model.base_m, dtype=np.float64)
    heading = math.atan2(float(offset[1]), float(offset[0]))
    seeds = [mirrored]
    for sign in (1.0, -1.0):
        aimed = np.zeros(model.dof)
        aimed[1:] = sign * _UNBEND_RAD
        aimed[0] = heading - 0.5 * float(aimed[1:].sum())
        seeds.append(aimed)
    return seeds


def _descend(
    model: ArmModel,
    target: FloatArray,
    q_start: FloatArray,
    max_iterations: int,
    tolerance_m: float,
) -> tuple[FloatArray, float]:
    """Run damped least squares; return the best posture and its tip error."""
    q = _clamp(model, q_start)
    error = target - tip_position(model, q)
    distance = float(np.linalg.norm(error))
    damping = _INITIAL_DAMPING_M
    unbent = False
    for _ in range(max_iterations):
        if distance <= tolerance_m:
            break
        jacobian = tip_jacobian(model, q)
        candidate = _clamp(model, q + _dls_step(jacobian, error, damping))
        candidate_error = target - tip_position(model, candidate)
        candidate_distance = float(np.linalg.norm(candidate_error))
        if candidate_distance < distance:
            q, error, distance = candidate, candidate_error, candidate_distance
            damping = max(damping * 0.3, _MIN_DAMPING_M)
            continue
        damping = min(damping * 4.0, _MAX_DAMPING_M)
        if damping >= _MAX_DAMPING_M and not unbent and model.dof > 1:
            # Stalled: typically a stretched arm whose Jacobian has no radial
            # direction. Bend once and start the damping over.
            unbent = True
            q = _unbend(model, q)
            error = target - tip_position(model, q)
            distance = float(np.linalg.norm(error))
            damping = _INITIAL_DAMPING_M
    return q, distance


def solve_ik(
    model: ArmModel,
    target_xy: npt.ArrayLike,
    q_start: npt.ArrayLike,
    *,
    max_iterations: int = 200,
    tolerance_m: float = 1e-6,
) -> tuple[FloatArray, bool]:
    """Find joint angles that put the tip on a target, starting from a posture.

    Damped least squares with adaptive damping: each iteration proposes
    ``dq = J^T (J J^T + lambda^2 I)^-1 (target - tip)``, clamps ``q + dq`` into
    the joint limits, and accepts it only if the tip gets closer (lowering
    ``lambda``), otherwise raises ``lambda`` and tries again. The solution
    found is the one descent leads to from ``q_start``, so seeding with the
    previous solution keeps a sampled path continuous. Only when that fails
    (typically a joint limit in the way) is the descent run again from fixed
    fallback postures (the other elbow configuration, then the first link
    aimed at the target with the elbow bent either way), in that order,
    until one reaches; the closest result is returned.

    Parameters
    ----------
    model
        The arm.
    target_xy
        Target tip position in plane coordinates, metres, shape ``(2,)``.
    q_start
        Initial guess, radians, shape ``(n,)``; clamped into the limits.
    max_iterations
        Number of proposed steps at most (accepted or not), per descent.
    tolerance_m
        Tip distance to the target at which the target counts as reached.

    Returns
    -------
    q : numpy.ndarray
        The best posture found, within the joint limits, shape ``(n,)``. For an
        unreachable target it is the posture whose tip came nearest.
    reached : bool
        Whether the tip of ``q`` lies within ``tolerance_m`` of the target.

    Raises
    ------
    SchemaError
        ``target_xy`` or ``q_start`` has the wrong shape or is not finite.
    ValueError
        ``max_iterations`` is negative or ``tolerance_m`` not positive.
    """
    target = _target(target_xy)
    start = as_joint_vector(q_start, model.dof, "q_start")
    if not np.isfinite(start).all():
        raise SchemaError("q_start must be finite")
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
    if not (math.isfinite(tolerance_m) and tolerance_m > 0):
        raise ValueError(f"tolerance_m must be a positive number, got {tolerance_m}")
    q, distance = _descend(model, target, start, max_iterations, tolerance_m)
    for seed in _fallback_seeds(model, target, start):
        if distance <= tolerance_m:
            break
        other, other_distance = _descend(
            model, target, seed, max_iterations, tolerance_m
        )
        if other_distance < distance:
            q, distance = other, other_distance
    return q + 0.0, distance <= tolerance_m
