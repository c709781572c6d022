"""What the robot overlays share: the posed robot's links and tip path.

A recording drawn with its robot (``--robot``, a description it carries) has
``metadata["robot"]`` and a ``robot/<link>`` pose channel per link
(:mod:`fsr_core.robots.posing`); these helpers read them once per canvas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel
from fsr_core.robots import ROBOT_PREFIX

if TYPE_CHECKING:
    from app.canvas.recording_canvas import RecordingCanvas

__all__ = ["has_robot", "trail"]


def has_robot(model: RecordingModel) -> bool:
    """Whether ``model`` is drawn with a robot model."""
    return isinstance(model.metadata.get("robot"), dict)


def trail(canvas: RecordingCanvas) -> tuple[FloatArray, FloatArray] | None:
    """Return ``(times_s, points (T, 3))`` of the trail link (once per canvas)."""

    def make() -> tuple[FloatArray, FloatArray] | None:
        robot = canvas.model.metadata.get("robot")
        name = robot.get("trail_link") if isinstance(robot, dict) else None
        channel = canvas.model.channels.get(f"{ROBOT_PREFIX}{name}")
        if channel is None or channel.width < 3:
            return None
        points = np.asarray(channel.values, dtype=np.float64)[:, :3]
        return np.asarray(channel.times_s, dtype=np.float64), points

    return canvas.memo("tip_trail.points", make)
