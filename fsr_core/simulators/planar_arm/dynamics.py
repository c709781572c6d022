r"""Rigid-body dynamics of the planar arm.

The equations of motion are

.. math::

    M(q)\,\ddot q + b(q, \dot q) = \tau - \beta\,\dot q + J_{tip}(q)^T f_{tip}

with ``M`` the joint-space mass matrix, ``b = C(q, dq) dq + g(q)`` the bias
forces (Coriolis and centrifugal terms plus the generalized gravity force
``g(q) = dV/dq``), ``beta`` the viscous friction coefficient
(``model.friction_nms_per_rad``) and ``f_tip`` an external force acting on the
tip, in plane coordinates (newtons).

How each quantity is computed:

- :func:`mass_matrix` uses the composite-rigid-body algorithm (CRBA) in its
  planar form. Sweeping from the tip inwards it keeps the mass ``m_j``, centre
  of mass ``C_j`` and rotational inertia ``I_j`` (about ``C_j``, parallel-axis
  theorem) of the composite body made of links ``j .. n-1``. Turning joint
  ``j`` at unit rate moves that composite as one rigid body about ``p_j``; its
  angular momentum about joint ``i <= j`` is
  ``M[i, j] = I_j + m_j (C_j - p_i) . (C_j - p_j)``.
- :func:`inverse_dynamics` and :func:`bias_forces` use the recursive
  Newton-Euler algorithm (RNEA): an outward pass propagates angular rates and
  accelerations and the linear accelerations of joints and centres of mass
  (gravity enters as an upward acceleration ``-g`` of the base); an inward
  pass accumulates link forces and takes their moments about each joint.
- :func:`gravity_torques` sums ``(c_k - p_i) x m_k g`` over the links
  ``k >= i`` beyond joint ``i`` (as ``(sum m_k c_k - p_i sum m_k) x g``,
  accumulated from the tip inwards).
- :func:`forward_dynamics` solves the equation above for ``qdd`` with
  ``numpy.linalg.solve`` (LU with partial pivoting; ``M`` is symmetric
  positive definite for every valid model).
- :func:`kinetic_energy` and :func:`potential_energy` sum over links from
  centre-of-mass velocities and heights, independently of ``M``, so they can
  check it.

Sign convention for gravity: :func:`gravity_torques` returns the torques
gravity *applies* at the joints, ``tau_g = -dV/dq``. A horizontal link with
gravity ``(0, -9.81)`` gets a negative (clockwise) torque ``-m g c``. The
torque that holds the arm still is ``-tau_g``, which is also what
:func:`bias_forces` returns at ``dq = 0``.

Parameters follow :mod:`~fsr_core.simulators.planar_arm.kinematics`: ``model``
is the arm, ``q`` its joint angles (radians, shape ``(n,)``) and ``dq`` its
joint velocities (rad/s, shape ``(n,)``); each function documents the others.

Everything is deterministic: no randomness and a fixed order of operations,
so the same inputs give bit-identical outputs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.simulators.planar_arm.kinematics import (
    Frames,
    as_joint_vector,
    com_jacobians_of,
    frames,
    tip_jacobian_of,
)
from fsr_core.simulators.planar_arm.model import ArmModel

__all__ = [
    "bias_forces",
    "forward_dynamics",
    "gravity_torques",
    "inverse_dynamics",
    "kinetic_energy",
    "mass_matrix",
    "potential_energy",
]


def _mass_matrix_of(model: ArmModel, pose: Frames) -> FloatArray:
    """Run the planar composite-rigid-body algorithm (see the module docstring)."""
    dof = model.dof
    joints = pose.joints_m.tolist()
    coms = pose.coms_m.tolist()
    matrix = np.empty((dof, dof))
    mass, com_x, com_y, inertia = 0.0, 0.0, 0.0, 0.0
    for j in range(dof - 1, -1, -1):
        link = model.links[j]
        cx, cy = coms[j]
        total = mass + link.mass_kg
        new_x = (mass * com_x + link.mass_kg * cx) / total
        new_y = (mass * com_y + link.mass_kg * cy) / total
        inertia = (
            inertia
            + mass * ((com_x - new_x) ** 2 + (com_y - new_y) ** 2)
            + link.inertia_kgm2
            + link.mass_kg * ((cx - new_x) ** 2 + (cy - new_y) ** 2)
        )
        mass, com_x, com_y = total, new_x, new_y
        arm_x, arm_y = com_x - joints[j][0], com_y - joints[j][1]
        for i in range(j + 1):
            value = inertia + mass * (
                (com_x - joints[i][0]) * arm_x + (com_y - joints[i][1]) * arm_y
            )
            matrix[i, j] = value
            matrix[j, i] = value
    return matrix


def _rnea(model: ArmModel, pose: Frames, dq: FloatArray, qdd: FloatArray) -> FloatArray:
    """Run recursive Newton-Euler: rigid-body joint torques, gravity included."""
    dof = model.dof
    axes = pose.axes.tolist()
    rates = dq.tolist()
    accels = qdd.tolist()
    # Outward pass: link rates, COM accelerations (gravity as base acceleration -g).
    acc_x, acc_y = -model.gravity_mps2[0], -model.gravity_mps2[1]
    omega = alpha = 0.0
    alphas: list[float] = []
    com_forces: list[tuple[float, float]] = []
    for i, link in enumerate(model.links):
        omega += rates[i]
        alpha += accels[i]
        ex, ey = axes[i]
        tangential, radial = alpha, -(omega * omega)
        cx = acc_x + link.com_m * (radial * ex - tangential * ey)
        cy = acc_y + link.com_m * (radial * ey + tangential * ex)
        com_forces.append((link.mass_kg * cx, link.mass_kg * cy))
        alphas.append(alpha)
        acc_x += link.length_m * (radial * ex - tangential * ey)
        acc_y += link.length_m * (radial * ey + tangential * ex)
    # Inward pass: force from the parent link and moment about each joint.
    tau = np.empty(dof)
    force_x = force_y = moment = 0.0
    for i in range(dof - 1, -1, -1):
        link = model.links[i]
        ex, ey = axes[i]
        fx, fy = com_forces[i]
        moment = (
            moment
            + link.length_m * (ex * force_y - ey * force_x)
            + link.com_m * (ex * fy - ey * fx)
            + link.inertia_kgm2 * alphas[i]
        )
        force_x += fx
        force_y += fy
        tau[i] = moment
    return tau


def _tip_generalized_force(
    pose: Frames, tip_force: npt.ArrayLike | None
) -> FloatArray | None:
    """Return ``J_tip^T f_tip`` or ``None`` when there is no tip force."""
    if tip_force is None:
        return None
    force = as_joint_vector(tip_force, 2, "tip_force")
    result: FloatArray = tip_jacobian_of(pose).T @ force
    return result


def mass_matrix(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the joint-space mass matrix (composite-rigid-body algorithm).

    Returns
    -------
    numpy.ndarray
        ``M(q)`` in kg m^2, shape ``(n, n)``, exactly symmetric and positive
        definite.
    """
    return _mass_matrix_of(model, frames(model, q))


