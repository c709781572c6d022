"""The playlist dock: the session's files, the playing one marked, each with its badge.

Double-click or Enter on a row asks to load and play it. Unplayable rows are
greyed out with the reason on hover. A checked entry's flags (the Dataset
overview's) are a second badge, left of the integrity badge, coloured by the
worst flag. The dock floats and docks on either
side; the window decides what that does to its own size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QHelpEvent, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from app.canvas.shown_text import visible_text
from app.window.state.playlist import (
    BADGE_ROLE,
    FLAG_BADGE_ROLE,
    FLAG_LEVEL_ROLE,
    PATH_ROLE,
    PLAYABLE_ROLE,
    PLAYING_MARK,
)
from app.window.widgets.plain_text import tooltip_lines_html

__all__ = ["BADGE_COLORS", "FLAG_COLORS", "PlaylistDock", "PlaylistView"]

#: Badge colours by badge text.
BADGE_COLORS: Final[dict[str, QColor]] = {
    "valid": QColor(46, 160, 67),
    "checking": QColor(128, 128, 128),
    "integrity not verified": QColor(200, 150, 30),
    "live": QColor(200, 40, 120),
    "recovered": QColor(220, 130, 30),
    "degraded": QColor(220, 130, 30),
    "invalid": QColor(200, 50, 50),
}
#: Flag badge colours by how bad the worst flag is.
FLAG_COLORS: Final[dict[str, QColor]] = {
    "error": QColor(200, 50, 50),
    "warning": QColor(200, 120, 20),
    "outlier": QColor(150, 80, 200),
    "manual": QColor(60, 110, 200),
}
_BADGE_TEXT: Final = {"integrity not verified": "unverified"}
_PADDING_PX: Final = 6

_Index = QModelIndex | QPersistentModelIndex


class _BadgeDelegate(QStyledItemDelegate):
    """Draws the name (greyed when unplayable) and a badge on the right."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        """Paint one row (Qt override)."""
        badge = str(index.data(BADGE_ROLE) or "")
        shown = _BADGE_TEXT.get(badge, badge)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = visible_text(opt.text)  # a task from a file: one plain line
        view = opt.widget
        if isinstance(view, QAbstractItemView):
            right = min(opt.rect.right(), view.viewport().rect().right())
            opt.rect = QRect(
                opt.rect.left(),
                opt.rect.top(),
                right - opt.rect.left(),
                opt.rect.height(),
            )
        metrics = opt.fontMetrics
        badge_width = metrics.horizontalAdvance(shown) + 2 * _PADDING_PX
        flag = visible_text(str(index.data(FLAG_BADGE_ROLE) or ""), 24)
        flag_width = metrics.horizontalAdvance(flag) + 2 * _PADDING_PX if flag else 0
        taken = badge_width + _PADDING_PX + (flag_width + 4 if flag else 0)
        if not index.data(PLAYABLE_ROLE):
            opt.palette.setColor(
                QPalette.ColorRole.Text,
                opt.palette.color(
                    QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text
                ),
            )
        full = QRect(opt.rect)
        opt.rect = QRect(opt.rect.adjusted(0, 0, -taken, 0))
        if flag:
            text = self._name_if_cut(opt, index)
            if text != opt.text:  # a name cut keeps its end: "epis…000009"
                opt.text = text
                opt.textElideMode = Qt.TextElideMode.ElideMiddle
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            background = QStyleOptionViewItem(option)
            self.initStyleOption(background, index)
            background.text = ""
            background.rect = full
            style.drawControl(
                QStyle.ControlElement.CE_ItemViewItem, background, painter, opt.widget
            )
            style.drawControl(
                QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget
            )
        row = QRect(opt.rect)
        row.setRight(opt.rect.right() + taken)
        if shown:
            color = BADGE_COLORS.get(badge, QColor(128, 128, 128))
            self._paint_badge(painter, row, shown, color, badge_width)
        if flag:
            row.setRight(row.right() - badge_width - 4)
            level = str(index.data(FLAG_LEVEL_ROLE) or "")
            color = FLAG_COLORS.get(level, QColor(128, 128, 128))
            self._paint_badge(painter, row, flag, color, flag_width)

    @staticmethod
    def _name_if_cut(opt: QStyleOptionViewItem, index: _Index) -> str:
        """Return the row's text, or only its file's name when it would be cut.

        Beside a flag badge the duration and task left "episode_…" of the
        name; the name is what tells the rows apart (the rest is in the tip).
        """
        text = opt.text
        room = opt.rect.width() - 2 * _PADDING_PX
        if opt.fontMetrics.horizontalAdvance(text) <= room:
            return text
        name = Path(str(index.data(PATH_ROLE) or "")).name
        if not name:
            return text
        mark = PLAYING_MARK if text.startswith(PLAYING_MARK) else ""
        return visible_text(mark + name)

    @staticmethod
    def _paint_badge(
        painter: QPainter, row: QRect, shown: str, color: QColor, width: int
    ) -> None:
        painter.save()
        height = row.height() - 6
        rect = QRect(row.right() - width - 2, row.top() + 3, width, height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(rect, height / 2, height / 2)
        painter.setPen(QColor(255, 255, 255))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, shown)
        painter.restore()

    def helpEvent(  # noqa: N802
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: _Index,
    ) -> bool:
        """Show a row's tooltip (path, state, reason) as plain text (Qt override).

        The reason quotes the file; Qt would read it as rich text when it
        looks like markup, so each line is escaped and elided here.
        """
        tip = index.data(Qt.ItemDataRole.ToolTipRole) if index.isValid() else None
        if event.type() != QEvent.Type.ToolTip or not tip:
            return super().helpEvent(event, view, option, index)
        lines = str(tip).split("\n")
        QToolTip.showText(event.globalPos(), tooltip_lines_html(lines), view)
        return True

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:  # noqa: N802
        """Return a row size with room for the badge (Qt override)."""
        size = super().sizeHint(option, index)
        return QSize(size.width(), max(size.height(), 22))


class PlaylistView(QListView):
    """The list of files; Enter (or a double-click) asks to play the current row."""

    play_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(_BadgeDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.doubleClicked.connect(self._on_double_clicked)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """Play the current row on Enter/Return (Qt override)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            index = self.currentIndex()
            if index.isValid():
                self.play_requested.emit(index.row())
            event.accept()
            return
        super().keyPressEvent(event)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        self.play_requested.emit(index.row())


class PlaylistDock(QDockWidget):
    """A dock holding the :class:`PlaylistView`; floats and docks left or right."""

    def __init__(
        self, model: QAbstractItemModel, parent: QWidget | None = None
    ) -> None:
        super().__init__("Playlist", parent)
        self.setObjectName("playlist_dock")
        self.setAllowedAreas(
            Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
        )
        self.view = PlaylistView(self)
        self.view.setModel(model)
        self.setWidget(self.view)
        self.setMinimumWidth(240)

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(300, 400)
