"""Panel rows as plug-ins: each readout of the side panels is a row provider.

A row provider (:class:`PanelRow`) has a ``name``, a ``label`` and a
``section``; it says whether a recording has it (``applies(model)``: the
tick only where recorded, the joints only with joint angles, the force only
with an external-force channel, the episode only for a dataset's episode...)
and what it shows at a play time (``value_at(moment)``: text lines, and the
joints' values within their limits, with rates and efforts). The registry
(:mod:`app.canvas.panel_rows.registry`) lists them in order; the exported
panel (:mod:`app.canvas.panel`) paints them and the window's side panel
(:mod:`app.window.widgets.side_panel`) shows them as widgets, each only the
rows that apply. Everything here is plain Python and numpy, no Qt.
"""

from __future__ import annotations

from app.canvas.panel_rows.base import (
    MISSING_TEXT,
    JointLine,
    JointLineKind,
    JointsGroup,
    JointValue,
    LineStyle,
    Moment,
    PanelRow,
    RowLine,
    RowValue,
    Section,
    joint_lines,
    joint_name_text,
    labelled,
)
from app.canvas.panel_rows.registry import (
    BUILTIN_ROWS,
    panel_rows,
    register_panel_row,
    row_value,
    row_values,
    rows_for,
    unregister_panel_row,
)
from app.canvas.panel_rows.values import force_text

__all__ = [
    "BUILTIN_ROWS",
    "MISSING_TEXT",
    "JointLine",
    "JointLineKind",
    "JointValue",
    "JointsGroup",
    "LineStyle",
    "Moment",
    "PanelRow",
    "RowLine",
    "RowValue",
    "Section",
    "force_text",
    "joint_lines",
    "joint_name_text",
    "labelled",
    "panel_rows",
    "register_panel_row",
    "row_value",
    "row_values",
    "rows_for",
    "unregister_panel_row",
]
