"""A robot as the viewer draws it: links joined by joints, meshes on the links.

:class:`RobotModel` is what a robot description (URDF, MJCF) is read into,
whatever library read it. Links form a tree from one root; each joint moves
its child link relative to its parent:

``child = parent @ joint.origin @ motion(q) @ joint.after``

where ``motion`` turns about (revolute) or slides along (prismatic)
``joint.axis`` by the joint's value ``q``. URDF joints have ``after`` the
identity; an MJCF hinge away from its body's origin turns about its anchor.
A mimic joint takes ``multiplier * q(source) + offset``. A floating joint's
motion is a whole pose and a ball joint's a rotation; nothing driving them,
they take their ``rest`` motion. A model MuJoCo compiled says where each
joint's coordinates are in MuJoCo's ``qpos`` (:attr:`RobotJoint.qpos_address`,
:attr:`RobotModel.qpos_size`), so a recorded MuJoCo state poses every joint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray

__all__ = [
    "IDENTITY",
    "JointType",
    "LinkVisual",
    "Mimic",
    "RobotJoint",
    "RobotModel",
]

IDENTITY: FloatArray = np.eye(4)
IDENTITY.setflags(write=False)


class JointType(StrEnum):
    """How a joint of a description moves."""

    REVOLUTE = "revolute"
    CONTINUOUS = "continuous"
    PRISMATIC = "prismatic"
    FIXED = "fixed"
    FLOATING = "floating"
    """Six degrees of freedom: a base pose, posed from a recorded pose channel."""
    BALL = "ball"
    """Three rotational degrees of freedom about a point (an MJCF ball joint)."""

    @property
    def moves(self) -> bool:
        """Whether one recorded value moves it (revolute, continuous, prismatic)."""
        return self in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC)


@dataclass(frozen=True)
class Mimic:
    """A joint that follows another: ``multiplier * q(joint) + offset``."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True, eq=False)
class RobotJoint:
    """One joint: what it joins, where, and how it moves."""

    name: str
    type: JointType
    parent: int
    """Index of the parent link in :attr:`RobotModel.links`."""
    child: int
    """Index of the child link."""
    origin: FloatArray = field(default_factory=lambda: IDENTITY)
    """(4, 4): the joint frame in the parent link's frame."""
    axis: FloatArray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    """(3,) unit axis in the joint frame."""
    after: FloatArray = field(default_factory=lambda: IDENTITY)
    """(4, 4): the child link's frame in the moved joint frame."""
    lower: float | None = None
    """Lower limit (radians or metres), when the description gives one."""
    upper: float | None = None
    mimic: Mimic | None = None
    offset: float = 0.0
    """Added to the value before it moves the joint (an MJCF reference angle)."""
    rest: FloatArray = field(default_factory=lambda: IDENTITY)
    """(4, 4): a floating or ball joint's motion when nothing drives it (an
    MJCF free joint, whose ``origin`` is its parent's frame: its body's pose)."""
    qpos_address: int | None = None
    """Where the joint's coordinates start in MuJoCo's ``qpos`` (a model
    MuJoCo compiled), else ``None``."""


@dataclass(frozen=True, eq=False)
class LinkVisual:
    """One drawn shape: triangles in the frame of the link that carries it."""

    link: int
    """Index into :attr:`RobotModel.links`."""
    name: str
    vertices_m: FloatArray
    """(N, 3), in the link's frame."""
    faces: npt.NDArray[np.int64]
    """(M, 3) indices into ``vertices_m``."""
    rgba: tuple[float, float, float, float] = (0.7, 0.7, 0.72, 1.0)


@dataclass(frozen=True, eq=False)
class RobotModel:
    """A robot read from its description, ready to pose and draw.

    ``joints`` are in tree order: a joint's parent link is the root or the
    child of an earlier joint, so posing runs through them once.
    """

    name: str
    path: str
    """Where the description came from (a file, or a topic of a recording)."""
    links: tuple[str, ...]
    root: int
    joints: tuple[RobotJoint, ...]
    visuals: tuple[LinkVisual, ...] = ()
    warnings: tuple[str, ...] = ()
    """One line per problem that did not stop loading (a missing mesh)."""
    hidden_links: frozenset[int] = frozenset()
    """Links that exist only to chain several joints of one body (MJCF);
    posed, never listed as channels."""
    framed_links: frozenset[int] = frozenset()
    """Links a visual of which could not be read (a mesh missing or over its
    budget, said in :attr:`warnings`): drawn as a frame instead."""
    qpos_size: int = 0
    """MuJoCo's ``nq`` of a model MuJoCo compiled (0: not one)."""
    qvel_size: int = 0
    """MuJoCo's ``nv`` of a model MuJoCo compiled (0: not one)."""

    @property
    def moving_joints(self) -> tuple[RobotJoint, ...]:
        """The joints one recorded value moves and that follow no other."""
        return tuple(j for j in self.joints if j.type.moves and j.mimic is None)

    @property
    def triangles(self) -> int:
        """Triangles of every visual together."""
        return sum(len(visual.faces) for visual in self.visuals)

    def joint_named(self, name: str) -> RobotJoint | None:
        """Return the joint called ``name``, or ``None``."""
        for joint in self.joints:
            if joint.name == name:
                return joint
        return None
