"""The joints row: each joint's angle on a slider within its limits.

It applies when the recording has joint angles (a joint channel); limits come
from the planar kinematics, else ±180° is assumed.
"""

from __future__ import annotations

import math
from typing import Final

from app.canvas.panel_rows.base import JointValue, Moment, RowValue, Section
from fsr_core.arrays import FloatArray
from fsr_core.recording import PlanarKinematics, RecordingModel

__all__ = ["ROW", "JointsRow", "has_joint_angles"]

#: Joint limit assumed when the recording gives none (or a non-finite one).
_DEFAULT_LIMIT_RAD: Final = math.pi


def has_joint_angles(model: RecordingModel) -> bool:
    """Say whether ``model`` records joint angles (never reads them)."""
    return model.joint_channel is not None and model.joint_channel in model.channels


class JointsRow:
    """One slider per joint; no text lines (each panel labels its sliders)."""

    name = "joints"
    label = "Joints"
    section = Section.JOINTS

    def applies(self, model: RecordingModel) -> bool:
        return has_joint_angles(model)

    def value_at(self, moment: Moment) -> RowValue:
        return RowValue(joints=_joints(moment.model.kinematics, moment.joint_angles))


def _limit(values: FloatArray | None, index: int, default: float) -> float:
    if values is None or index >= len(values) or not math.isfinite(values[index]):
        return default
    return float(values[index])


def _joints(
    kinematics: PlanarKinematics | None, q: FloatArray | None
) -> tuple[JointValue, ...]:
    if q is None:
        return ()
    q_min = None if kinematics is None else kinematics.q_min_rad
    q_max = None if kinematics is None else kinematics.q_max_rad
    return tuple(
        JointValue(
            angle_rad=float(angle),
            q_min_rad=_limit(q_min, index, -_DEFAULT_LIMIT_RAD),
            q_max_rad=_limit(q_max, index, _DEFAULT_LIMIT_RAD),
        )
        for index, angle in enumerate(q)
    )


ROW = JointsRow()
"""The instance the registry lists."""
