"""Every joint of a model MuJoCo compiled, posed from a recorded MuJoCo state.

robosuite records its simulation per step as ``sim.get_state().flatten()``:
``[time, qpos (nq), qvel (nv)]`` (``MjSimState.flatten`` in robosuite's
``utils/binding_utils.py``). A model MuJoCo compiled keeps each joint's
``qpos`` address (:attr:`~fsr_core.robots.description.RobotJoint.qpos_address`),
so such a state poses every joint as MuJoCo's own kinematics does:

* a hinge or a slide by its one coordinate (less its ``qpos0``, as every
  MJCF joint's :attr:`~fsr_core.robots.description.RobotJoint.offset` says);
* a free joint by its seven, ``x y z qw qx qy qz``: its body's pose in the
  world;
* a ball joint by its four, ``qw qx qy qz``: its body's turn about the
  joint's anchor.

A sample whose coordinates of a joint are not finite (or a quaternion of
zero length) leaves that joint at rest for that sample.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.robots.description import JointType, RobotModel
from fsr_core.robots.kinematics import transforms_from_poses

__all__ = ["state_mismatch", "state_motions", "state_moving"]

_TIME_COLUMNS: Final = 1
"""Columns of the state before ``qpos``: the simulation time."""
_FREE_SIZE: Final = 7
_BALL_SIZE: Final = 4


def state_mismatch(robot: RobotModel, width: int) -> str | None:
    """Return why a state of ``width`` columns cannot pose ``robot`` (``None``: it can).

    It can when the robot is a model MuJoCo compiled and ``width`` is
    ``1 + nq + nv`` of that model.
    """
    if robot.qpos_size <= 0:
        return f"{robot.name!r} is no model MuJoCo compiled"
    expected = _TIME_COLUMNS + robot.qpos_size + robot.qvel_size
    if width != expected:
        return (
            f"{width} columns where {robot.name!r} has 1 + nq + nv = "
            f"1 + {robot.qpos_size} + {robot.qvel_size} = {expected}"
        )
    return None


def _qpos(state: FloatArray, robot: RobotModel) -> FloatArray:
    return state[:, _TIME_COLUMNS : _TIME_COLUMNS + robot.qpos_size]


def state_moving(
    robot: RobotModel, state: FloatArray, moving: FloatArray
) -> FloatArray:
    """Return ``moving`` with each hinge and slide taken from ``state``.

    ``state`` is ``(T, 1 + nq + nv)`` (checked by :func:`state_mismatch`),
    ``moving`` ``(T, len(robot.moving_joints))``; a joint without an address
    or a coordinate that is not finite keeps its value in ``moving``.
    """
    qpos = _qpos(state, robot)
    result = np.array(moving, dtype=np.float64)
    for index, joint in enumerate(robot.moving_joints):
        if joint.qpos_address is None:
            continue
        column = qpos[:, joint.qpos_address]
        result[:, index] = np.where(np.isfinite(column), column, result[:, index])
    return result


def state_motions(robot: RobotModel, state: FloatArray) -> dict[str, FloatArray]:
    """Return each free and ball joint's motion ``(T, 4, 4)`` in ``state``, by name."""
    qpos = _qpos(state, robot)
    found: dict[str, FloatArray] = {}
    for joint in robot.joints:
        start = joint.qpos_address
        if start is None:
            continue
        if joint.type is JointType.FLOATING:
            motion = transforms_from_poses(qpos[:, start : start + _FREE_SIZE])
        elif joint.type is JointType.BALL:
            motion = np.zeros((len(qpos), 4, 4))
            motion[:, :3, :3] = matrices_from_quaternions(
                qpos[:, start : start + _BALL_SIZE], scalar_first=True
            )
            motion[:, 3, 3] = 1.0
        else:
            continue
        usable = np.asarray(np.isfinite(motion).all(axis=(1, 2)))
        found[joint.name] = np.where(usable[:, None, None], motion, joint.rest)
    return found
