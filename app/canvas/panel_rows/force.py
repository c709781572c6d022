"""The external force row: ``Ext. force: 12.3 N``, where a force is recorded.

It applies when the recording has an external-force channel; the value is
the magnitude of its first two columns (the force in the plane).
"""

from __future__ import annotations

import math

from app.canvas.panel_rows.base import Moment, RowValue, Section, readout
from app.canvas.panel_rows.values import channel_value, finite, force_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "ExternalForceRow"]


class ExternalForceRow:
    """The magnitude of the external force pushing the arm."""

    name = "ext_force"
    label = "Ext. force"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return model.external_force_channel in model.channels

    def value_at(self, moment: Moment) -> RowValue:
        model = moment.model
        force = channel_value(model, model.external_force_channel, moment.play_time_s)
        value = None
        if force is not None and len(force) >= 2:
            value = finite(math.hypot(force[0], force[1]))
        return readout(self.label, value, lambda v: f"{force_text(v)} N")


ROW = ExternalForceRow()
"""The instance the registry lists."""
