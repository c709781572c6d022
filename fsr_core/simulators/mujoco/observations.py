"""The numeric observation record of a MuJoCo step: its channels and units.

One atomic record per step holds ``qpos``, ``qvel``, ``ctrl``, the actuator
forces and every sensor value, named after the MJCF objects
(``qpos.shoulder``, ``qvel.box.wx``, ``force.elbow``, ``sensor.touch``).
Units follow each joint's type: a hinge is in ``rad`` (``rad/s``), a slide in
``m`` (``m/s``); a free joint is a position in ``m`` and a unit quaternion
(``1``), a ball joint a quaternion; their velocities are ``m/s`` and
``rad/s``. Sensor units follow the sensor type.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.simulators.mujoco.model_session import LoadedModel

__all__ = ["OBSERVATIONS", "observation_channels", "observation_row"]

OBSERVATIONS: Final = "observations.mujoco"
"""The step's atomic observation record (:func:`observation_channels`)."""


_SENSOR_UNITS = {
    "TOUCH": "N", "ACCELEROMETER": "m/s^2", "VELOCIMETER": "m/s", "GYRO": "rad/s",
    "FORCE": "N", "TORQUE": "N*m", "MAGNETOMETER": "T", "RANGEFINDER": "m",
    "JOINTPOS": "rad", "JOINTVEL": "rad/s", "ACTUATORFRC": "N*m", "FRAMEPOS": "m",
    "FRAMEQUAT": "1", "FRAMELINVEL": "m/s", "FRAMEANGVEL": "rad/s",
    "FRAMELINACC": "m/s^2", "FRAMEANGACC": "rad/s^2", "SUBTREECOM": "m",
    "FRAMEXAXIS": "1", "FRAMEYAXIS": "1", "FRAMEZAXIS": "1", "GEOMDIST": "m",
}  # fmt: skip


def _joint_channels(loaded: LoadedModel) -> tuple[list[tuple[str, str]], ...]:
    mujoco, model = loaded.mujoco, loaded.model
    positions: list[tuple[str, str]] = []
    velocities: list[tuple[str, str]] = []
    kinds = mujoco.mjtJoint
    for joint in range(model.njnt):
        name = loaded.name(mujoco.mjtObj.mjOBJ_JOINT, joint, f"joint{joint}")
        kind = int(model.jnt_type[joint])
        if kind == int(kinds.mjJNT_FREE):
            positions += [(f"{name}.{a}", "m") for a in "xyz"]
            positions += [(f"{name}.q{a}", "1") for a in "wxyz"]
            velocities += [(f"{name}.v{a}", "m/s") for a in "xyz"]
            velocities += [(f"{name}.w{a}", "rad/s") for a in "xyz"]
        elif kind == int(kinds.mjJNT_BALL):
            positions += [(f"{name}.q{a}", "1") for a in "wxyz"]
            velocities += [(f"{name}.w{a}", "rad/s") for a in "xyz"]
        else:
            slide = kind == int(kinds.mjJNT_SLIDE)
            positions.append((name, "m" if slide else "rad"))
            velocities.append((name, "m/s" if slide else "rad/s"))
    return positions, velocities


def _sensor_channels(loaded: LoadedModel) -> list[tuple[str, str]]:
    mujoco, model = loaded.mujoco, loaded.model
    channels: list[tuple[str, str]] = []
    for sensor in range(model.nsensor):
        name = loaded.name(mujoco.mjtObj.mjOBJ_SENSOR, sensor, f"sensor{sensor}")
        kind = mujoco.mjtSensor(int(model.sensor_type[sensor])).name
        unit = _SENSOR_UNITS.get(kind.removeprefix("mjSENS_"), "")
        dim = int(model.sensor_dim[sensor])
        if dim == 1:
            channels.append((f"sensor.{name}", unit))
        else:
            channels += [(f"sensor.{name}.{i}", unit) for i in range(dim)]
    return channels


def observation_channels(loaded: LoadedModel) -> list[tuple[str, str]]:
    """Names and units of the per-step observation record, in order."""
    positions, velocities = _joint_channels(loaded)
    channels = [(f"qpos.{name}", unit) for name, unit in positions]
    channels += [(f"qvel.{name}", unit) for name, unit in velocities]
    for actuator in loaded.actuators:
        channels.append((f"ctrl.{actuator.name}", actuator.unit))
    torque = {"rad": "N*m", "m": "N", "rad/s": "N*m", "m/s": "N", "N*m": "N*m"}
    for actuator in loaded.actuators:
        channels.append((f"force.{actuator.name}", torque.get(actuator.unit, "N")))
    channels += _sensor_channels(loaded)
    channels.append(("contacts", "1"))
    return channels


def observation_row(loaded: LoadedModel) -> FloatArray:
    """Return the current state as one row matching :func:`observation_channels`."""
    data: Any = loaded.data
    row: FloatArray = np.concatenate(
        [
            data.qpos,
            data.qvel,
            data.ctrl,
            data.actuator_force,
            data.sensordata,
            [float(data.ncon)],
        ]
    )
    return row
