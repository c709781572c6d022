"""The task row: ``Task: pick the red cube``, where a task is recorded in words.

A dataset's language instruction (:attr:`RecordingModel.task_texts`). The
text comes from the file: it is made safe to show and elided when long.
"""

from __future__ import annotations

from typing import Final

from app.canvas.panel_rows.base import (
    MISSING_TEXT,
    Moment,
    RowLine,
    RowValue,
    Section,
)
from app.canvas.shown_text import visible_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "TaskRow"]

#: Characters of the task shown (the window wraps them over a few lines).
TASK_CHARS: Final = 400


class TaskRow:
    """The task in force at the play time."""

    name = "task"
    label = "Task"
    section = Section.CLOCK

    def applies(self, model: RecordingModel) -> bool:
        return bool(model.task_texts)

    def value_at(self, moment: Moment) -> RowValue:
        task = moment.model.task_text_at(moment.play_time_s)
        text = visible_text(f"Task: {task}", TASK_CHARS) if task else ""
        return RowValue(lines=(RowLine(text or f"Task: {MISSING_TEXT}", wrap=True),))


ROW = TaskRow()
"""The instance the registry lists."""
