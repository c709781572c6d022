"""The friction row: ``Friction: 0.400 N·m·s/rad``, where friction is recorded.

It applies when the recording names a ``friction`` readout column.
"""

from __future__ import annotations

from app.canvas.panel_rows.base import Moment, RowValue, Section, readout
from app.canvas.panel_rows.values import recorded_column, recorded_value
from app.canvas.shown_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "FrictionRow"]

#: The readout label of the recorded friction.
_RECORDED: str = "friction"


class FrictionRow:
    """The joint friction coefficient in force."""

    name = "friction"
    label = "Friction"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return recorded_column(model, _RECORDED) is not None

    def value_at(self, moment: Moment) -> RowValue:
        value = recorded_value(moment.model, _RECORDED, moment.play_time_s)
        return readout(self.label, value, lambda v: f"{fixed_text(v, 3)} N·m·s/rad")


ROW = FrictionRow()
"""The instance the registry lists."""
