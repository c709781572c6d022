"""The play time row: ``t = 1.25 s``, in every recording."""

from __future__ import annotations

from app.canvas.panel_rows.base import LineStyle, Moment, RowLine, RowValue, Section
from app.canvas.shown_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "PlayTimeRow"]


class PlayTimeRow:
    """The play time, large: the first thing both panels show."""

    name = "time"
    label = "Time"
    section = Section.CLOCK

    def applies(self, model: RecordingModel) -> bool:
        return True

    def value_at(self, moment: Moment) -> RowValue:
        text = f"t = {fixed_text(moment.play_time_s, 2)} s"
        return RowValue(
            lines=(RowLine(text, LineStyle.TITLE, wrap=True),),
            value=moment.play_time_s,
        )


ROW = PlayTimeRow()
"""The instance the registry lists."""
