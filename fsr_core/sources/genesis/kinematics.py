"""Where links and environments stand, as Genesis computes it.

:func:`forward_kinematics` gives link poses from joint positions, as
Genesis's rigid solver computes them; :func:`env_offsets` where each
environment is shown.

Minimal (GSTRAJ4) and compressed (GSTRAJ1) trajectories record the joint
positions ``RigidSolver.rigid_info.qpos`` but not the link poses; the link
tree of the scene description (docs/genesis_trajectory.md, section 4) gives
them back. The rules are those of Genesis's forward kinematics (the link
kernel of its rigid solver), link after link in solver order, parents first:

* A link starts at its parent's pose composed with its own ``pos`` / ``quat``
  (the link frame in the parent's): ``p = p_parent + R(q_parent) pos``,
  ``q = q_parent * quat``. A root link starts at ``pos`` / ``quat`` in the
  world (the environment's own world, before any environment offset).
* Then each of its joints moves it in turn, with ``q_j`` its coordinates in
  ``qpos`` and ``q0_j`` its neutral ones (the joints' ``init_qpos``, which
  Genesis copies into ``qpos0``):

  - FIXED: nothing.
  - FREE: the pose is the coordinates themselves, ``x y z`` and a quaternion
    ``w x y z`` (normalised), in the world.
  - REVOLUTE: a turn by ``q_j - q0_j`` about the dof's ``dofs_motion_ang``
    axis (in the link frame) around the joint anchor ``pos`` (in the link
    frame): ``q = q * rot(axis, angle)`` and ``p`` moved so the anchor stays.
  - SPHERICAL: the same with the coordinates as a quaternion ``w x y z``.
  - PRISMATIC: a slide by ``q_j - q0_j`` along ``dofs_motion_vel`` (in the
    link frame).

The joint ``quat`` of the description takes no part (Genesis's kernel does
not read it). Every product of two quaternions is normalised, as the
kernel does. The arithmetic is float64 over float32 inputs, so the poses
match a float32 run of Genesis to float32 rounding: within 2e-7 (metres, and
quaternion components) on the test recordings, whose tests allow 1e-6.
Parameters a model setter changes during the run (link offsets, axes) are
taken from the description, i.e. as built; the variants of a heterogeneous
entity are not modelled (every environment gets the primary).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError
from fsr_core.sources.genesis.scene_geometry import (
    DAMAGE_ERRORS,
    Description,
    DescriptionError,
    LinkEntry,
)

__all__ = [
    "JOINT_SIZES",
    "Joint",
    "KinematicTree",
    "env_offsets",
    "forward_kinematics",
    "joint_type",
    "kinematic_tree",
]

JOINT_SIZES: Final = {
    "FIXED": (0, 0),
    "REVOLUTE": (1, 1),
    "PRISMATIC": (1, 1),
    "SPHERICAL": (4, 3),
    "FREE": (7, 6),
}
"""Each Genesis joint type's ``(qpos entries, dofs)``."""
_JOINT_NAMES: Final = ("FIXED", "REVOLUTE", "PRISMATIC", "SPHERICAL", "FREE")
_TINY_ANGLE: Final = 1e-12


@dataclass(frozen=True)
class Joint:
    """One joint, as the forward kinematics needs it."""

    kind: str
    """``FIXED``, ``REVOLUTE``, ``PRISMATIC``, ``SPHERICAL`` or ``FREE``."""
    q_start: int
    """Index of its first coordinate in ``qpos``."""
    anchor_m: FloatArray
    """Joint position in its link's frame, (3,)."""
    axis: FloatArray
    """Rotation axis (revolute) or slide direction (prismatic), (3,), as given."""
    neutral: FloatArray
    """Its coordinates at rest (``init_qpos``), (n_qs,)."""


@dataclass(frozen=True)
class KinematicTree:
    """Every link of a scene in solver order: parent, frame in parent, joints."""

    names: tuple[str, ...]
    parents: tuple[int, ...]
    pos_m: FloatArray
    """(L, 3): each link's frame in its parent's (the world's for a root)."""
    quat: FloatArray
    """(L, 4) ``w x y z``."""
    joints: tuple[tuple[Joint, ...], ...]
    n_qs: int


def joint_type(value: Any) -> str:
    """Return a joint's type name from the description's code or name.

    Raises
    ------
    DescriptionError
        The type is none Genesis has.
    """
    if type(value) is int and 0 <= value < len(_JOINT_NAMES):
        return _JOINT_NAMES[value]
    if isinstance(value, str) and value in JOINT_SIZES:
        return value
    raise DescriptionError(f"unknown joint type {value!r}")


