"""The joints row: every joint's value within its limits, its rate and effort.

It reads the model's :class:`~fsr_core.joint_set.JointSet` (whatever the
source: a planar arm, MuJoCo, skelarm, Genesis, a dataset's
``observation.state``, an MCAP ``JointState``): one value per joint, named as
the recording names it, in degrees for a revolute joint and metres for a
prismatic one (converted from the unit the source gives), within its limits
when the source gives them, with its velocity and effort when recorded, and
grouped by arm when there are several. A recording without joints says so in
one muted line.
"""

from __future__ import annotations

import math
from typing import Final

from app.canvas.panel_rows.base import (
    JointsGroup,
    JointValue,
    LineStyle,
    Moment,
    RowLine,
    RowValue,
    Section,
)
from app.canvas.panel_rows.values import finite
from fsr_core.arrays import FloatArray
from fsr_core.joint_set import JointSet
from fsr_core.recording import RecordingModel

__all__ = ["NO_JOINTS_TEXT", "ROW", "JointsRow", "has_joint_angles"]

#: What the row says for a recording without joints.
NO_JOINTS_TEXT: Final = "No joint angles recorded"


def has_joint_angles(model: RecordingModel) -> bool:
    """Say whether ``model`` records joint positions (never reads them)."""
    return model.joint_channel is not None


class JointsRow:
    """A line per joint (each panel draws it with a bar); or that there are none."""

    name = "joints"
    label = "Joints"
    section = Section.JOINTS

    def applies(self, model: RecordingModel) -> bool:
        return True

    def value_at(self, moment: Moment) -> RowValue:
        joints = moment.joint_set
        if joints is None or joints.positions not in moment.model.channels:
            return RowValue(lines=(RowLine(NO_JOINTS_TEXT, LineStyle.MUTED),))
        groups = joints.groups()
        return RowValue(
            joints=_joint_values(moment, joints),
            groups=tuple(JointsGroup(group.name, group.indices) for group in groups)
            if len(groups) > 1
            else (),
        )


def _column(
    sample: FloatArray | None, columns: tuple[int, ...], index: int
) -> float | None:
    if sample is None or index >= len(columns) or not 0 <= columns[index] < len(sample):
        return None
    return finite(float(sample[columns[index]]))


def _recorded(channel: str | None, value: float | None) -> float | None:
    """Return ``value``; NaN for a recorded one unknown now, ``None`` if unrecorded."""
    if channel is None:
        return None
    return math.nan if value is None else value


def _joint_values(moment: Moment, joints: JointSet) -> tuple[JointValue, ...]:
    positions = moment.joint_angles
    rates = moment.joint_rates
    efforts = moment.sample(joints.efforts)
    found = []
    for index, joint in enumerate(joints.joints):
        rate = None if rates is None else finite(float(rates[index]))
        effort = _column(efforts, joints.effort_columns, index)
        value = math.nan if positions is None else float(positions[index])
        found.append(
            JointValue(
                name=joint.name,
                value=value,
                lower=joint.lower,
                upper=joint.upper,
                kind=joint.kind,
                velocity=_recorded(joints.velocities, rate),
                effort=_recorded(joints.efforts, effort),
                share=joint.unit == "%"
                and (joint.lower is None or joint.upper is None),
            )
        )
    return tuple(found)


ROW = JointsRow()
"""The instance the registry lists."""
