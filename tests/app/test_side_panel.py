"""The player's side panel: what it shows at the clock's time, what its controls do."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QLabel,
    QPushButton,
    QSlider,
    QWidget,
)
from view_models import shown

from app.canvas.panel_rows import row_values, rows_for
from app.window.state import PlaybackClock, ViewOptionsModel
from app.window.widgets.plain_text import tooltip_html
from app.window.widgets.side_panel import SidePanel
from fsr_core.recording import RecordingModel
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
    sliders = panel.findChildren(QSlider)
    assert len(sliders) == len(q)
    for index, angle in enumerate(q):
        slider: QSlider = _child(panel, QSlider, f"joint_{index}")
        assert not slider.isEnabled()  # read-only
        assert slider.value() == round(float(angle) * 1000.0)
        assert _text(panel, f"joint_{index}_value") == f"{math.degrees(angle):.0f}°"


def test_seeking_updates_the_time_readout_and_the_joint_sliders(
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


def test_joint_sliders_span_the_joint_limits(
    show: Show, short_takes: dict[str, Path]
) -> None:
    panel, model = show(short_takes["reach"])
    assert model.kinematics is not None
    assert model.kinematics.q_min_rad is not None
    assert model.kinematics.q_max_rad is not None

    for index, (low, high) in enumerate(
        zip(model.kinematics.q_min_rad, model.kinematics.q_max_rad, strict=True)
    ):
        slider: QSlider = _child(panel, QSlider, f"joint_{index}")
        assert slider.minimum() == pytest.approx(low * 1000.0, abs=1.0)
        assert slider.maximum() == pytest.approx(high * 1000.0, abs=1.0)
        assert f"{math.degrees(high):.0f}°" in slider.toolTip()


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
    assert len(panel.findChildren(QSlider)) == 3

    show(skelarm_logs[0])  # a two-link arm
    assert len(panel.findChildren(QSlider)) == 2
    assert panel.findChild(QSlider, "joint_2") is None


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
    assert panel.findChildren(QSlider) == []
    for name in ("show_com", "show_force", "show_targets", "time", "tip"):
        assert not _shown(panel, name)
    assert not _child(panel, QPushButton, "plot_channels").isEnabled()
