"""The tip position row: ``Tip: (0.123, -0.456) m``, for a planar arm.

It applies when the recording has joint angles and the arm's kinematics.
"""

from __future__ import annotations

import numpy as np

from app.canvas.panel_rows.base import MISSING_TEXT, Moment, RowValue, Section, labelled
from app.canvas.panel_rows.joints import has_joint_angles
from app.canvas.shown_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "TipRow", "tip_xy_m"]


def tip_xy_m(moment: Moment) -> tuple[float, float] | None:
    """Return the tip's plane position at ``moment``, when the angles are known."""
    kinematics = moment.model.kinematics
    q = moment.joint_angles
    if kinematics is None or q is None or not np.isfinite(q).all():
        return None
    # Extreme finite values (1e308) overflow on the way; they show as inf/nan.
    with np.errstate(all="ignore"):
        point = kinematics.joint_positions(q)[-1]
    return float(point[0]), float(point[1])


class TipRow:
    """Where the arm's tip is."""

    name = "tip"
    label = "Tip"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return model.kinematics is not None and has_joint_angles(model)

    def value_at(self, moment: Moment) -> RowValue:
        tip = tip_xy_m(moment)
        if tip is None:
            return labelled(self.label, MISSING_TEXT)
        x_m, y_m = tip
        return labelled(self.label, f"({fixed_text(x_m, 3)}, {fixed_text(y_m, 3)}) m")


ROW = TipRow()
"""The instance the registry lists."""
