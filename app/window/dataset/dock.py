"""The Dataset overview's dock: the widgets, laid out; no logic.

A bar (Check, the progress and Cancel, the summary, the two exports), the
sortable table beside the histograms, and for a LeRobot dataset the
``lerobot-edit-dataset`` command that drops the flagged episodes, in a
read-only line with a Copy button. :class:`~app.window.dataset.overview.DatasetOverview`
fills and drives it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.window.dataset.histograms import MetricHistograms
from app.window.dataset.table_model import (
    KINDS_COLUMN,
    SORT_ROLE,
    DatasetTableModel,
)

__all__ = ["DatasetDock"]


def _button(text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tip)
    return button


class DatasetDock(QDockWidget):
    """The overview's widgets over ``table`` (the entries' model)."""

    def __init__(self, table: DatasetTableModel, parent: QWidget | None = None) -> None:
        super().__init__("Dataset", parent)
        self.setObjectName("dataset_dock")
        self.table_model = table
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(table)
        self.proxy.setSortRole(SORT_ROLE)
        self.check_button = _button(
            "Check", "run the quality checks on the playlist's unchecked entries"
        )
        self.cancel_button = _button("Cancel", "stop the checks or the export")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setMaximumWidth(220)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.export_kept = _button(
            "Export kept…", "list the entries not flagged in a new playlist index"
        )
        self.export_flagged = _button(
            "Export flagged…", "list the flagged entries in a new playlist index"
        )
        self.table = self._table()
        self.histograms = MetricHistograms()
        self.command_label = QLabel("lerobot-edit-dataset:")
        self.command = QLineEdit()
        self.command.setReadOnly(True)
        self.command.setToolTip(
            "writes a copy of the dataset without the flagged episodes"
        )
        self.copy_button = _button("Copy", "copy the command to the clipboard")
        self.setWidget(self._body())
        self.set_command("")

    def _table(self) -> QTableView:
        view = QTableView()
        view.setModel(self.proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.verticalHeader().setVisible(False)
        view.verticalHeader().setDefaultSectionSize(22)
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The kinds may be long: an elided column, all of them on hover.
        header.setSectionResizeMode(KINDS_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(KINDS_COLUMN, 130)
        header.setStretchLastSection(False)
        view.setWordWrap(False)
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        return view

    def _body(self) -> QWidget:
        bar = QHBoxLayout()
        bar.addWidget(self.check_button)
        bar.addWidget(self.progress)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.export_kept)
        bar.addWidget(self.export_flagged)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.table)
        split.addWidget(self.histograms)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.split = split
        command = QHBoxLayout()
        command.addWidget(self.command_label)
        command.addWidget(self.command, 1)
        command.addWidget(self.copy_button)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        layout.addLayout(command)
        return body

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        """Share the width between the table and the histograms (Qt override)."""
        super().showEvent(event)
        width = self.split.width()
        # Three fifths for the table: its last column was cut at 55 %.
        self.split.setSizes([width * 3 // 5, width * 2 // 5])

    def set_command(self, text: str) -> None:
        """Show ``text`` as the LeRobot command ('' hides the line)."""
        self.command.setText(text)
        self.command.setCursorPosition(0)
        for widget in (self.command_label, self.command, self.copy_button):
            widget.setVisible(bool(text))

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(1200, 420)
