"""The player's side panel: time, joints, tip, readouts, overlay toggles, controls.

It shows the numbers of :func:`app.canvas.panel_values.panel_values` (the
same as the exported panel) at the clock's position, and holds the overlay
toggles, the speed and loop controls and the "Plot channels…" and "Playlist"
buttons. The toggles write to :class:`app.window.state.ViewOptionsModel`, so they
carry over from file to file; the panel only mirrors them.
"""

from __future__ import annotations

import math
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
from app.canvas.panel_values import (
    ACTIVE_TARGET,
    EXT_FORCE,
    FRICTION,
    TIP,
    TIP_SPEED,
    JointValue,
    PanelValues,
    panel_rows,
    panel_values,
)
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
_ROW_KEYS: Final = (TIP, TIP_SPEED, EXT_FORCE, FRICTION, ACTIVE_TARGET)
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


def _label(
    text: str = "",
    *,
    name: str = "",
    bold: bool = False,
    point_delta: float = 0.0,
    muted: bool = False,
) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    if name:
        label.setObjectName(name)
    if bold or point_delta:
        font = QFont(label.font())
        font.setBold(bold)
        if point_delta and font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() + point_delta)
        label.setFont(font)
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


def _row_text(key: str, values: PanelValues) -> str:
    if key == TIP:
        unit = "" if values.tip_xy_m is None else " m"
        return f"tip (x, y) = {values.tip_text}{unit}"
    if key == TIP_SPEED:
        return f"tip speed = {values.tip_speed_text}"
    readout = values.readout(key)
    if readout is None:
        return ""
    return f"{readout.label.lower()} = {readout.text}"


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
        self._joint_rows: list[_JointRow] = []
        self._present_rows: tuple[str, ...] = ()
        self._shown_s: float | None = None
        self.setFixedWidth(WIDTH_PX)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        layout = self._layout = QVBoxLayout(self)
        self._build_header(layout)
        layout.addWidget(_divider())
        self._joints = QWidget()
        layout.addWidget(self._joints)
        self._no_kinematics = _label("No joint angles recorded", muted=True)
        layout.addWidget(self._no_kinematics)
        layout.addSpacing(6)
        self._rows = {key: _label(name=f"readout_{key}") for key in _ROW_KEYS}
        for row in self._rows.values():
            row.setWordWrap(True)
            layout.addWidget(row)
        layout.addWidget(_divider())
        self._build_toggles(layout)
        layout.addWidget(_divider())
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
        self._time = _label(name="time_readout", bold=True, point_delta=4.0)
        self._time.setWordWrap(True)
        self._ticks = _label(name="tick_generation", muted=True)
        self._task = _label(name="task_text")
        self._task.setWordWrap(True)
        widgets = (self._header, self._file_name, self._time, self._ticks, self._task)
        for widget in widgets:
            layout.addWidget(widget)

    def _build_toggles(self, layout: QVBoxLayout) -> None:
        self._toggles: dict[str, QCheckBox] = {}
        for overlay in overlays():
            name = overlay.name
            box = QCheckBox(overlay.label)
            box.setObjectName(name)
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

        Rebuilds the joint rows and shows only the rows and toggles the
        recording has. Call it after the clock got the recording's frames.
        """
        self._model = model
        title = "Replay" if model is None else f"Replay — {model.title}"
        self._header.set_full_text(visible_text(title))
        self._header.setToolTip(tooltip_html(title))
        name = "" if model is None else visible_text(model.path.name)
        self._file_name.set_full_text(name)
        self._file_name.setToolTip("" if model is None else tooltip_html(model.path))
        self._rebuild_joints(model)
        self._present_rows = () if model is None else panel_rows(model)
        for key, label in self._rows.items():
            label.setVisible(key in self._present_rows)
        self._no_kinematics.setVisible(
            model is not None and model.kinematics is None and not self._joint_rows
        )
        for name, visible in self._toggle_visibility(model).items():
            self._toggles[name].setVisible(visible)
        self._plot.setEnabled(model is not None)
        self._task.setVisible(model is not None and bool(model.task_texts))
        self._show(self._clock.position_s)

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

    def _rebuild_joints(self, model: RecordingModel | None) -> None:
        old = self._joints
        self._joint_rows = []
        self._joints = QWidget()
        grid = QGridLayout(self._joints)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setColumnStretch(1, 1)
        joints = () if model is None else panel_values(model, 0.0).joints
        for index, joint in enumerate(joints[:MAX_JOINT_ROWS]):
            self._joint_rows.append(self._add_joint(grid, index, joint))
        if len(joints) > MAX_JOINT_ROWS:
            more = _label(
                f"… and {len(joints) - MAX_JOINT_ROWS:,} more joints (see the plots)",
                name="more_joints",
                muted=True,
            )
            grid.addWidget(more, MAX_JOINT_ROWS, 0, 1, 3)
        self._joints.setVisible(bool(joints))
        self._layout.replaceWidget(old, self._joints)
        # Without a parent the old rows are deleted now, so no lookup finds them.
        old.setParent(None)
        old.deleteLater()

    def _add_joint(self, grid: QGridLayout, index: int, joint: JointValue) -> _JointRow:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setObjectName(f"joint_{index}")
        slider.setRange(_steps(joint.q_min_rad), _steps(joint.q_max_rad))
        slider.setEnabled(False)
        slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        slider.setToolTip(
            f"Joint {index + 1} limits: {joint.min_text} to {joint.max_text}"
        )
        value = _label(name=f"joint_{index}_value")
        value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        value.setMinimumWidth(value.fontMetrics().horizontalAdvance("-180°") + 6)
        grid.addWidget(_label(f"Joint {index + 1}"), index, 0)
        grid.addWidget(slider, index, 1)
        grid.addWidget(value, index, 2)
        return _JointRow(slider, value)

    def _show(self, play_time_s: float) -> None:
        """Update the shown values to ``play_time_s`` (texts and slider values only)."""
        self._shown_s = play_time_s
        frame = f"(frame {self._clock.frame_index + 1}/{self._clock.frame_count})"
        model = self._model
        if model is None:
            self._time.setText(f"t = {play_time_s:.2f} s {frame}")
            self._ticks.setText("")
            return
        values = panel_values(model, play_time_s)
        self._time.setText(f"{values.time_text} {frame}")
        self._ticks.setText(values.tick_text)
        self._task.setText(visible_text(values.task_text, 400))
        for row, joint in zip(self._joint_rows, values.joints, strict=False):
            row.show(joint)
        for key in self._present_rows:
            self._rows[key].setText(_row_text(key, values))

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
