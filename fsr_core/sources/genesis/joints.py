"""The joints of a Genesis trajectory, from its scene description.

The description lists every entity's links and their joints in solver order
(docs/genesis_trajectory.md, section 4); ``RigidSolver.rigid_info.qpos``
holds their coordinates in that order and the ``dofs`` fields (velocity
``dofs.vel``, force ``dofs.force``) their degrees of freedom. A revolute
joint is one angle (rad) and a prismatic one a length (m), each named as the
description names it, with its ``dofs_limit`` when finite.

A free joint is no joint of the panel: in an entity that also has revolute
or prismatic joints it is the robot's floating base, and its seven
coordinates (``x y z qw qx qy qz``) become the ``base_pose`` channel. Free
joints of entities without other joints (loose bodies) and spherical joints
are left out. Joints of several entities are grouped by entity. A batched
run names the first environment's channels (``env0/...``) and lists every
environment, so a view can follow another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from fsr_core.errors import FsrError
from fsr_core.joint_set import JointKind, JointSet, JointSpec
from fsr_core.logs.genesis.naming import SceneNames
from fsr_core.recording import Channel, picked_channel
from fsr_core.sources.genesis.kinematics import JOINT_SIZES, joint_type
from fsr_core.sources.genesis.scene_geometry import (
    DAMAGE_ERRORS,
    Description,
    LinkEntry,
)

__all__ = ["BASE_POSE_CHANNEL", "genesis_joints"]

BASE_POSE_CHANNEL: Final = "base_pose"
_QPOS: Final = "RigidSolver.rigid_info.qpos"
_VELOCITY: Final = "RigidSolver.dyn_state.dofs.vel"
_FORCE: Final = "RigidSolver.dyn_state.dofs.force"
_KINDS: Final = {"REVOLUTE": JointKind.REVOLUTE, "PRISMATIC": JointKind.PRISMATIC}
_BASE_COLUMNS: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")


@dataclass(frozen=True)
class _Found:
    """One joint of the description: where its coordinates are, what it is."""

    kind: str
    name: str
    entity: int
    q_start: int
    dof_start: int
    data: dict[str, Any]


def _walk(description: Description) -> list[_Found]:
    """Return every joint in solver order, with its first ``qpos`` and dof index."""
    found: list[_Found] = []
    q_start = dof_start = 0
    for link in description.links:
        for data in _link_joints(link):
            kind = joint_type(data["type"])
            name = str(data.get("name") or f"joint{len(found)}")
            found.append(_Found(kind, name, link.entity, q_start, dof_start, data))
            n_qs, n_dofs = JOINT_SIZES[kind]
            q_start += n_qs
            dof_start += n_dofs
    return found


def _link_joints(link: LinkEntry) -> list[dict[str, Any]]:
    joints = link.data.get("joints") or []
    return [joint for joint in joints if isinstance(joint, dict)]


def _limits(description: Description, joint: _Found) -> tuple[float | None, ...]:
    """Return the joint's lower and upper limit, unknown when not both finite."""
    try:
        limits = description.arrays.floats(
            joint.data["dofs_limit"], (1, 2), f"joint {joint.name} dofs_limit"
        )
    except (FsrError, *DAMAGE_ERRORS):
        return None, None  # a continuous joint's limits are infinite
    lower, upper = float(limits[0, 0]), float(limits[0, 1])
    return (lower, upper) if lower < upper else (None, None)


def _spec(
    description: Description,
    joint: _Found,
    entity_names: tuple[str, ...],
    grouped: bool,
) -> JointSpec:
    kind = _KINDS[joint.kind]
    lower, upper = _limits(description, joint)
    group = ""
    if grouped:
        group = (
            entity_names[joint.entity]
            if joint.entity < len(entity_names)
            else f"entity{joint.entity}"
        )
    unit = "rad" if kind is JointKind.REVOLUTE else "m"
    return JointSpec(joint.name, kind, unit, lower=lower, upper=upper, group=group)


def _channel(
    channels: dict[str, Channel], field: str, environment: str, width: int
) -> str | None:
    """Return ``environment``'s channel of ``field`` when it is ``width`` wide."""
    name = f"{environment}/{field}" if environment else field
    channel = channels.get(name)
    return name if channel is not None and channel.width == width else None


def genesis_joints(
    description: Description | None,
    names: SceneNames,
    channels: dict[str, Channel],
    batch: int,
) -> JointSet | None:
    """Return the trajectory's joints, adding the ``base_pose`` channel(s).

    ``None`` without a readable description, a ``qpos`` channel that fits it,
    or a revolute or prismatic joint.
    """
    if description is None:
        return None
    try:
        found = _walk(description)
    except (FsrError, *DAMAGE_ERRORS):
        return None
    joints = [joint for joint in found if joint.kind in _KINDS]
    n_qs = sum(JOINT_SIZES[joint.kind][0] for joint in found)
    n_dofs = sum(JOINT_SIZES[joint.kind][1] for joint in found)
    environments = tuple(f"env{env}" for env in range(batch)) if batch > 1 else ("",)
    first = environments[0]
    positions = _channel(channels, _QPOS, first, n_qs)
    if not joints or positions is None:
        return None
    grouped = len({joint.entity for joint in joints}) > 1
    dofs = tuple(joint.dof_start for joint in joints)
    velocities = _channel(channels, _VELOCITY, first, n_dofs)
    efforts = _channel(channels, _FORCE, first, n_dofs)
    base = _base_pose(channels, found, joints, environments)
    return JointSet(
        joints=tuple(
            _spec(description, joint, names.entities, grouped) for joint in joints
        ),
        positions=positions,
        position_columns=tuple(joint.q_start for joint in joints),
        velocities=velocities,
        velocity_columns=dofs if velocities is not None else (),
        efforts=efforts,
        effort_columns=dofs if efforts is not None else (),
        base_pose=base,
        environments=environments if batch > 1 else (),
    )


def _base_pose(
    channels: dict[str, Channel],
    found: list[_Found],
    joints: list[_Found],
    environments: tuple[str, ...],
) -> str | None:
    """Add a ``base_pose`` channel per environment; return the first's name.

    The base is the first free joint of an entity that has the joints.
    """
    robots = {joint.entity for joint in joints}
    free = next(
        (joint for joint in found if joint.kind == "FREE" and joint.entity in robots),
        None,
    )
    if free is None:
        return None
    picks = range(free.q_start, free.q_start + len(_BASE_COLUMNS))
    named = None
    for environment in environments:
        source = channels[f"{environment}/{_QPOS}" if environment else _QPOS]
        name = (
            f"{environment}/{BASE_POSE_CHANNEL}" if environment else BASE_POSE_CHANNEL
        )
        channels[name] = picked_channel(
            source, name, picks, columns=_BASE_COLUMNS, label="floating base pose"
        )
        named = named or name
    return named
