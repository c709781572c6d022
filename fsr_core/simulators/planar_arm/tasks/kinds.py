"""Every planar-arm task kind, and building a task from its JSON form."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

from fsr_core.simulators.planar_arm.tasks._checks import fail
from fsr_core.simulators.planar_arm.tasks.reaching import MultiTargetTask, ReachTask
from fsr_core.simulators.planar_arm.tasks.tracking import (
    PeriodicCurveTask,
    ReferenceTrajectoryTask,
)

__all__ = ["Task", "task_from_json"]

#: Any planar-arm task.
Task: TypeAlias = (
    ReachTask | MultiTargetTask | PeriodicCurveTask | ReferenceTrajectoryTask
)

_TASKS: Final[Mapping[str, Callable[[object], Task]]] = {
    ReachTask.kind: ReachTask.from_json,
    MultiTargetTask.kind: MultiTargetTask.from_json,
    PeriodicCurveTask.kind: PeriodicCurveTask.from_json,
    ReferenceTrajectoryTask.kind: ReferenceTrajectoryTask.from_json,
}


def task_from_json(obj: object) -> Task:
    """Build a task from its JSON form, dispatching on ``kind``.

    Parameters
    ----------
    obj
        A task's :meth:`to_json` value (or a hand-written TOML ``[task]``).

    Returns
    -------
    Task
        The task.

    Raises
    ------
    SchemaError
        Not an object, an unknown kind, or an invalid task.
    """
    if not isinstance(obj, Mapping):
        raise fail(f"a task must be an object, found {obj!r}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _TASKS:
        options = ", ".join(sorted(_TASKS))
        raise fail(f"task kind must be one of {options}, found {kind!r}")
    return _TASKS[kind](obj)
