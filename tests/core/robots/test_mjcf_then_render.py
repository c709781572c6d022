"""A process that compiled an MJCF robot first still renders MuJoCo offscreen.

MuJoCo takes its OpenGL backend from ``MUJOCO_GL`` when it is first
imported; the robot models' MJCF compiler may be that first import (a robot
shown before a MuJoCo recording's cameras are rendered), so it chooses the
offscreen backend first, as the MuJoCo simulator does.
"""

from __future__ import annotations

import os

from python_probe import run_python

FRANKA = "tests/data/robots/franka_sim/franka_panda.xml"

_PROBE = f"""
from pathlib import Path
from fsr_core.robots.mjcf import read_mjcf
read_mjcf(Path({FRANKA!r}))
import mujoco
model = mujoco.MjModel.from_xml_string(
    "<mujoco><worldbody><light pos='0 0 1'/><geom size='.1'/></worldbody></mujoco>"
)
renderer = mujoco.Renderer(model, 24, 32)
renderer.update_scene(mujoco.MjData(model))
print(renderer.render().shape)
"""


def test_a_robot_compiled_first_leaves_offscreen_rendering_working() -> None:
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("MUJOCO_GL", "PYOPENGL_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")
    }

    run = run_python(["-c", _PROBE], env=environment)

    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "(24, 32, 3)"