def _unit(vector: FloatArray, what: str) -> FloatArray:
    norm = float(np.linalg.norm(vector))
    if norm < 1e-9:
        raise DescriptionError(f"{what} is zero")
    result: FloatArray = vector / norm
    return result


def _joint(description: Description, data: dict[str, Any], q_start: int) -> Joint:
    arrays = description.arrays
    name = str(data.get("name", "joint"))
    kind = joint_type(data["type"])
    n_qs, n_dofs = JOINT_SIZES[kind]
    if data.get("n_qs") != n_qs or data.get("n_dofs") != n_dofs:
        raise DescriptionError(f"joint {name}: sizes do not fit a {kind} joint")
    anchor = arrays.floats(data["pos"], (3,), f"joint {name} pos")
    neutral = arrays.floats(data["init_qpos"], (n_qs,), f"joint {name} init_qpos")
    axis = np.zeros(3)
    if kind in ("REVOLUTE", "PRISMATIC"):
        key = "dofs_motion_ang" if kind == "REVOLUTE" else "dofs_motion_vel"
        axis = arrays.floats(data[key], (1, 3), f"joint {name} {key}")[0]
    return Joint(kind, q_start, anchor, axis, neutral)


def _link_joints(
    description: Description, link: LinkEntry, q_start: int
) -> tuple[Joint, ...]:
    joints = link.data.get("joints") or []
    if not isinstance(joints, list):
        raise DescriptionError(f"link {link.name}: joints are not a list")
    found = []
    for data in joints:
        joint = _joint(description, data, q_start)
        q_start += len(joint.neutral)
        found.append(joint)
    return tuple(found)


def kinematic_tree(description: Description) -> KinematicTree:
    """Return the link tree of ``description``.

    Raises
    ------
    FsrError
        A link or joint does not read (a missing key, a wrong shape, an
        unknown joint type, a zero axis or quaternion).
    """
    arrays = description.arrays
    positions, rotations, joints = [], [], []
    q_start = 0
    try:
        for link in description.links:
            positions.append(arrays.floats(link.data["pos"], (3,), f"{link.name} pos"))
            quat = arrays.floats(link.data["quat"], (4,), f"{link.name} quat")
            rotations.append(_unit(quat, f"{link.name} quat"))
            link_joints = _link_joints(description, link, q_start)
            q_start += sum(len(joint.neutral) for joint in link_joints)
            joints.append(link_joints)
    except FsrError:
        raise
    except DAMAGE_ERRORS as exc:
        raise DescriptionError(
            f"the link tree does not read ({type(exc).__name__})"
        ) from exc
    return KinematicTree(
        names=tuple(link.name for link in description.links),
        parents=tuple(link.parent for link in description.links),
        pos_m=np.array(positions).reshape(-1, 3),
        quat=np.array(rotations).reshape(-1, 4),
        joints=tuple(joints),
        n_qs=q_start,
    )


def _multiply(a: FloatArray, b: FloatArray) -> FloatArray:
    """Return the normalised products ``a * b`` of quaternions ``(..., 4)`` wxyz."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    product = np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )
    result: FloatArray = product / np.linalg.norm(product, axis=-1, keepdims=True)
    return result


def _rotate(quat: FloatArray, vector: FloatArray) -> FloatArray:
    """Rotate ``vector`` ``(..., 3)`` by unit quaternions ``quat`` ``(..., 4)``."""
    w = quat[..., :1]
    axis = quat[..., 1:]
    twice = 2.0 * np.cross(axis, vector)
    result: FloatArray = vector + w * twice + np.cross(axis, twice)
    return result


def _turn(axis: FloatArray, angle: FloatArray) -> FloatArray:
    """Return the quaternions of rotation vectors ``axis * angle`` (``angle``: (...)).

    As Genesis does it, the axis is not normalised: its length scales the
    angle; a turn below a tiny angle is no turn.
    """
    rotvec = angle[..., None] * axis
    theta = np.linalg.norm(rotvec, axis=-1)
    tiny = theta <= _TINY_ANGLE
    safe = np.where(tiny, 1.0, theta)
    quat = np.zeros((*angle.shape, 4))
    quat[..., 0] = np.cos(0.5 * theta)
    quat[..., 1:] = (np.sin(0.5 * safe) / safe)[..., None] * rotvec
    quat[tiny] = (1.0, 0.0, 0.0, 0.0)
    return quat


def _move(
    joint: Joint, pos: FloatArray, quat: FloatArray, qpos: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Return a link's pose after ``joint`` moved it (``qpos`` is ``(..., n_qs)``)."""
    q = qpos[..., joint.q_start : joint.q_start + len(joint.neutral)]
    if joint.kind == "FREE":
        rotation = q[..., 3:7] / np.linalg.norm(q[..., 3:7], axis=-1, keepdims=True)
        return q[..., :3].copy(), rotation
    if joint.kind == "PRISMATIC":
        slide = (q[..., 0] - joint.neutral[0])[..., None]
        return pos + _rotate(quat, np.broadcast_to(joint.axis, pos.shape)) * slide, quat
    if joint.kind == "FIXED":
        return pos, quat
    anchor = pos + _rotate(quat, np.broadcast_to(joint.anchor_m, pos.shape))
    if joint.kind == "REVOLUTE":
        local = _turn(joint.axis, q[..., 0] - joint.neutral[0])
    else:
        local = q[..., :4]
    quat = _multiply(quat, local)
    return anchor - _rotate(quat, np.broadcast_to(joint.anchor_m, pos.shape)), quat


