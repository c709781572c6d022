"""The active target row: ``Active target: 2``, for a task with targets.

It applies when the recording has an active-target channel and its task
overlays have targets; the value is the target's number, counted from 1.
"""

from __future__ import annotations

import math

from app.canvas.panel_rows.base import Moment, RowValue, Section, readout
from app.canvas.panel_rows.values import channel_value
from app.canvas.shown_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "ActiveTargetRow"]


class ActiveTargetRow:
    """Which of the task's targets the arm is going for."""

    name = "active_target"
    label = "Active target"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return model.active_target_channel in model.channels and any(
            overlay.targets_xy for overlay in model.overlays.values()
        )

    def value_at(self, moment: Moment) -> RowValue:
        return readout(self.label, _active_target(moment), lambda v: fixed_text(v, 0))


def _active_target(moment: Moment) -> float | None:
    """Return the 1-based number of the active target, when there are targets."""
    model, play_time_s = moment.model, moment.play_time_s
    active = channel_value(model, model.active_target_channel, play_time_s)
    overlay = model.overlay_at(play_time_s)
    if active is None or overlay is None or not overlay.targets_xy:
        return None
    if not math.isfinite(active[0]):
        return None
    return float(round(float(active[0])) + 1)


ROW = ActiveTargetRow()
"""The instance the registry lists."""
