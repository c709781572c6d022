"""The player's side panel: what it shows at the clock's time, what its controls do."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import TEST_DATA
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QWidget,
)
from view_models import shown

from app.canvas.joint_bar import OUT_OF_LIMITS_COLOR
from app.canvas.panel_rows.registry import row_values, rows_for
from app.window.state import PlaybackClock, ViewOptionsModel
from app.window.widgets.joint_rows import ElidedLabel, JointBar
from app.window.widgets.plain_text import tooltip_html
from app.window.widgets.side_panel import SidePanel
from fsr_core.joint_set import JointSet, JointSpec
from fsr_core.recording import Channel, RecordingModel, Segment, Timeline
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui


Show = Callable[[Path | RecordingModel], tuple[SidePanel, RecordingModel]]


@pytest.fixture
def clock(qapp: Any) -> PlaybackClock:
    return PlaybackClock()


@pytest.fixture
def options(qapp: Any) -> ViewOptionsModel:
    return ViewOptionsModel()


@pytest.fixture
def panel(qtbot: Any, clock: PlaybackClock, options: ViewOptionsModel) -> SidePanel:
    widget = SidePanel(clock, options)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def show(panel: SidePanel, clock: PlaybackClock) -> Show:
    """Load a recording into the clock and the panel, as the window does."""

    def load(source: Path | RecordingModel) -> tuple[SidePanel, RecordingModel]:
        model = source if isinstance(source, RecordingModel) else open_recording(source)
        assert model.joint_channel is not None
        clock.set_frames(model.channels[model.joint_channel].times_s)
        panel.set_model(model)
        return panel, model

    return load


def _child(panel: SidePanel, kind: type[Any], name: str) -> Any:
    widget = panel.findChild(kind, name)
    assert widget is not None, name
    return widget


def _text(panel: SidePanel, name: str) -> str:
    label: QLabel = _child(panel, QLabel, name)
    return label.text()


def _row(panel: SidePanel, name: str) -> str:
    """Return the first line the side panel shows for the row ``name``."""
    return _text(panel, f"row_{name}_0")


def _expected(model: RecordingModel, name: str, play_time_s: float) -> str:
    """Return the first line of the row ``name`` at ``play_time_s``, as computed."""
    rows = rows_for(model)
    values = row_values(model, rows, play_time_s)
    value = next(v for row, v in zip(rows, values, strict=True) if row.name == name)
    return value.lines[0].text


def _shown(panel: SidePanel, name: str) -> bool:
    widget = (
        panel.findChild(QCheckBox, name)
        or panel.findChild(QLabel, name)
        or panel.findChild(QWidget, f"row_{name}")
    )
    return widget is not None and bool(widget.isVisibleTo(panel))


def _click(box: QCheckBox, qtbot: Any) -> None:
    """Click the box's indicator, as a user does."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))


def _assert_joints_show(
    panel: SidePanel, model: RecordingModel, play_time_s: float
) -> None:
    q = model.joint_angles_at(play_time_s)
    assert q is not None
    assert model.joints is not None
    bars = panel.findChildren(JointBar)
    assert len(bars) == len(q)
    for index, (angle, name) in enumerate(zip(q, model.joints.names, strict=True)):
        bar: JointBar = _child(panel, JointBar, f"joint_{index}")
        assert bar.joint is not None
        assert bar.joint.value == pytest.approx(float(angle))
        label: ElidedLabel = _child(panel, ElidedLabel, f"joint_{index}_name")
        assert label.full_text() == name
        assert _text(panel, f"joint_{index}_value") == f"{math.degrees(angle):.0f}°"