def _link_pose(
    tree: KinematicTree,
    link: int,
    parent: int,
    positions: FloatArray,
    rotations: FloatArray,
    lead: tuple[int, ...],
) -> tuple[FloatArray, FloatArray]:
    """Return a link's pose before its joints move it: on its parent, or as given."""
    if parent < 0:
        pos = np.broadcast_to(tree.pos_m[link], (*lead, 3)).copy()
        quat = np.broadcast_to(tree.quat[link], (*lead, 4)).copy()
        return pos, quat
    parent_quat = rotations[..., parent, :]
    offset = np.broadcast_to(tree.pos_m[link], (*lead, 3))
    pos = positions[..., parent, :] + _rotate(parent_quat, offset)
    quat = _multiply(parent_quat, np.broadcast_to(tree.quat[link], (*lead, 4)))
    return pos, quat


def forward_kinematics(
    tree: KinematicTree, qpos: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Return every link's pose for joint positions ``qpos`` ``(..., n_qs)``.

    The leading axes (frames, environments ...) are kept: positions are
    ``(..., L, 3)``, quaternions ``(..., L, 4)`` ``w x y z``.

    Raises
    ------
    ValueError
        ``qpos`` does not end with ``tree.n_qs`` coordinates.
    """
    qpos = np.asarray(qpos, dtype=np.float64)
    if qpos.shape[-1] != tree.n_qs:
        raise ValueError(f"qpos has {qpos.shape[-1]} coordinates, not {tree.n_qs}")
    lead = qpos.shape[:-1]
    n_links = len(tree.parents)
    positions = np.zeros((*lead, n_links, 3))
    rotations = np.zeros((*lead, n_links, 4))
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN in, NaN out
        for link, parent in enumerate(tree.parents):
            pose = _link_pose(tree, link, parent, positions, rotations, lead)
            for joint in tree.joints[link]:
                pose = _move(joint, *pose, qpos)
            positions[..., link, :], rotations[..., link, :] = pose
    return positions, rotations


def env_offsets(layout: Any, batch: int) -> tuple[FloatArray, str]:
    """Return where each environment is shown, ``(batch, 3)``, and a note if unsure.

    The rule is Genesis's own: the environment layout its ``Scene`` works
    out when it is built with several environments, and which its viewer and
    cameras add to every pose they draw. Environment ``e`` sits at
    ``x = (e // per_row) * spacing_x``, ``y = (e % per_row) * spacing_y``,
    ``z = 0``, where
    ``per_row`` is ``n_envs_per_row`` (the rounded-up square root of the
    environment count when not given); with ``center_envs_at_origin`` every
    offset is then moved by the midpoint of their bounding box, so the
    environments are centred on the origin.
    """
    zeros = np.zeros((batch, 3))
    try:
        spacing = [float(v) for v in layout["env_spacing"]]
        per_row = layout.get("n_envs_per_row")
        if per_row is None:
            per_row = math.ceil(math.sqrt(batch))
        centre = layout.get("center_envs_at_origin", True)
        if (
            len(spacing) != 2
            or not all(math.isfinite(v) for v in spacing)
            or not isinstance(per_row, int)
            or isinstance(per_row, bool)
            or per_row < 1
        ):
            return zeros, "the environment layout does not read: envs overlap"
    except DAMAGE_ERRORS:
        return zeros, "the environment layout does not read: envs overlap"
    envs = np.arange(batch)
    offsets = np.zeros((batch, 3))
    offsets[:, 0] = (envs // per_row) * spacing[0]
    offsets[:, 1] = (envs % per_row) * spacing[1]
    if centre is not False:
        offsets -= (offsets.max(axis=0) + offsets.min(axis=0)) / 2.0
    return offsets, ""
