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

Each name has one home: the row types in :mod:`app.canvas.panel_rows.base`,
the registry's in :mod:`app.canvas.panel_rows.registry`. The package itself
gives only the lookups that read a recording's rows, for callers outside
the panels (benchmarks, other parts' tests).
"""

from __future__ import annotations

from app.canvas.panel_rows.registry import row_value, row_values, rows_for

__all__ = ["row_value", "row_values", "rows_for"]