def test_seeking_updates_the_time_readout_and_the_joint_bars(
    show: Show, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    panel, model = show(short_takes["pushed"])

    for play_time_s in (0.1, 0.3, 0.45):
        clock.seek(play_time_s)

        frame = f"(frame {clock.frame_index + 1}/{clock.frame_count})"
        assert _row(panel, "time") == f"t = {play_time_s:.2f} s {frame}"
        tick, generation = model.timeline.tick_at(play_time_s)
        assert _row(panel, "ticks") == f"tick {tick} · generation {generation}"
        _assert_joints_show(panel, model, play_time_s)


def test_joint_bars_span_the_joint_limits_and_name_them(
    show: Show, short_takes: dict[str, Path]
) -> None:
    panel, model = show(short_takes["reach"])
    assert model.kinematics is not None
    assert model.kinematics.q_min_rad is not None
    assert model.kinematics.q_max_rad is not None

    for index, (low, high) in enumerate(
        zip(model.kinematics.q_min_rad, model.kinematics.q_max_rad, strict=True)
    ):
        bar: JointBar = _child(panel, JointBar, f"joint_{index}")
        assert bar.joint is not None
        assert bar.joint.lower == pytest.approx(low)
        assert bar.joint.upper == pytest.approx(high)
        assert f"{math.degrees(high):.0f}°" in bar.toolTip()
        assert bar.isVisibleTo(panel)
        detail = _text(panel, f"joint_{index}_detail")  # rate and torque recorded
        assert detail.endswith(" N·m")
        assert "°/s · " in detail


def test_readouts_show_the_recorded_numbers(
    show: Show, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    panel, model = show(short_takes["pushed"])
    clock.seek(0.3)  # during the push

    assert model.kinematics is not None
    q = model.joint_angles_at(0.3)
    assert q is not None
    x_m, y_m = model.kinematics.joint_positions(q)[-1]
    assert _row(panel, "tip") == f"Tip: ({x_m:.3f}, {y_m:.3f}) m"
    assert _row(panel, "tip_speed").startswith("Tip speed: ")
    assert _row(panel, "tip_speed").endswith(" m/s")
    assert _row(panel, "friction").endswith(" N·m·s/rad")
    assert _row(panel, "active_target") == "Active target: 1"
    assert model.external_force_channel is not None
    force = model.channels[model.external_force_channel].value_at(0.3)
    assert _row(panel, "ext_force") == (
        f"Ext. force: {float(np.hypot(force[0], force[1])):.1f} N"
    )


def test_active_target_readout_follows_the_recorded_switch(
    show: Show, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["multi"])

    clock.seek(0.1)
    assert _row(panel, "active_target") == "Active target: 1"
    clock.seek(0.4)
    assert _row(panel, "active_target") == "Active target: 2"


def test_force_toggle_and_readout_exist_only_with_a_recorded_force(
    show: Show, short_takes: dict[str, Path], skelarm_logs: list[Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    assert _shown(panel, "show_force")
    assert _shown(panel, "ext_force")

    reach = next(path for path in skelarm_logs if path.name == "reach.sklog.npz")
    show(reach)
    assert not _shown(panel, "show_force")
    assert not _shown(panel, "ext_force")
    assert not _shown(panel, "friction")


def test_overlay_toggles_appear_only_with_their_overlay_data(
    show: Show, short_takes: dict[str, Path], skelarm_logs: list[Path]
) -> None:
    panel, _ = show(short_takes["multi"])
    assert _shown(panel, "show_targets")
    assert not _shown(panel, "show_reference")
    assert not _shown(panel, "show_calibration")

    curve = next(path for path in skelarm_logs if path.name.startswith("periodic"))
    show(curve)
    assert not _shown(panel, "show_targets")
    assert _shown(panel, "show_reference")

    show(short_takes["reach"])  # has a camera
    assert _shown(panel, "show_calibration")
    assert _shown(panel, "show_com")


def test_clicking_a_toggle_updates_the_view_options(
    show: Show, qtbot: Any, options: ViewOptionsModel, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    com: QCheckBox = _child(panel, QCheckBox, "show_com")
    force: QCheckBox = _child(panel, QCheckBox, "show_force")
    assert not com.isChecked()

    with qtbot.waitSignal(options.changed, timeout=1000):
        _click(com, qtbot)
    assert options.options.shows("com")
    _click(force, qtbot)
    assert not options.options.shows("force")
    assert com.isChecked()
    assert not force.isChecked()


def test_options_changed_elsewhere_check_the_box_and_carry_to_the_next_file(
    show: Show, options: ViewOptionsModel, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["pushed"])

    options.set(shown(show_com=True, hidden=("targets",)))
    assert _child(panel, QCheckBox, "show_com").isChecked()
    assert not _child(panel, QCheckBox, "show_targets").isChecked()

    show(short_takes["multi"])
    assert _child(panel, QCheckBox, "show_com").isChecked()
    assert not _child(panel, QCheckBox, "show_targets").isChecked()
    assert options.options.shows("com")
    assert not options.options.shows("targets")


def test_speed_box_and_clock_follow_each_other(
    show: Show, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    speed: QDoubleSpinBox = _child(panel, QDoubleSpinBox, "speed")
    assert (speed.minimum(), speed.maximum(), speed.singleStep()) == (0.1, 10.0, 0.1)
    assert speed.suffix() == "\N{MULTIPLICATION SIGN}"

    speed.stepBy(1)  # the user's up arrow
    assert clock.speed == pytest.approx(1.1)
    clock.set_speed(0.5)
    assert speed.value() == pytest.approx(0.5)
    clock.set_speed(40.0)
    assert speed.value() == pytest.approx(10.0)


def test_loop_checkbox_and_clock_follow_each_other(
    show: Show, qtbot: Any, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    loop: QCheckBox = _child(panel, QCheckBox, "loop")

    _click(loop, qtbot)
    assert clock.loop
    clock.set_loop(False)
    assert not loop.isChecked()


def test_plot_and_playlist_buttons_ask_the_window(
    show: Show, qtbot: Any, short_takes: dict[str, Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    plot: QPushButton = _child(panel, QPushButton, "plot_channels")
    playlist: QPushButton = _child(panel, QPushButton, "playlist_button")
    assert plot.text() == "Plot channels…"
    assert playlist.isCheckable()

    with qtbot.waitSignal(panel.plot_requested, timeout=1000):
        qtbot.mouseClick(plot, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(panel.playlist_toggled, timeout=1000) as blocker:
        qtbot.mouseClick(playlist, Qt.MouseButton.LeftButton)
    assert blocker.args == [True]
    with qtbot.assertNotEmitted(panel.playlist_toggled):
        panel.set_playlist_checked(False)
    assert not playlist.isChecked()


def test_skelarm_logs_show_their_joints_time_and_readouts(
    show: Show, clock: PlaybackClock, skelarm_logs: list[Path]
) -> None:
    assert skelarm_logs
    for path in skelarm_logs:
        panel, model = show(path)
        middle_s = 0.5 * model.duration_s
        clock.seek(middle_s)

        assert _text(panel, "header") == f"Replay — {model.title}"
        assert _row(panel, "time").startswith(f"t = {middle_s:.2f} s")
        _assert_joints_show(panel, model, middle_s)
        assert _row(panel, "tip_speed") == _expected(model, "tip_speed", middle_s)


def test_next_file_rebuilds_the_joint_rows(
    show: Show, short_takes: dict[str, Path], skelarm_logs: list[Path]
) -> None:
    panel, _ = show(short_takes["pushed"])
    assert len(panel.findChildren(JointBar)) == 3

    show(skelarm_logs[0])  # a two-link arm
    assert len(panel.findChildren(JointBar)) == 2
    assert panel.findChild(JointBar, "joint_2") is None


def test_file_labels_are_plain_text_and_name_the_file(
    show: Show, short_takes: dict[str, Path]
) -> None:
    model = open_recording(short_takes["pushed"])
    panel, _ = show(dataclasses.replace(model, title="<b>bold</b> " + "x" * 200))

    file_name: QLabel = _child(panel, QLabel, "file_name")
    assert file_name.toolTip() == tooltip_html(model.path)
    assert file_name.text() == model.path.name
    assert all(
        label.textFormat() == Qt.TextFormat.PlainText
        for label in panel.findChildren(QLabel)
    )
    header: QLabel = _child(panel, QLabel, "header")
    assert header.text().startswith("Replay — <b>bold</b>")
    assert header.text().endswith("…")  # elided, not widening the panel
    assert panel.width() == 300


def test_without_a_recording_the_panel_shows_no_rows_or_toggles(
    show: Show, panel: SidePanel, short_takes: dict[str, Path]
) -> None:
    show(short_takes["reach"])

    panel.set_model(None)

    assert _text(panel, "header") == "Replay"
    assert panel.findChildren(JointBar) == []
    for name in ("show_com", "show_force", "show_targets", "time", "tip"):
        assert not _shown(panel, name)
    assert not _child(panel, QPushButton, "plot_channels").isEnabled()


def _many_joints_model(count: int, values: np.ndarray | None = None) -> RecordingModel:
    """Return a two-armed robot of ``count`` joints: ``left_j0`` ... ``right_j...``."""
    times = np.linspace(0.0, 1.0, 11)
    half = count // 2
    names = tuple(
        f"{'left' if index < half else 'right'}_j{index}" for index in range(count)
    )
    state = Channel("state", times, np.zeros((11, count)) if values is None else values)
    specs = tuple(JointSpec(name, lower=-1.0, upper=1.0) for name in names)
    return RecordingModel(
        path=Path("robot.fsr"),
        source="fsr",
        title="robot",
        timeline=Timeline((Segment(0, 0.0, 1.0, 0.0, 0, 10),)),
        channels={"state": state},
        joints=JointSet(specs, "state", tuple(range(count))),
    )


def test_thirty_six_joints_all_listed_grouped_by_arm_in_their_own_scroll(
    panel: SidePanel, clock: PlaybackClock, qtbot: Any
) -> None:
    model = _many_joints_model(36)
    clock.set_frames(model.channels["state"].times_s)
    panel.set_model(model)
    panel.resize(panel.width(), 700)

    assert len(panel.findChildren(JointBar)) == 36
    assert panel.findChild(QLabel, "more_joints") is None
    groups = [
        label.text()
        for label in panel.findChildren(QLabel)
        if label.objectName().startswith("joint_group_")
    ]
    assert groups == ["left", "right"]
    area: QScrollArea = _child(panel, QScrollArea, "joints_scroll")
    assert area.isVisibleTo(panel)
    assert area.height() < 400  # the readouts and controls below stay in reach
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0
    last: JointBar = _child(panel, JointBar, "joint_35")
    area.ensureWidgetVisible(last)
    assert bar.value() == bar.maximum()
    button: QPushButton = _child(panel, QPushButton, "plot_channels")
    bottom = button.mapTo(panel, QPoint(0, button.height())).y()
    assert button.isVisibleTo(panel)
    assert bottom <= panel.height()  # in reach below 36 joints


def test_a_joint_past_its_limit_is_drawn_in_the_warning_colour(
    panel: SidePanel, clock: PlaybackClock
) -> None:
    values = np.zeros((11, 2))
    values[5:, 1] = 1.5  # past its upper limit of 1 rad from 0.5 s on
    model = _many_joints_model(2, values)
    clock.set_frames(model.channels["state"].times_s)
    panel.set_model(model)
    value: QLabel = _child(panel, QLabel, "joint_1_value")
    normal = value.palette().color(value.foregroundRole())

    clock.seek(0.8)

    assert value.text() == "86°"
    assert value.palette().color(value.foregroundRole()) == OUT_OF_LIMITS_COLOR
    assert value.font().bold()
    assert _child(panel, JointBar, "joint_1").joint.outside
    clock.seek(0.0)
    assert value.palette().color(value.foregroundRole()) == normal
    assert not value.font().bold()


def test_no_joint_angles_recorded_only_without_joints(
    show: Show, panel: SidePanel, short_takes: dict[str, Path]
) -> None:
    show(short_takes["reach"])
    texts = [label.text() for label in panel.findChildren(QLabel)]
    assert "No joint angles recorded" not in texts

    model = open_recording(TEST_DATA / "genesis" / "v4_box_exact.gstraj")
    panel.set_model(model)

    assert _row(panel, "joints") == "No joint angles recorded"
    assert panel.findChildren(JointBar) == []


def test_a_topic_read_when_shown_is_read_off_the_gui_thread_then_shown(
    qtbot: Any, clock: PlaybackClock, options: ViewOptionsModel
) -> None:
    queued: list[Any] = []
    panel = SidePanel(clock, options, runner=queued.append)
    qtbot.addWidget(panel)
    model = open_recording(TEST_DATA / "mcap" / "ros2.mcap")
    clock.set_frames(np.linspace(0.0, model.duration_s, 11))
    panel.set_model(model)
    clock.seek(0.5)

    assert not model.channels["/joint_states"].loaded  # the GUI thread waits not
    assert _text(panel, "joint_0_value") == "n/a"
    assert len(queued) == 1

    queued[0].run()  # the worker reads the topic, then the panel shows it
    qtbot.waitUntil(lambda: _text(panel, "joint_0_value") != "n/a")

    q = model.joint_angles_at(0.5)
    assert q is not None
    assert _text(panel, "joint_0_value") == f"{math.degrees(q[0]):.0f}°"
    assert _text(panel, "joint_0_detail").endswith(" N·m")
