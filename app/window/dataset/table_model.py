"""The overview's table: one row per checked entry, one column per metric.

Columns: the entry; "flagged", a box the user ticks or clears (their
verdict, :mod:`~app.window.dataset.manual_flags`); its flag count and its
flags' kinds; its metrics (:data:`~app.window.dataset.outcomes.METRICS`). Every cell
is plain text from the recording; :data:`SORT_ROLE` gives the value a
column sorts by (numbers as numbers, a missing one last), so a
``QSortFilterProxyModel`` over it sorts right. A value beyond its dataset's
fence is drawn in the outlier colour.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor

from app.window.dataset.outcomes import METRICS, DatasetOverviewData, EntryRow
from app.window.widgets.flag_text import flag_line
from app.window.widgets.plain_text import tooltip_lines_html, visible_text

__all__ = [
    "FLAGGED_COLUMN",
    "KINDS_COLUMN",
    "OUTLIER_COLOR",
    "SORT_ROLE",
    "DatasetTableModel",
]

#: Item data role of the value a column sorts by (float, or str for names).
SORT_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 11
#: Text colour of a value beyond its dataset's fence.
OUTLIER_COLOR: Final = QColor(200, 40, 40)

_HEADINGS: Final = (
    "entry",
    "flagged",
    "flags",
    "kinds",
    *(heading for _, heading, _ in METRICS),
)
#: The column of the user's box.
FLAGGED_COLUMN: Final = 1
_COUNT_COLUMN: Final = 2
#: The column of the flags' kinds.
KINDS_COLUMN: Final = 3
_FIRST_METRIC: Final = 4
#: The columns of numbers (aligned right).
_NUMBER_COLUMNS: Final = frozenset(
    (_COUNT_COLUMN, *range(_FIRST_METRIC, len(_HEADINGS)))
)
#: Sort value of a missing number: after every number, either way round.
_MISSING: Final = math.inf
#: From this size on a metric is shown whole (its digits, not an exponent).
_WHOLE_FROM: Final = 1000.0

_Index = QModelIndex | QPersistentModelIndex


class DatasetTableModel(QAbstractTableModel):
    """The checked entries; ``is_flagged(row)`` says whether each is flagged."""

    #: The user ticked or cleared the box of the entry at this row.
    flag_toggled = Signal(int, bool)

    def __init__(
        self,
        is_flagged: Callable[[EntryRow], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._rows: tuple[EntryRow, ...] = ()
        self._is_flagged = is_flagged

    # -- content ----------------------------------------------------------

    def set_data(self, data: DatasetOverviewData) -> None:
        """Show ``data``'s rows (in playlist order; the view sorts)."""
        self.beginResetModel()
        self._rows = data.rows
        self.endResetModel()

    def entry_row(self, row: int) -> EntryRow:
        """Return the entry shown at model row ``row``."""
        return self._rows[row]

    def refresh_flagged(self) -> None:
        """Redraw the "flagged" column (a verdict changed)."""
        if self._rows:
            top = self.index(0, FLAGGED_COLUMN)
            bottom = self.index(len(self._rows) - 1, FLAGGED_COLUMN)
            self.dataChanged.emit(top, bottom)

    # -- Qt model ---------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        """Return the number of checked entries (Qt override)."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        """Return the number of columns (Qt override)."""
        return 0 if parent.isValid() else len(_HEADINGS)

    def headerData(  # noqa: N802
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        """Return the column headings (Qt override)."""
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(_HEADINGS)
        ):
            # Two short lines rather than one wide column.
            return _HEADINGS[section].replace(" ", "\n", 1)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Rows select whole; the "flagged" box is the user's (Qt override)."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == FLAGGED_COLUMN:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Return a cell's text, sort value, colour or box (Qt override)."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        entry = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(entry, column)
        if role == SORT_ROLE:
            return self._sort_value(entry, column)
        if role == Qt.ItemDataRole.CheckStateRole and column == FLAGGED_COLUMN:
            flagged = self._is_flagged(entry)
            return Qt.CheckState.Checked if flagged else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._color(entry, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(  # noqa: N802
        self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole
    ) -> bool:
        """Take the user's tick in the "flagged" column (Qt override)."""
        if (
            not index.isValid()
            or index.column() != FLAGGED_COLUMN
            or role != Qt.ItemDataRole.CheckStateRole
        ):
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked
        self.flag_toggled.emit(index.row(), checked)
        self.dataChanged.emit(index, index)
        return True

    # -- cells ------------------------------------------------------------

    @staticmethod
    def _metric(entry: EntryRow, column: int) -> tuple[str, float | None, str]:
        key, _, fmt = METRICS[column - _FIRST_METRIC]
        return key, entry.values.get(key), fmt

    def _text(self, entry: EntryRow, column: int) -> str:
        if column == 0:
            return visible_text(entry.outcome.member)
        if column >= _FIRST_METRIC:
            _, value, fmt = self._metric(entry, column)
            if value is None:
                return "—"
            if not math.isfinite(value):
                return str(value)  # nan, inf
            if fmt == "d" or abs(value) >= _WHOLE_FROM:
                return format(round(value), "d")  # 5841, not 5.84e+03
            return format(value, fmt)
        if column == _COUNT_COLUMN:
            return "—" if entry.outcome.error else str(len(entry.flags))
        if column == KINDS_COLUMN:
            if entry.outcome.error:
                return visible_text(f"not checked: {entry.outcome.error}")
            kinds = dict.fromkeys(flag.kind.value for flag in entry.flags)
            return ", ".join(kinds)
        return ""

    def _sort_value(self, entry: EntryRow, column: int) -> float | str:
        if column == 0:
            return entry.outcome.member
        if column >= _FIRST_METRIC:
            _, value, _ = self._metric(entry, column)
            return _MISSING if value is None else float(value)
        if column == _COUNT_COLUMN:
            return float(len(entry.flags))
        if column == KINDS_COLUMN:
            return self._text(entry, column)
        return float(self._is_flagged(entry))

    def _color(self, entry: EntryRow, column: int) -> QColor | None:
        if column >= _FIRST_METRIC:
            key, _, _ = self._metric(entry, column)
            if key in entry.outliers:
                return OUTLIER_COLOR
        if column == KINDS_COLUMN and entry.outcome.error:
            return OUTLIER_COLOR
        return None

    @staticmethod
    def _tooltip(entry: EntryRow) -> str:
        lines = [str(entry.path)]
        if entry.outcome.error:
            lines.append(entry.outcome.error)
        lines.extend(flag_line(flag) for flag in entry.flags)
        return tooltip_lines_html(lines)
