"""Tasks of the planar arm: what the tip should do, and what the viewer draws.

A task is a frozen value with a ``kind``, a JSON form (``to_json`` /
``from_json``, plain lists, floats, ints and strings, so it fits both
canonical JSON and a TOML scenario table) and three views of itself:

- ``tip_reference(t_s)``: where the tip should be at a simulation time;
- ``active_target(t_s)``: the index of the target in effect, or None for tasks
  without targets;
- ``overlay_json(model)``: the task context a viewer draws, in plane
  coordinates (``(x, y)``, metres, ``y`` up; the recorder maps them to world
  coordinates).

The overlay object always has the same keys::

    {"kind": str,
     "targets": [{"label": str, "xy": [x, y], "tolerance_m": float}, ...],
     "active_index": int | None,   # at t = 0
     "switches": [[time_s, index], ...],
     "curve_xy": [[x, y], ...],     # 256 points of a periodic curve, closed
     "reference_xy": [[x, y], ...]} # a reference trajectory's samples

with empty lists where a task has no such part.
"""

from fsr_core.simulators.planar_arm.tasks.kinds import Task, task_from_json
from fsr_core.simulators.planar_arm.tasks.reaching import MultiTargetTask, ReachTask
from fsr_core.simulators.planar_arm.tasks.tracking import (
    CURVE_SAMPLES,
    CURVES,
    PeriodicCurveTask,
    ReferenceTrajectoryTask,
)

__all__ = [
    "CURVES",
    "CURVE_SAMPLES",
    "MultiTargetTask",
    "PeriodicCurveTask",
    "ReachTask",
    "ReferenceTrajectoryTask",
    "Task",
    "task_from_json",
]
