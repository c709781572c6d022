"""Plot channels…: choose the channels (or columns) to plot, searching by name.

The tree lists each channel (name and unit) with its columns as children,
from what the channels know without reading them (a channel read only when
shown stays unread until plotted); checking a channel checks all its columns.
:meth:`ChannelPickerDialog.selected_plots` turns the checks into the plot selection of
:attr:`app.canvas.view_model.ViewModel.plots`: a fully checked channel is its key
``"channel"``, a partly checked one its ``"channel[col]"`` keys, one plot per
channel or all of them in one plot.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLineEdit,
    QRadioButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.window.plots.series_cache import column_keys, column_names, key_columns
from app.window.widgets.plain_text import tooltip_html, visible_text
from fsr_core.recording import Channel, RecordingModel

__all__ = ["ChannelPickerDialog"]

#: Item data role holding a row's series key.
KEY_ROLE: Final = int(Qt.ItemDataRole.UserRole)

_CHECKED = Qt.CheckState.Checked
_UNCHECKED = Qt.CheckState.Unchecked


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    found = (item.child(row) for row in range(item.childCount()))
    return [child for child in found if child is not None]


def _key(item: QTreeWidgetItem) -> str:
    return str(item.data(0, KEY_ROLE))


def _chosen_series(
    model: RecordingModel, current: tuple[tuple[str, ...], ...]
) -> set[str]:
    """Return the column keys (``"channel[col]"``) the current plots show."""
    return {
        column
        for keys in current
        for key in keys
        for column, _ in key_columns(model, key)
    }


def _one_plot_of_many(
    model: RecordingModel, current: tuple[tuple[str, ...], ...]
) -> bool:
    """Whether the current selection is a single plot of several channels."""
    if len(current) != 1:
        return False
    channels = {channel for key in current[0] for _, channel in key_columns(model, key)}
    return len(channels) > 1


class ChannelPickerDialog(QDialog):
    """Checkable channels and columns, a search field, and the plot layout."""

    def __init__(
        self,
        model: RecordingModel,
        current: tuple[tuple[str, ...], ...],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Plot channels")
        self.resize(440, 540)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search channels")
        self.search.setClearButtonEnabled(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Channel", "Unit"])
        self.tree.setUniformRowHeights(True)
        chosen = _chosen_series(model, current)
        for channel in model.channels.values():
            self.tree.addTopLevelItem(_channel_item(channel, chosen))
        self.tree.resizeColumnToContents(0)
        self.per_channel_button = QRadioButton("One plot per channel")
        self.all_in_one_button = QRadioButton("All in one plot")
        one_plot = _one_plot_of_many(model, current)
        (self.all_in_one_button if one_plot else self.per_channel_button).setChecked(
            True
        )
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self._lay_out()
        self.search.textChanged.connect(self._on_search_text_changed)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def _lay_out(self) -> None:
        choice = QHBoxLayout()
        choice.addWidget(self.per_channel_button)
        choice.addWidget(self.all_in_one_button)
        choice.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addLayout(choice)
        layout.addWidget(self.buttons)

    def channel_items(self) -> list[QTreeWidgetItem]:
        """Return the tree's channel rows (top level), in model order."""
        found = (
            self.tree.topLevelItem(row) for row in range(self.tree.topLevelItemCount())
        )
        return [item for item in found if item is not None]

    def selected_plots(self) -> tuple[tuple[str, ...], ...]:
        """Return the chosen plots: a tuple of series keys per plot.

        Returns
        -------
        tuple of tuple of str
            One plot per checked channel, or a single plot of all of them
            when "All in one plot" is chosen; empty when nothing is checked.
        """
        groups: list[tuple[str, ...]] = []
        for item in self.channel_items():
            if item.checkState(0) == _CHECKED:
                groups.append((_key(item),))
            elif item.checkState(0) != _UNCHECKED:
                checked = [c for c in _children(item) if c.checkState(0) == _CHECKED]
                groups.append(tuple(_key(child) for child in checked))
        if self.all_in_one_button.isChecked() and groups:
            return (tuple(key for keys in groups for key in keys),)
        return tuple(groups)

    def _on_search_text_changed(self, text: str) -> None:
        needle = text.strip().casefold()
        for item in self.channel_items():
            channel_matches = needle in item.text(0).casefold()
            matches = 0
            for child in _children(item):
                hit = channel_matches or needle in child.text(0).casefold()
                child.setHidden(not hit)
                matches += hit
            item.setHidden(not channel_matches and matches == 0)
            item.setExpanded(bool(needle) and not channel_matches and matches > 0)


def _channel_item(channel: Channel, chosen: set[str]) -> QTreeWidgetItem:
    """Build a channel row, with one checkable child per column when it has several."""
    unit = visible_text(channel.unit)
    item = QTreeWidgetItem([visible_text(channel.name), unit])
    item.setData(0, KEY_ROLE, channel.name)
    item.setToolTip(0, tooltip_html(channel.label or channel.name))
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    names = column_names(channel)
    keys = column_keys(channel)  # "name[col]", or "name[3]" for unnamed columns
    if channel.width == 1:
        item.setCheckState(0, _CHECKED if keys[0] in chosen else _UNCHECKED)
        return item
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsAutoTristate)
    item.setCheckState(0, _UNCHECKED)
    for name, key in zip(names, keys, strict=True):
        child = QTreeWidgetItem([visible_text(name), unit])
        child.setData(0, KEY_ROLE, key)
        child.setFlags(child.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        child.setCheckState(0, _CHECKED if key in chosen else _UNCHECKED)
        item.addChild(child)
    return item
