"""The registry of panel rows: which rows exist, in the order panels show them.

The built-in rows are listed in :data:`BUILTIN_ROWS`, one module each. Both
panels (the window's :class:`~app.window.widgets.side_panel.SidePanel` and the
exported :class:`~app.canvas.panel.ReadoutPanel`) show :func:`rows_for` a
recording, so a row registered with :func:`register_panel_row` shows in both
with no other change. Registering is for start-up (or a test); a panel picks
its rows when it is given a recording. No Qt.
"""

from __future__ import annotations

import threading
from typing import Final

from app.canvas.panel_rows import (
    active_target,
    environment,
    episode,
    force,
    friction,
    joints,
    play_time,
    task,
    ticks,
    tip,
    tip_speed,
)
from app.canvas.panel_rows.base import Moment, PanelRow, RowValue
from fsr_core.recording import RecordingModel

__all__ = [
    "BUILTIN_ROWS",
    "panel_rows",
    "register_panel_row",
    "row_value",
    "row_values",
    "rows_for",
    "unregister_panel_row",
]

BUILTIN_ROWS: Final[tuple[PanelRow, ...]] = (
    play_time.ROW,
    ticks.ROW,
    episode.ROW,
    environment.ROW,
    task.ROW,
    joints.ROW,
    tip.ROW,
    tip_speed.ROW,
    force.ROW,
    friction.ROW,
    active_target.ROW,
)
"""The built-in rows, in the order panels show them."""

_lock = threading.Lock()
_rows: tuple[PanelRow, ...] = BUILTIN_ROWS


def panel_rows() -> tuple[PanelRow, ...]:
    """Return every registered row, in the order panels show them."""
    return _rows


def register_panel_row(row: PanelRow, *, before: str | None = None) -> None:
    """Add ``row`` to the registry: last, or just before the row named ``before``.

    Raises
    ------
    ValueError
        A row of that name is registered already, or none is named ``before``.
    """
    global _rows  # one tuple, replaced whole under the lock: readers need none
    with _lock:
        names = [known.name for known in _rows]
        if row.name in names:
            raise ValueError(f"a panel row named {row.name!r} is registered already")
        if before is not None and before not in names:
            raise ValueError(f"no panel row named {before!r} to insert before")
        at = len(names) if before is None else names.index(before)
        _rows = (*_rows[:at], row, *_rows[at:])


def unregister_panel_row(name: str) -> None:
    """Remove the row named ``name`` (``KeyError`` when there is none)."""
    global _rows  # one tuple, replaced whole under the lock: readers need none
    with _lock:
        kept = tuple(row for row in _rows if row.name != name)
        if len(kept) == len(_rows):
            raise KeyError(name)
        _rows = kept


def rows_for(model: RecordingModel) -> tuple[PanelRow, ...]:
    """Return the registered rows ``model`` has, in order (reads no channel)."""
    return tuple(row for row in panel_rows() if row.applies(model))


def row_values(
    model: RecordingModel,
    rows: tuple[PanelRow, ...],
    play_time_s: float,
    *,
    environment: str = "",
    reads: bool = True,
) -> tuple[RowValue, ...]:
    """Return what each of ``rows`` shows for ``model`` at ``play_time_s``.

    ``environment`` and ``reads`` are the :class:`Moment`'s: the environment
    of a batched run followed, and whether channels not in memory may be read.
    """
    moment = Moment(model, float(play_time_s), environment, reads)
    return tuple(row.value_at(moment) for row in rows)


def row_value(model: RecordingModel, name: str, play_time_s: float) -> RowValue | None:
    """Return what the row ``name`` shows at ``play_time_s``, if ``model`` has it."""
    for row in rows_for(model):
        if row.name == name:
            return row.value_at(Moment(model, float(play_time_s)))
    return None
