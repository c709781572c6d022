"""The environment row: ``Environment env1 of 3``, for a batched run.

A batched simulation (Genesis with ``n_envs``) runs several environments at
once; the scene draws them side by side and the joints row shows one of them:
the one the view follows (View → Environment), else the first. This row says
which. Recordings of one environment have no row.
"""

from __future__ import annotations

from app.canvas.panel_rows.base import LineStyle, Moment, RowLine, RowValue, Section
from app.canvas.shown_text import visible_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "EnvironmentRow", "environments"]

#: Characters of an environment's name shown (names come from the file).
_NAME_CHARS = 40


def environments(model: RecordingModel) -> tuple[str, ...]:
    """Return the environments of a batched run, in order (empty: not batched)."""
    if model.joints is not None and len(model.joints.environments) > 1:
        return model.joints.environments
    groups = () if model.geometry is None else model.geometry.groups
    return groups if len(groups) > 1 else ()


class EnvironmentRow:
    """The environment of a batched run the panel follows, and how many there are."""

    name = "environment"
    label = "Environment"
    section = Section.CLOCK

    def applies(self, model: RecordingModel) -> bool:
        return bool(environments(model))

    def value_at(self, moment: Moment) -> RowValue:
        known = environments(moment.model)
        if not known:
            return RowValue()
        shown = moment.environment if moment.environment in known else known[0]
        text = f"Environment {visible_text(shown, _NAME_CHARS)} of {len(known)}"
        return RowValue(
            lines=(RowLine(text, LineStyle.MUTED),),
            value=float(known.index(shown)),
        )


ROW = EnvironmentRow()
"""The instance the registry lists."""