def bias_forces(model: ArmModel, q: npt.ArrayLike, dq: npt.ArrayLike) -> FloatArray:
    """Return the bias forces ``b = C(q, dq) dq + g(q)`` (so ``tau = M qdd + b``).

    Friction and tip forces are not included.

    Returns
    -------
    numpy.ndarray
        Joint torques in N m, shape ``(n,)``: Coriolis and centrifugal terms
        plus the torque that balances gravity (``-gravity_torques``).
    """
    rates = as_joint_vector(dq, model.dof, "dq")
    return _rnea(model, frames(model, q), rates, np.zeros(model.dof))


def gravity_torques(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the joint torques that gravity applies, ``tau_g = -dV/dq``.

    Returns
    -------
    numpy.ndarray
        Torques in N m, shape ``(n,)``, counter-clockwise positive: a
        horizontal uniform rod under gravity ``(0, -g)`` gets ``-m g c``.
    """
    pose = frames(model, q)
    joints = pose.joints_m.tolist()
    coms = pose.coms_m.tolist()
    gx, gy = model.gravity_mps2
    torques = np.empty(model.dof)
    # Links k >= i hang beyond joint i: sum_k (c_k - p_i) x m_k g
    # = (sum_k m_k c_k - (sum_k m_k) p_i) x g, accumulated from the tip inwards.
    mass = moment_x = moment_y = 0.0
    for i in range(model.dof - 1, -1, -1):
        link_mass = model.links[i].mass_kg
        mass += link_mass
        moment_x += link_mass * coms[i][0]
        moment_y += link_mass * coms[i][1]
        arm_x = moment_x - mass * joints[i][0]
        arm_y = moment_y - mass * joints[i][1]
        torques[i] = arm_x * gy - arm_y * gx
    return torques


def inverse_dynamics(
    model: ArmModel,
    q: npt.ArrayLike,
    dq: npt.ArrayLike,
    qdd: npt.ArrayLike,
    tip_force: npt.ArrayLike | None = None,
) -> FloatArray:
    """Return the joint torques that produce ``qdd`` (recursive Newton-Euler).

    The exact inverse of :func:`forward_dynamics`:
    ``tau = M qdd + b + beta dq - J_tip^T f_tip``.

    Parameters
    ----------
    qdd
        Joint accelerations, rad/s^2, shape ``(n,)``.
    tip_force
        External force on the tip, plane coordinates, newtons, shape ``(2,)``.

    Returns
    -------
    numpy.ndarray
        Joint torques in N m, shape ``(n,)``.
    """
    pose = frames(model, q)
    rates = as_joint_vector(dq, model.dof, "dq")
    accels = as_joint_vector(qdd, model.dof, "qdd")
    tau = _rnea(model, pose, rates, accels) + model.friction_nms_per_rad * rates
    external = _tip_generalized_force(pose, tip_force)
    return tau if external is None else tau - external


def forward_dynamics(
    model: ArmModel,
    q: npt.ArrayLike,
    dq: npt.ArrayLike,
    tau: npt.ArrayLike,
    tip_force: npt.ArrayLike | None = None,
) -> FloatArray:
    """Return the joint accelerations under the given torques and tip force.

    Solves ``M qdd = tau - b - beta dq + J_tip^T f_tip`` with
    ``numpy.linalg.solve``.

    Parameters
    ----------
    tau
        Applied joint torques, N m, shape ``(n,)``.
    tip_force
        External force on the tip, plane coordinates, newtons, shape ``(2,)``.

    Returns
    -------
    numpy.ndarray
        Joint accelerations, rad/s^2, shape ``(n,)``.
    """
    pose = frames(model, q)
    rates = as_joint_vector(dq, model.dof, "dq")
    torques = as_joint_vector(tau, model.dof, "tau")
    rhs = torques - _rnea(model, pose, rates, np.zeros(model.dof))
    rhs -= model.friction_nms_per_rad * rates
    external = _tip_generalized_force(pose, tip_force)
    if external is not None:
        rhs += external
    qdd: FloatArray = np.asarray(
        np.linalg.solve(_mass_matrix_of(model, pose), rhs), dtype=np.float64
    )
    return qdd


def kinetic_energy(model: ArmModel, q: npt.ArrayLike, dq: npt.ArrayLike) -> float:
    """Return the kinetic energy, summed link by link.

    ``T = sum_i (m_i |v_ci|^2 + I_i omega_i^2) / 2`` with ``v_ci = J_ci dq``
    and ``omega_i = dq_0 + ... + dq_i`` (independent of :func:`mass_matrix`).

    Returns
    -------
    float
        Kinetic energy in joules.
    """
    rates = as_joint_vector(dq, model.dof, "dq")
    velocities = com_jacobians_of(frames(model, q)) @ rates  # (n, 2)
    omegas = np.cumsum(rates)
    energy = 0.0
    for i, link in enumerate(model.links):
        speed_sq = float(velocities[i, 0] ** 2 + velocities[i, 1] ** 2)
        energy += 0.5 * (link.mass_kg * speed_sq + link.inertia_kgm2 * omegas[i] ** 2)
    return energy


def potential_energy(model: ArmModel, q: npt.ArrayLike) -> float:
    """Return the gravitational potential energy ``V = -sum_i m_i g . c_i``.

    The zero is the plane's origin (``V = 0`` for centres of mass on the line
    through the origin perpendicular to gravity).

    Returns
    -------
    float
        Potential energy in joules.
    """
    coms = frames(model, q).coms_m.tolist()
    gx, gy = model.gravity_mps2
    energy = 0.0
    for link, (cx, cy) in zip(model.links, coms, strict=True):
        energy -= link.mass_kg * (gx * cx + gy * cy)
    return energy
