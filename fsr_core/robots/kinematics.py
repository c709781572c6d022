"""Forward kinematics over a whole take at once: every link's pose per frame.

:func:`link_transforms` poses every link of a :class:`RobotModel` for ``T``
frames of joint values in one pass through the joint tree, each step a
stacked ``(T, 4, 4)`` matrix product: a 10,000-frame episode costs a few
matrix products per joint, not 10,000 calls of a per-frame solver.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.calibration import matrices_from_quaternions, quaternions_from_matrices
from fsr_core.robots.description import JointType, RobotJoint, RobotModel

__all__ = ["joint_values", "link_poses", "link_transforms", "transforms_from_poses"]

_MATRIX_BYTES = 16 * 8
#: Joints moved by a whole transform, not by one value.
_WHOLE_MOTIONS: Final = frozenset({JointType.FLOATING, JointType.BALL})


def joint_values(robot: RobotModel, moving: FloatArray) -> dict[str, FloatArray]:
    """Return each moving or mimic joint's values ``(T,)`` by name.

    ``moving`` is ``(T, len(robot.moving_joints))``, in that order. A mimic
    joint follows its source (a mimic of a mimic included); one whose source
    moves nothing holds its offset.
    """
    values = {
        joint.name: moving[:, index] for index, joint in enumerate(robot.moving_joints)
    }
    frames = moving.shape[0]
    for joint in robot.joints:
        if joint.mimic is None or not joint.type.moves:
            continue
        source, multiplier, offset = (
            joint.mimic.joint,
            joint.mimic.multiplier,
            joint.mimic.offset,
        )
        seen = {joint.name}
        while source not in values and source not in seen:
            seen.add(source)
            follow = robot.joint_named(source)
            if follow is None or follow.mimic is None:
                break
            multiplier, offset = (
                multiplier * follow.mimic.multiplier,
                multiplier * follow.mimic.offset + offset,
            )
            source = follow.mimic.joint
        base = values.get(source)
        values[joint.name] = (
            np.full(frames, offset) if base is None else multiplier * base + offset
        )
    return values


def _motions(joint: RobotJoint, value: FloatArray) -> FloatArray:
    """``(T, 4, 4)``: the joint's own motion by ``value`` (radians or metres)."""
    frames = len(value)
    motion = np.zeros((frames, 4, 4))
    motion[:, 3, 3] = 1.0
    axis = joint.axis
    if joint.type is JointType.PRISMATIC:
        motion[:, 0, 0] = motion[:, 1, 1] = motion[:, 2, 2] = 1.0
        motion[:, :3, 3] = value[:, None] * axis
        return motion
    cross = np.array(
        [[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]]
    )
    outer = np.outer(axis, axis)
    cos, sin = np.cos(value)[:, None, None], np.sin(value)[:, None, None]
    motion[:, :3, :3] = cos * np.eye(3) + sin * cross + (1.0 - cos) * outer
    return motion


def transforms_from_poses(poses: FloatArray) -> FloatArray:
    """``(..., 4, 4)`` transforms of poses ``(..., 7)`` ``x y z qw qx qy qz``."""
    result = np.zeros((*poses.shape[:-1], 4, 4))
    result[..., :3, :3] = matrices_from_quaternions(poses[..., 3:], scalar_first=True)
    result[..., :3, 3] = poses[..., :3]
    result[..., 3, 3] = 1.0
    return result


def link_transforms(
    robot: RobotModel,
    moving: FloatArray,
    base: FloatArray | None = None,
    motions: Mapping[str, FloatArray] | None = None,
) -> FloatArray:
    """Return ``(T, links, 4, 4)``: every link's pose in the root's frame, per frame.

    ``moving`` is ``(T, len(robot.moving_joints))`` in radians and metres;
    ``base``, when given, ``(T, 7)`` poses ``x y z qw qx qy qz`` of the
    floating base: the motion of the first floating joint (an MJCF free
    joint), else the root's pose. Without it the base rests at its origin.
    ``motions`` gives floating and ball joints their motions ``(T, 4, 4)`` by
    name (a recorded MuJoCo state's), before ``base``; a floating or ball
    joint given none takes its rest motion.

    Raises
    ------
    LimitExceededError
        The result would exceed the memory budget.
    """
    frames = moving.shape[0]
    check_budget(MEMORY, frames * len(robot.links) * _MATRIX_BYTES, "link poses")
    world = np.zeros((frames, len(robot.links), 4, 4))
    world[:, robot.root] = np.eye(4)
    floating = next((j for j in robot.joints if j.type is JointType.FLOATING), None)
    if base is not None and floating is None:
        world[:, robot.root] = transforms_from_poses(base)
    values = joint_values(robot, moving)
    given = motions or {}
    for joint in robot.joints:
        parent = world[:, joint.parent]
        value = values.get(joint.name)
        if joint.type in _WHOLE_MOTIONS and joint.name in given:
            motion = given[joint.name]
        elif joint is floating and base is not None:
            motion = transforms_from_poses(base)
        elif joint.type in _WHOLE_MOTIONS:
            motion = np.broadcast_to(joint.rest, (frames, 4, 4))
        elif value is None:
            world[:, joint.child] = parent @ (joint.origin @ joint.after)
            continue
        else:
            motion = _motions(joint, value + joint.offset)
        moved: FloatArray = (parent @ joint.origin) @ motion
        world[:, joint.child] = moved @ joint.after
    return world


def link_poses(transforms: FloatArray) -> FloatArray:
    """``(..., 7)`` poses ``x y z qw qx qy qz`` of transforms ``(..., 4, 4)``."""
    xyzw = quaternions_from_matrices(transforms[..., :3, :3])
    return np.concatenate(
        [transforms[..., :3, 3], xyzw[..., 3:4], xyzw[..., :3]], axis=-1
    )
