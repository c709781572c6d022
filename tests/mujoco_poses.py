"""Compare a model's ``robot/<body>`` pose channels with MuJoCo's own kinematics.

The tests that open a recording with an MJCF (``tests/core/robots``,
``tests/core/mujoco``) take MuJoCo's ``mj_kinematics`` on the recorded joints,
or the poses MuJoCo recorded, as the truth; a pose is
``x, y, z, qw, qx, qy, qz`` and a quaternion equals its negation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsr_core.recording import RecordingModel

__all__ = ["assert_bodies_as_mujoco", "assert_same_rotation"]


def assert_same_rotation(
    ours_wxyz: np.ndarray, theirs_wxyz: np.ndarray, atol: float
) -> None:
    """Assert the quaternions (last axis ``wxyz``) are the same rotations."""
    sign = np.where(
        np.sum(ours_wxyz * theirs_wxyz, axis=-1, keepdims=True) < 0, -1.0, 1.0
    )
    np.testing.assert_allclose(sign * ours_wxyz, theirs_wxyz, atol=atol)


def assert_bodies_as_mujoco(
    model: RecordingModel, reference: Any, data: Any, row: int, atol: float
) -> None:
    """Assert every body's pose at ``row`` is MuJoCo's for ``data.qpos``.

    ``reference`` is the compiled ``MjModel`` and ``data`` its ``MjData``,
    its ``qpos`` set to the recorded joints of that row.
    """
    import mujoco

    mujoco.mj_kinematics(reference, data)
    for body in range(1, reference.nbody):
        name = mujoco.mj_id2name(reference, mujoco.mjtObj.mjOBJ_BODY, body)
        pose = model.channels[f"robot/{name}"].values[row]
        np.testing.assert_allclose(pose[:3], data.xpos[body], atol=atol)
        assert_same_rotation(pose[3:], data.xquat[body], atol)
