"""Forward kinematics and Jacobians of the planar arm.

All functions follow the conventions of
:mod:`fsr_core.simulators.planar_arm.model`: plane coordinates ``(x, y)`` in
metres with ``y`` up, joint angles measured counter-clockwise from the
previous link, link ``i`` spanning joint ``i`` to joint ``i + 1``. Their
common parameters are documented here once: ``model`` is the arm
(:class:`~fsr_core.simulators.planar_arm.model.ArmModel`), ``q`` its joint
angles (radians, shape ``(n,)``) and ``dq`` its joint velocities (rad/s,
shape ``(n,)``).

For a revolute joint ``j`` at ``p_j`` turning at unit rate, a point ``r``
carried by the links beyond it moves with velocity ``perp(r - p_j)``, where
``perp(x, y) = (-y, x)`` is the counter-clockwise quarter turn. Every
Jacobian here is built column by column from that rule, so no derivative is
approximated.

The functions are pure and deterministic: they use a fixed sequence of
numpy operations, so the same inputs give bit-identical outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.model import ArmModel

__all__ = [
    "Frames",
    "as_joint_vector",
    "com_jacobians",
    "com_jacobians_of",
    "com_positions",
    "frames",
    "joint_positions",
    "link_angles",
    "perp",
    "plane_to_world",
    "tip_jacobian",
    "tip_jacobian_of",
    "tip_position",
    "tip_velocity",
]


def as_joint_vector(values: npt.ArrayLike, dof: int, name: str) -> FloatArray:
    """Return ``values`` as a float64 vector of length ``dof``.

    Parameters
    ----------
    values
        Anything numpy turns into a 1-D array.
    dof
        The expected length (the arm's number of joints).
    name
        The argument's name, for the error message.

    Returns
    -------
    numpy.ndarray
        The values, shape ``(dof,)``, dtype float64 (not a copy when the
        input already is one).

    Raises
    ------
    SchemaError
        When the shape is not ``(dof,)``.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (dof,):
        raise SchemaError(f"{name} must have shape ({dof},), got {array.shape}")
    return array


def perp(vectors: FloatArray) -> FloatArray:
    """Rotate plane vectors a quarter turn counter-clockwise: ``(x, y) -> (-y, x)``.

    Parameters
    ----------
    vectors
        Plane vectors, shape ``(..., 2)``.

    Returns
    -------
    numpy.ndarray
        The rotated vectors, same shape.
    """
    return np.stack((-vectors[..., 1], vectors[..., 0]), axis=-1)


@dataclass(frozen=True)
class Frames:
    """Positions of one configuration, computed once and shared by the dynamics.

    Parameters
    ----------
    theta_rad
        Absolute link angles, shape ``(n,)``.
    axes
        Unit vectors along each link, shape ``(n, 2)``.
    joints_m
        Joint positions, base first and tip last, shape ``(n + 1, 2)``.
    coms_m
        Link centres of mass, shape ``(n, 2)``.
    """

    theta_rad: FloatArray
    axes: FloatArray
    joints_m: FloatArray
    coms_m: FloatArray


def frames(model: ArmModel, q: npt.ArrayLike) -> Frames:
    """Compute the link angles, axes, joint and centre-of-mass positions.

    Returns
    -------
    Frames
        The positions of configuration ``q``.
    """
    angles = as_joint_vector(q, model.dof, "q").tolist()
    # Plain floats and libm: faster than numpy for a handful of links, and the
    # operation order is fixed (the same as np.cumsum for the angles).
    theta = 0.0
    x, y = model.base_m
    thetas: list[float] = []
    axes: list[tuple[float, float]] = []
    joints = [(float(x), float(y))]
    coms: list[tuple[float, float]] = []
    for angle, link in zip(angles, model.links, strict=True):
        theta += angle
        ex, ey = math.cos(theta), math.sin(theta)
        coms.append((x + link.com_m * ex, y + link.com_m * ey))
        x += link.length_m * ex
        y += link.length_m * ey
        thetas.append(theta)
        axes.append((ex, ey))
        joints.append((x, y))
    return Frames(np.array(thetas), np.array(axes), np.array(joints), np.array(coms))


def link_angles(q: npt.ArrayLike) -> FloatArray:
    """Return the absolute link angles ``theta_i = q_0 + ... + q_i``.

    Parameters
    ----------
    q
        Joint angles, radians, shape ``(n,)``.

    Returns
    -------
    numpy.ndarray
        Absolute angles from the plane's ``+x`` axis, radians, shape ``(n,)``.
    """
    return np.cumsum(np.asarray(q, dtype=np.float64))


def joint_positions(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the positions of joint 0 (the base), joint 1, ..., and the tip.

    Returns
    -------
    numpy.ndarray
        Plane coordinates in metres, shape ``(n + 1, 2)``.
    """
    return frames(model, q).joints_m


def tip_position(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the tip position (the end of the last link).

    Returns
    -------
    numpy.ndarray
        Plane coordinates in metres, shape ``(2,)``.
    """
    tip: FloatArray = frames(model, q).joints_m[-1].copy()
    return tip


def com_positions(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the centre of mass of every link.

    Returns
    -------
    numpy.ndarray
        Plane coordinates in metres, shape ``(n, 2)``.
    """
    return frames(model, q).coms_m


def tip_jacobian_of(pose: Frames) -> FloatArray:
    """Return the tip Jacobian of precomputed frames (see :func:`tip_jacobian`)."""
    joints = pose.joints_m
    return perp(joints[-1] - joints[:-1]).T


def com_jacobians_of(pose: Frames) -> FloatArray:
    """Return the COM Jacobians of precomputed frames (see :func:`com_jacobians`)."""
    offsets = pose.coms_m[:, None, :] - pose.joints_m[None, :-1, :]
    dof = offsets.shape[0]
    beyond = np.tril(np.ones((dof, dof)))  # link i moves with joints j <= i
    return np.transpose(perp(offsets) * beyond[:, :, None], (0, 2, 1))


def tip_jacobian(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the linear-velocity Jacobian of the tip.

    Column ``j`` is ``perp(tip - p_j)``: the tip's velocity when joint ``j``
    turns at 1 rad/s.

    Returns
    -------
    numpy.ndarray
        ``d tip / d q`` in metres per radian, shape ``(2, n)``.
    """
    return tip_jacobian_of(frames(model, q))


def com_jacobians(model: ArmModel, q: npt.ArrayLike) -> FloatArray:
    """Return the linear-velocity Jacobian of every link's centre of mass.

    Entry ``[i, :, j]`` is ``perp(c_i - p_j)`` for ``j <= i`` and zero for
    ``j > i`` (link ``i`` does not move with the joints beyond it).

    Returns
    -------
    numpy.ndarray
        ``d c_i / d q`` in metres per radian, shape ``(n, 2, n)``.
    """
    return com_jacobians_of(frames(model, q))


def tip_velocity(model: ArmModel, q: npt.ArrayLike, dq: npt.ArrayLike) -> FloatArray:
    """Return the tip's linear velocity ``J_tip(q) dq``.

    Returns
    -------
    numpy.ndarray
        Plane velocity in m/s, shape ``(2,)``.
    """
    rates = as_joint_vector(dq, model.dof, "dq")
    result: FloatArray = tip_jacobian(model, q) @ rates
    return result


def plane_to_world(points_xy: npt.ArrayLike) -> FloatArray:
    """Embed plane points in the world: ``(x, y) -> (x, 0, y)``.

    Parameters
    ----------
    points_xy
        Plane coordinates, shape ``(..., 2)``.

    Returns
    -------
    numpy.ndarray
        World coordinates (world ``z`` up), shape ``(..., 3)``.

    Raises
    ------
    SchemaError
        When the last axis does not have length 2.
    """
    points = np.asarray(points_xy, dtype=np.float64)
    if points.ndim == 0 or points.shape[-1] != 2:
        raise SchemaError(f"plane points must have shape (..., 2), got {points.shape}")
    world = np.zeros((*points.shape[:-1], 3))
    world[..., 0] = points[..., 0]
    world[..., 2] = points[..., 1]
    return world
