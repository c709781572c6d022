"""The player's side panel: panel rows, overlay toggles, controls.

It shows the rows of :mod:`app.canvas.panel_rows` that apply to the recording
(time, clocks, episode, task, joints, tip, readouts), the same rows in the
same order as the exported panel, at the clock's position: a label per line,
a read-only slider per joint; rows a recording lacks are not built. It holds
the overlay
toggles, the speed and loop controls and the "Plot channels…" and "Playlist"
buttons. The toggles write to :class:`app.window.state.ViewOptionsModel`, so they
carry over from file to file; the panel only mirrors them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from typing import Final

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.canvas.overlay_registry import overlays
from app.canvas.panel_rows.base import LineStyle, PanelRow, RowLine, RowValue, Section
from app.canvas.panel_rows.play_time import ROW as TIME_ROW
from app.canvas.panel_rows.registry import row_values, rows_for
from app.canvas.view_model import ViewModel
from app.window.state import (
    MAX_SPEED,
    MIN_SPEED,
    PlaybackClock,
    ViewOptionsModel,
)
from app.window.widgets.joint_rows import (
    ElidedLabel,
    JointsView,
    mute,
    upright_scroll,
)
from app.window.widgets.plain_text import tooltip_html, visible_text
from app.window.workers import Runner, pool_runner
from app.window.workers.channel_reader import ChannelReader
from fsr_core.recording import RecordingModel

__all__ = ["SidePanel", "scrolling"]

WIDTH_PX: Final = 300
#: The speed box's suffix, the multiplication sign (as in skelarm's player).
_TIMES: Final = "\N{MULTIPLICATION SIGN}"


def _label(text: str = "", *, name: str = "", muted: bool = False) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    if name:
        label.setObjectName(name)
    if muted:
        mute(label)
    return label


def _divider() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


def _line_label(line: RowLine, name: str) -> QLabel:
    """Return the label of one row line, styled as the line says."""
    label: QLabel
    if line.wrap:
        label = _label(name=name)
        label.setWordWrap(True)
    else:
        label = ElidedLabel(Qt.TextElideMode.ElideRight)
        label.setObjectName(name)
    if line.style is LineStyle.TITLE:  # bold, 4 points larger
        font = QFont(label.font())
        font.setBold(True)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() + 4.0)
        label.setFont(font)
    elif line.style is LineStyle.MUTED:
        mute(label)
    return label


def _set_line_text(label: QLabel, text: str) -> None:
    if isinstance(label, ElidedLabel):
        label.set_full_text(text)
    else:
        label.setText(text)


class _RowView(QWidget):
    """The widgets of one panel row: a label per line, then its joints."""

    def __init__(self, name: str, value: RowValue) -> None:
        super().__init__()
        self.setObjectName(f"row_{name}")
        self._name = name
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self._lines = QVBoxLayout()
        self._lines.setSpacing(2)
        layout.addLayout(self._lines)
        self._labels: list[QLabel] = []
        self._kinds: tuple[tuple[LineStyle, bool], ...] = ()
        self._joints: JointsView | None = None
        if value.joints:
            self._joints = JointsView(value)
            layout.addWidget(self._joints)
        self.show_value(value)

    def show_value(self, value: RowValue) -> None:
        """Show ``value`` (texts and joints; new labels if its lines differ)."""
        kinds = tuple((line.style, line.wrap) for line in value.lines)
        if kinds != self._kinds:
            self._rebuild_labels(value.lines)
        for label, line in zip(self._labels, value.lines, strict=True):
            _set_line_text(label, line.text)
        if self._joints is not None:
            self._joints.show_value(value)

    def _rebuild_labels(self, lines: Sequence[RowLine]) -> None:
        for old in self._labels:
            self._lines.removeWidget(old)
            old.setParent(None)
            old.deleteLater()
        self._labels = [
            _line_label(line, f"row_{self._name}_{index}")
            for index, line in enumerate(lines)
        ]
        for label in self._labels:
            self._lines.addWidget(label)
            label.show()  # shown with the row (a label added later starts hidden)
        self._kinds = tuple((line.style, line.wrap) for line in lines)


def _with_frame(value: RowValue, frame: str) -> RowValue:
    """Return the time row's ``value`` with the clock's frame after its first line."""
    if not value.lines:
        return value
    first = value.lines[0]
    lines = (dataclasses.replace(first, text=f"{first.text} {frame}"), *value.lines[1:])
    return dataclasses.replace(value, lines=lines)


class SidePanel(QWidget):
    """The fixed-width panel on the right of the player window."""

    #: The user asked to plot channels ("Plot channels…").
    plot_requested = Signal()
    #: The user showed (True) or hid (False) the playlist.
    playlist_toggled = Signal(bool)

    def __init__(
        self,
        clock: PlaybackClock,
        options: ViewOptionsModel,
        parent: QWidget | None = None,
        *,
        runner: Runner | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._options = options
        self._runner = runner if runner is not None else pool_runner()
        self._model: RecordingModel | None = None
        self._rows: tuple[PanelRow, ...] = ()
        self._row_views: list[_RowView] = []
        self._shown_s: float | None = None
        self._environment = options.options.environment
        self._reader = ChannelReader(
            self._runner, lambda: self._show(self._clock.position_s)
        )
        """The request reading the joints' channels, while it runs."""
        self.setFixedWidth(WIDTH_PX)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        layout = self._layout = QVBoxLayout(self)
        self._build_header(layout)
        self._rows_box = QWidget()
        layout.addWidget(self._rows_box)
        layout.addWidget(_divider())
        self._build_toggles(layout)
        self._toggles_end = _divider()  # hidden with the toggles when none applies
        layout.addWidget(self._toggles_end)
        self._build_controls(layout)
        layout.addStretch(1)
        self._connect()
        self._on_options_changed(options.options)
        self.set_model(None)

    # -- building ---------------------------------------------------------

    def _build_header(self, layout: QVBoxLayout) -> None:
        self._header = ElidedLabel(Qt.TextElideMode.ElideRight)
        self._header.setObjectName("header")
        font = QFont(self._header.font())
        font.setBold(True)
        self._header.setFont(font)
        self._file_name = ElidedLabel(Qt.TextElideMode.ElideMiddle)
        self._file_name.setObjectName("file_name")
        mute(self._file_name)
        layout.addWidget(self._header)
        layout.addWidget(self._file_name)

    def _build_toggles(self, layout: QVBoxLayout) -> None:
        self._toggles: dict[str, QCheckBox] = {}
        for overlay in overlays():
            name = overlay.name
            box = QCheckBox(overlay.label)
            box.setObjectName(f"show_{name}")
            self._toggles[name] = box
            layout.addWidget(box)

    def _build_controls(self, layout: QVBoxLayout) -> None:
        self._speed = QDoubleSpinBox()
        self._speed.setObjectName("speed")
        self._speed.setRange(MIN_SPEED, MAX_SPEED)
        self._speed.setSingleStep(0.1)
        self._speed.setDecimals(2)
        self._speed.setSuffix(_TIMES)
        self._speed.setKeyboardTracking(False)
        self._speed.setToolTip("Playback speed")
        self._speed.setValue(self._clock.speed)
        self._loop = QCheckBox("Loop")
        self._loop.setObjectName("loop")
        self._loop.setChecked(self._clock.loop)
        speed_row = QHBoxLayout()
        speed_row.addWidget(_label("Speed"))
        speed_row.addWidget(self._speed, 1)
        speed_row.addSpacing(12)
        speed_row.addWidget(self._loop)
        layout.addLayout(speed_row)
        self._plot = QPushButton("Plot channels…")
        self._plot.setObjectName("plot_channels")
        self._playlist = QPushButton("Playlist")
        self._playlist.setObjectName("playlist_button")
        self._playlist.setCheckable(True)
        self._playlist.setToolTip("Show or hide the playlist")
        buttons = QHBoxLayout()
        buttons.addWidget(self._plot, 1)
        buttons.addWidget(self._playlist, 1)
        layout.addLayout(buttons)

    def _connect(self) -> None:
        clock = self._clock
        clock.position_changed.connect(self._on_clock_position_changed)
        clock.speed_changed.connect(self._on_clock_speed_changed)
        clock.loop_changed.connect(self._on_clock_loop_changed)
        self._options.changed.connect(self._on_options_changed)
        for name, box in self._toggles.items():
            box.toggled.connect(partial(self._on_toggle_toggled, name))
        self._speed.valueChanged.connect(self._on_speed_value_changed)
        self._loop.toggled.connect(clock.set_loop)
        self._plot.clicked.connect(self.plot_requested)
        self._playlist.toggled.connect(self.playlist_toggled)

    # -- public -----------------------------------------------------------

    def set_model(self, model: RecordingModel | None) -> None:
        """Show ``model`` (``None``: nothing loaded).

        Builds the panel rows the recording has (from the registry, in its
        order; none without a recording) and shows only the toggles it has.
        Call it after the clock got the recording's frames.
        """
        self._model = model
        self._read_joint_channels()
        title = "Replay" if model is None else f"Replay — {model.title}"
        self._header.set_full_text(visible_text(title))
        self._header.setToolTip(tooltip_html(title))
        name = "" if model is None else visible_text(model.path.name)
        self._file_name.set_full_text(name)
        self._file_name.setToolTip("" if model is None else tooltip_html(model.path))
        self._rows = () if model is None else rows_for(model)
        self._rebuild_rows(model)
        shown = self._toggle_visibility(model)
        for name, visible in shown.items():
            self._toggles[name].setVisible(visible)
        self._toggles_end.setVisible(any(shown.values()))
        self._plot.setEnabled(model is not None)
        self._show(self._clock.position_s)

    @property
    def rows(self) -> tuple[PanelRow, ...]:
        """The panel rows shown, top to bottom."""
        return self._rows

    @property
    def shown_s(self) -> float | None:
        """Play time the readouts show (None before the first update)."""
        return self._shown_s

    def set_playlist_checked(self, checked: bool) -> None:
        """Check or uncheck the Playlist button (emits no ``playlist_toggled``)."""
        with QSignalBlocker(self._playlist):
            self._playlist.setChecked(checked)

    # -- contents ---------------------------------------------------------

    @staticmethod
    def _toggle_visibility(model: RecordingModel | None) -> dict[str, bool]:
        return {
            overlay.name: model is not None and overlay.applies(model)
            for overlay in overlays()
        }

    def _rebuild_rows(self, model: RecordingModel | None) -> None:
        """Replace the row widgets with those of ``model``'s rows, at the clock."""
        old = self._rows_box
        self._rows_box = QWidget()
        layout = QVBoxLayout(self._rows_box)
        layout.setContentsMargins(0, 0, 0, 0)
        self._row_views = []
        values = self._values(model, self._clock.position_s)
        section: Section | None = None
        for row, value in zip(self._rows, values, strict=True):
            if section is not None and row.section != section:
                layout.addWidget(_divider())
            section = row.section
            view = _RowView(row.name, value)
            self._row_views.append(view)
            layout.addWidget(view)
        self._layout.replaceWidget(old, self._rows_box)
        self._rows_box.show()  # a child added to a shown panel starts hidden
        # Without a parent the old rows are deleted now, so no lookup finds them.
        old.setParent(None)
        old.deleteLater()

    def _values(
        self, model: RecordingModel | None, play_time_s: float
    ) -> tuple[RowValue, ...]:
        """Return the rows' values at ``play_time_s``, the time's with the frame."""
        if model is None:
            return ()
        values = row_values(
            model,
            self._rows,
            play_time_s,
            environment=self._environment,
            reads=self._reader.idle,
        )
        frame = f"(frame {self._clock.frame_index + 1}/{self._clock.frame_count})"
        return tuple(
            _with_frame(value, frame) if row is TIME_ROW else value
            for row, value in zip(self._rows, values, strict=True)
        )

    def _show(self, play_time_s: float) -> None:
        """Update the shown values to ``play_time_s`` (texts and slider values only)."""
        self._shown_s = play_time_s
        values = self._values(self._model, play_time_s)
        for view, value in zip(self._row_views, values, strict=True):
            view.show_value(value)

    def _read_joint_channels(self) -> None:
        """Read the joints' channels off the GUI thread when they are not in memory.

        A source may leave a channel to be read when first shown (an MCAP
        topic, a Genesis field); until it is, the joints show as unknown.
        """
        self._reader.forget()
        model = self._model
        joints = None if model is None else model.joints
        if model is None or joints is None:
            return
        if self._environment:
            joints = joints.in_environment(self._environment)
        unread = tuple(
            channel
            for name in joints.channels
            if (channel := model.channels.get(name)) is not None
            and not (channel.loaded or channel.reads_one_sample)
        )
        if not unread:
            return
        self._reader.read(model.path, unread)

    # -- reactions --------------------------------------------------------

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        self._show(play_time_s)

    def _on_clock_speed_changed(self, speed: float) -> None:
        with QSignalBlocker(self._speed):
            self._speed.setValue(speed)

    def _on_clock_loop_changed(self, loop: bool) -> None:
        with QSignalBlocker(self._loop):
            self._loop.setChecked(loop)

    def _on_speed_value_changed(self, speed: float) -> None:
        self._clock.set_speed(speed)

    def _on_toggle_toggled(self, name: str, checked: bool) -> None:
        self._options.set_overlay(name, checked)

    def _on_options_changed(self, options: ViewModel) -> None:
        for name, box in self._toggles.items():
            with QSignalBlocker(box):
                box.setChecked(options.shows(name))
        if options.environment != self._environment:
            self._environment = options.environment
            self._read_joint_channels()
            if self._model is not None:
                self._show(self._clock.position_s)


def scrolling(panel: SidePanel) -> QScrollArea:
    """Return ``panel`` in a vertical scroll area, so short windows still fit.

    Many joints and readouts make the panel tall; in a scroll area it no
    longer sets the window's minimum height (a 1280x720 window, a laptop
    screen). The scroll bar shows only when the panel does not fit.
    """
    area = upright_scroll(panel, "side_panel_scroll")
    area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    bar = area.verticalScrollBar().sizeHint().width()
    area.setFixedWidth(WIDTH_PX + bar)
    area.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
    return area
