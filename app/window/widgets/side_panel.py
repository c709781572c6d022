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
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app.canvas.overlay_registry import overlays
from app.canvas.panel_rows import (
    JointValue,
    LineStyle,
    PanelRow,
    RowLine,
    RowValue,
    Section,
    row_values,
    rows_for,
)
from app.canvas.panel_rows.play_time import ROW as TIME_ROW
from app.canvas.view_model import ViewModel
from app.window.state import (
    MAX_SPEED,
    MIN_SPEED,
    PlaybackClock,
    ViewOptionsModel,
)
from app.window.widgets.plain_text import tooltip_html, visible_text
from fsr_core.recording import RecordingModel

__all__ = ["SidePanel", "scrolling"]

WIDTH_PX: Final = 300
#: Slider steps per radian (the sliders count milli-radians).
_STEPS_PER_RAD: Final = 1000.0
#: The sliders' farthest step either side of zero (a Qt slider holds an int32):
#: limits or angles beyond a million radians sit at the end of the track.
_MAX_STEPS: Final = 1_000_000_000
#: Joints given a row; more (a wide joint channel) are counted in one line.
MAX_JOINT_ROWS: Final = 32
#: The speed box's suffix, the multiplication sign (as in skelarm's player).
_TIMES: Final = "\N{MULTIPLICATION SIGN}"


class _ElidedLabel(QLabel):
    """A one-line plain-text label that elides what does not fit its width."""

    def __init__(self, mode: Qt.TextElideMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._mode = mode
        self._full_text = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def full_text(self) -> str:
        return self._full_text

    def set_full_text(self, text: str) -> None:
        self._full_text = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        self.setText(metrics.elidedText(self._full_text, self._mode, self.width()))


@dataclass(frozen=True)
class _JointRow:
    """The widgets of one joint: its read-only slider and its value label."""

    slider: QSlider
    value: QLabel

    def show(self, joint: JointValue) -> None:
        self.value.setText(joint.degrees_text)
        if joint.finite:
            self.slider.setValue(_steps(joint.angle_rad))


def _steps(angle_rad: float) -> int:
    """Return the slider step of ``angle_rad``, within what a slider holds."""
    steps = angle_rad * _STEPS_PER_RAD
    if math.isnan(steps):
        return 0
    return round(min(max(steps, -_MAX_STEPS), _MAX_STEPS))


def _label(text: str = "", *, name: str = "", muted: bool = False) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    if name:
        label.setObjectName(name)
    if muted:
        _mute(label)
    return label


def _mute(widget: QWidget) -> None:
    """Draw ``widget``'s text in a grey between the text and background colours."""
    palette = widget.palette()
    text = palette.color(QPalette.ColorRole.WindowText)
    background = palette.color(QPalette.ColorRole.Window)
    grey = QColor.fromRgbF(
        0.6 * text.redF() + 0.4 * background.redF(),
        0.6 * text.greenF() + 0.4 * background.greenF(),
        0.6 * text.blueF() + 0.4 * background.blueF(),
    )
    palette.setColor(QPalette.ColorRole.WindowText, grey)
    widget.setPalette(palette)


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
        label = _ElidedLabel(Qt.TextElideMode.ElideRight)
        label.setObjectName(name)
    if line.style is LineStyle.TITLE:  # bold, 4 points larger
        font = QFont(label.font())
        font.setBold(True)
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() + 4.0)
        label.setFont(font)
    elif line.style is LineStyle.MUTED:
        _mute(label)
    return label


def _set_line_text(label: QLabel, text: str) -> None:
    if isinstance(label, _ElidedLabel):
        label.set_full_text(text)
    else:
        label.setText(text)


class _RowView(QWidget):
    """The widgets of one panel row: a label per line, then a slider per joint."""

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
        self._joint_rows: list[_JointRow] = []
        if value.joints:
            layout.addWidget(self._joint_grid(value.joints))
        self.show_value(value)

    def show_value(self, value: RowValue) -> None:
        """Show ``value`` (texts and slider values; new labels if its lines differ)."""
        kinds = tuple((line.style, line.wrap) for line in value.lines)
        if kinds != self._kinds:
            self._rebuild_labels(value.lines)
        for label, line in zip(self._labels, value.lines, strict=True):
            _set_line_text(label, line.text)
        for row, joint in zip(self._joint_rows, value.joints, strict=False):
            row.show(joint)

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

    def _joint_grid(self, joints: Sequence[JointValue]) -> QWidget:
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setColumnStretch(1, 1)
        for index, joint in enumerate(joints[:MAX_JOINT_ROWS]):
            self._joint_rows.append(_add_joint(grid, index, joint))
        if len(joints) > MAX_JOINT_ROWS:
            more = _label(
                f"… and {len(joints) - MAX_JOINT_ROWS:,} more joints (see the plots)",
                name="more_joints",
                muted=True,
            )
            grid.addWidget(more, MAX_JOINT_ROWS, 0, 1, 3)
        return box


def _add_joint(grid: QGridLayout, index: int, joint: JointValue) -> _JointRow:
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setObjectName(f"joint_{index}")
    slider.setRange(_steps(joint.q_min_rad), _steps(joint.q_max_rad))
    slider.setEnabled(False)
    slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    slider.setToolTip(f"Joint {index + 1} limits: {joint.min_text} to {joint.max_text}")
    value = _label(name=f"joint_{index}_value")
    value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    value.setMinimumWidth(value.fontMetrics().horizontalAdvance("-180°") + 6)
    grid.addWidget(_label(f"Joint {index + 1}"), index, 0)
    grid.addWidget(slider, index, 1)
    grid.addWidget(value, index, 2)
    return _JointRow(slider, value)


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
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._options = options
        self._model: RecordingModel | None = None
        self._rows: tuple[PanelRow, ...] = ()
        self._row_views: list[_RowView] = []
        self._shown_s: float | None = None
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
        self._header = _ElidedLabel(Qt.TextElideMode.ElideRight)
        self._header.setObjectName("header")
        font = QFont(self._header.font())
        font.setBold(True)
        self._header.setFont(font)
        self._file_name = _ElidedLabel(Qt.TextElideMode.ElideMiddle)
        self._file_name.setObjectName("file_name")
        _mute(self._file_name)
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
        values = row_values(model, self._rows, play_time_s)
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


def scrolling(panel: SidePanel) -> QScrollArea:
    """Return ``panel`` in a vertical scroll area, so short windows still fit.

    Many joints and readouts make the panel tall; in a scroll area it no
    longer sets the window's minimum height (a 1280x720 window, a laptop
    screen). The scroll bar shows only when the panel does not fit.
    """
    area = QScrollArea()
    area.setObjectName("side_panel_scroll")
    area.setWidget(panel)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    bar = area.verticalScrollBar().sizeHint().width()
    area.setFixedWidth(WIDTH_PX + bar)
    area.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
    return area
