"""The tip speed row: ``Tip speed: 0.512 m/s``, recorded or from the joint rates.

It applies when the recording names a ``tip speed`` readout, or has the arm's
kinematics and joints with their rates (the joint set's velocities): then the
speed is ``|J(q) dq|``.
"""

from __future__ import annotations

import numpy as np

from app.canvas.panel_rows.base import Moment, RowValue, Section, readout
from app.canvas.panel_rows.joints import has_joint_angles
from app.canvas.panel_rows.values import (
    finite,
    recorded_column,
    recorded_value,
)
from app.canvas.shown_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "TipSpeedRow"]

#: The readout label of a recorded tip speed.
_RECORDED: str = "tip speed"


class TipSpeedRow:
    """How fast the arm's tip moves."""

    name = "tip_speed"
    label = "Tip speed"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        if recorded_column(model, _RECORDED) is not None:
            return True
        joints = model.joints
        return (
            model.kinematics is not None
            and has_joint_angles(model)
            and joints is not None
            and joints.velocities in model.channels
        )

    def value_at(self, moment: Moment) -> RowValue:
        speed = _tip_speed(moment)
        return readout(self.label, speed, lambda v: f"{fixed_text(v, 3)} m/s")


def _tip_speed(moment: Moment) -> float | None:
    """Return the recorded tip speed, else ``|J(q) dq|`` from the joint rates."""
    model, play_time_s = moment.model, moment.play_time_s
    recorded = recorded_value(model, _RECORDED, play_time_s)
    kinematics = model.kinematics
    q = moment.joint_angles
    if recorded is not None or kinematics is None or q is None:
        return recorded
    dq = moment.joint_rates
    if dq is None or dq.shape != q.shape or not np.isfinite(dq).all():
        return None
    with np.errstate(all="ignore"):
        return finite(float(kinematics.tip_speeds(q[None, :], dq[None, :])[0]))


ROW = TipSpeedRow()
"""The instance the registry lists."""
