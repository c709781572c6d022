"""The playlist: files in play order, each with its integrity state, and the current.

A Qt list model, so the dock's ``QListView`` shows it directly: the name
(``▶`` marks the playing file), the full path and the reason on hover, and
through extra roles a badge with the integrity state and whether the file
can be played (the dock greys out the rows that cannot). Once the Dataset
overview has checked an entry, a second badge says how it was flagged (the
worst kind and the count, or the user's own flag).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

__all__ = [
    "BADGE_ROLE",
    "FLAG_BADGE_ROLE",
    "FLAG_LEVEL_ROLE",
    "PATH_ROLE",
    "PLAYABLE_ROLE",
    "EntryState",
    "PlaylistEntry",
    "PlaylistModel",
]

PLAYING_MARK: Final = "▶ "
#: Item data role of an entry's badge text ("valid", "recovered", ...).
BADGE_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 1
#: Item data role of an entry's path (a ``str``).
PATH_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 2
#: Item data role: whether the entry can be played (views grey it out if not).
PLAYABLE_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 3
#: Item data role of an entry's flag badge ("jerk +1", "flagged"; '' for none).
FLAG_BADGE_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 4
#: Item data role of how bad its flags are ("error", "outlier", "warning", "manual").
FLAG_LEVEL_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 5

_Index = QModelIndex | QPersistentModelIndex


class EntryState(StrEnum):
    """What is known about a playlist file."""

    PENDING = "checking"
    VALID = "valid"
    UNVERIFIED = "integrity not verified"
    LIVE = "live"
    """Being written and followed; checked once its writer finishes."""
    RECOVERED = "recovered"
    DEGRADED = "degraded"
    INVALID = "invalid"

    @property
    def playable(self) -> bool:
        """Whether the file can be opened and played."""
        return self is not EntryState.INVALID


@dataclass(frozen=True)
class PlaylistEntry:
    """One file of the playlist (small: no index, no data)."""

    path: Path
    state: EntryState = EntryState.PENDING
    reason: str = ""
    summary: str = ""
    """Length and task of an episode, once checked ('' for plain files)."""
    flag_badge: str = ""
    """What its flags badge says ('' when not flagged, or not checked yet)."""
    flag_level: str = ""
    """How bad its worst flag is (the badge's colour)."""
    flag_lines: tuple[str, ...] = ()
    """One line per flag, for the tooltip."""

    @property
    def name(self) -> str:
        """The file's name as listed."""
        return self.path.name

    @property
    def label(self) -> str:
        """The row's text: the name, then the summary when there is one."""
        return f"{self.name} · {self.summary}" if self.summary else self.name

    @property
    def tooltip(self) -> str:
        """Full path, summary, state and reason (plain text)."""
        lines = [
            str(self.path),
            *([self.summary] if self.summary else []),
            self.state.value,
        ]
        if self.reason:
            lines.append(self.reason)
        lines.extend(self.flag_lines)
        return "\n".join(lines)


class PlaylistModel(QAbstractListModel):
    """Files in play order and the one playing."""

    #: The playing row changed (-1: none).
    current_changed = Signal(int)
    #: An entry's integrity state became known or changed.
    entry_changed = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[PlaylistEntry] = []
        self._current = -1

    # -- Qt model ---------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        """Return the number of files (Qt override)."""
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Return what the list view shows for ``index`` (Qt override)."""
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        row = index.row()
        entry = self._entries[row]
        if role == Qt.ItemDataRole.DisplayRole:
            mark = PLAYING_MARK if row == self._current else ""
            return f"{mark}{entry.label}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return entry.tooltip
        if role == PLAYABLE_ROLE:
            return entry.state.playable
        if role == BADGE_ROLE:
            return entry.state.value
        if role == PATH_ROLE:
            return str(entry.path)
        if role == FLAG_BADGE_ROLE:
            return entry.flag_badge
        if role == FLAG_LEVEL_ROLE:
            return entry.flag_level
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Return the item flags: rows stay selectable, greyed when unplayable."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    # -- entries ----------------------------------------------------------

    @property
    def entries(self) -> tuple[PlaylistEntry, ...]:
        """All entries, in play order."""
        return tuple(self._entries)

    def entry(self, row: int) -> PlaylistEntry:
        """Return the entry at ``row``."""
        return self._entries[row]

    @property
    def current(self) -> int:
        """The playing row, or -1."""
        return self._current

    def add_paths(self, paths: list[Path], *, at: int | None = None) -> list[int]:
        """Add files before row ``at`` (default: the end); return their rows.

        A file already listed is not added twice. The playing row keeps
        pointing at the same file when rows are inserted before it.
        """
        known = {entry.path.resolve() for entry in self._entries}
        fresh: list[Path] = []
        for path in paths:
            resolved = path.resolve()
            if resolved not in known:
                known.add(resolved)
                fresh.append(path)
        if not fresh:
            return []
        count = len(self._entries)
        first = count if at is None else min(max(at, 0), count)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        self._entries[first:first] = [PlaylistEntry(path) for path in fresh]
        if self._current >= first:
            self._current += len(fresh)
        self.endInsertRows()
        return list(range(first, first + len(fresh)))

    def row_of(self, path: Path) -> int:
        """Return the row of ``path``, or -1."""
        resolved = path.resolve()
        for row, entry in enumerate(self._entries):
            if entry.path.resolve() == resolved:
                return row
        return -1

    def _change(self, row: int, **fields: Any) -> bool:
        """Give the entry at ``row`` these ``fields``; repaint it if that changed it.

        Returns whether the entry changed.
        """
        entry = self._entries[row]
        changed = replace(entry, **fields)
        if changed == entry:
            return False
        self._entries[row] = changed
        index = self.index(row)
        self.dataChanged.emit(index, index)
        return True

    def set_state(self, row: int, state: EntryState, reason: str = "") -> None:
        """Record what the check (or an open) found about the file at ``row``."""
        if self._change(row, state=state, reason=reason):
            self.entry_changed.emit(row)

    def set_path(self, row: int, path: Path) -> None:
        """Name the file at ``row`` ``path`` (a followed file, once published)."""
        self._change(row, path=path)

    def set_summary(self, row: int, summary: str) -> None:
        """Show ``summary`` (an episode's length and task) beside the row's name."""
        self._change(row, summary=summary)

    def set_flag_badge(
        self, row: int, badge: str, level: str = "", lines: tuple[str, ...] = ()
    ) -> None:
        """Show ``badge`` (coloured by ``level``) for the flags of ``row``.

        ``lines`` say each flag in the row's tooltip; an empty ``badge``
        takes the badge away.
        """
        self._change(row, flag_badge=badge, flag_level=level, flag_lines=lines)

    def set_current(self, row: int) -> None:
        """Mark ``row`` as the playing file (-1: none)."""
        if row == self._current:
            return
        previous, self._current = self._current, row
        for changed in (previous, row):
            if 0 <= changed < len(self._entries):
                index = self.index(changed)
                self.dataChanged.emit(index, index)
        self.current_changed.emit(row)

    def playable_from(self, row: int, direction: int) -> int | None:
        """Return the first playable row from ``row`` on, moving by ``direction``.

        ``row`` itself counts. ``None`` when the list ends first (no wrap).
        """
        while 0 <= row < len(self._entries):
            if self._entries[row].state.playable:
                return row
            row += direction
        return None
