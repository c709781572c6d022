"""The window shows an MCAP file opened from its indexes without reading a channel.

The inspector, the channel picker, the side panel and frame stepping need
only what a channel knows before reading (name, columns, sample count); a
channel is read when it is plotted, and one that cannot be read is named in
the plots' note.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from data_paths import MCAP_DATA
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from shown_widgets import show_widget

from app.window.main_window import MainWindow
from app.window.plots import ChannelPickerDialog, ChannelPlots
from app.window.widgets.inspector import InspectorPanel
from app.window.workers import run_inline
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

DATA = MCAP_DATA


def _lazy_channels(model: RecordingModel) -> list[str]:
    return [name for name, channel in model.channels.items() if not channel.loaded]


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    found = (item.child(row) for row in range(item.childCount()))
    return [child for child in found if child is not None]


def test_the_window_plays_a_file_opened_from_its_indexes_reading_no_channel(
    window: MainWindow, qtbot: Any
) -> None:
    # The plot the user has open: the file's own first plots are not added.
    window.session.options.update(plots=(("/base/pose2d",),))
    window.open_files([DATA / "json_schemaless.mcap"])
    model = window.session.model
    assert model is not None
    window.menus.inspector_action.trigger()
    clock = window.session.clock
    assert clock.frame_count == model.channels["/metrics/cpu"].count
    clock.step(3)
    clock.seek(model.duration_s / 2)
    qtbot.waitUntil(lambda: window.plots.plot_count == 1)  # read off the GUI thread
    assert window.plots.settled
    assert _lazy_channels(model) == ["/metrics/cpu"]


def test_a_file_of_numbers_alone_opens_on_plots_of_its_channels(
    window: MainWindow, qtbot: Any, short_takes: dict[str, Path]
) -> None:
    window.open_files([short_takes["reach"]])  # an arm to draw: no plots added
    assert window.session.options.options.plots == ()
    assert window.plots_dock.isHidden()

    window.open_files([DATA / "json_schemaless.mcap"], play=True)

    # No scene and no camera: the channels are all there is to show.
    assert window.session.options.options.plots == (
        ("/metrics/cpu",),
        ("/base/pose2d",),
    )
    assert not window.plots_dock.isHidden()
    qtbot.waitUntil(lambda: window.plots.plot_count == 2)
    qtbot.waitUntil(lambda: window.plots_dock.height() > window.height() // 2)

    # Those plots were the window's choice: they leave with the file.
    window.session.load_row(0)
    assert window.session.options.options.plots == ()
    assert window.plots_dock.isHidden()
    window.session.load_row(1)
    assert len(window.session.options.options.plots) == 2
    # Plots the user chose stay, whatever plays.
    window.session.options.update(plots=(("/base/pose2d",),))
    window.session.load_row(0)
    assert window.session.options.options.plots == (("/base/pose2d",),)


def test_a_file_with_cameras_steps_on_its_frames_and_reads_only_its_joints(
    window: MainWindow, qtbot: Any
) -> None:
    window.open_files([DATA / "ros2.mcap"])
    model = window.session.model
    assert model is not None
    window.menus.inspector_action.trigger()
    window.session.clock.seek(0.5)
    frames = sum(track.count or 0 for track in model.cameras)
    assert window.session.clock.frame_count == frames
    # The side panel's joints are read off the GUI thread, and nothing else.
    qtbot.waitUntil(lambda: model.channels["/joint_states"].loaded)
    assert set(_lazy_channels(model)) == {"/odom"}


def test_the_inspector_lists_lazy_channels_with_their_counts_unread(
    qtbot: Any,
) -> None:
    model = open_recording(DATA / "ros2.mcap")
    panel = show_widget(qtbot, InspectorPanel(), (500, 700), exposed=False)
    panel.set_model(model)
    streams = panel.section("Streams")
    assert streams is not None
    rows = {row.text(0): row.text(1) for row in _children(streams)}
    assert rows["/joint_states"].startswith("channel · 200 samples · 18 column(s)")
    assert "Hz" not in rows["/joint_states"]  # the rate shows once it is read
    assert "Hz" in rows["/tf:base_link"]
    assert set(_lazy_channels(model)) == {"/joint_states", "/odom"}


def test_the_channel_picker_lists_lazy_channels_and_their_columns_unread(
    qtbot: Any,
) -> None:
    model = open_recording(DATA / "ros2.mcap")
    current = (("/joint_states[position.joint_1]", "/odom[twist.twist.linear.x]"),)
    dialog = ChannelPickerDialog(model, current)
    qtbot.addWidget(dialog)
    rows = {item.text(0): item for item in dialog.channel_items()}
    assert {"/joint_states", "/odom", "/tf:base_link"} <= set(rows)
    checked = [
        child.text(0)
        for child in _children(rows["/joint_states"])
        if child.checkState(0) == Qt.CheckState.Checked
    ]
    assert checked == ["position.joint_1"]
    assert dialog.all_in_one_button.isChecked()  # one plot of two channels
    assert set(_lazy_channels(model)) == {"/joint_states", "/odom"}


def test_a_channel_that_cannot_be_read_is_named_in_the_plots_note(
    qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "gone.mcap"
    shutil.copyfile(DATA / "layout_chunked_zstd.mcap", path)
    model = open_recording(path)
    path.unlink()
    plots = show_widget(qtbot, ChannelPlots(runner=run_inline), (800, 600))
    plots.set_model(model)
    plots.set_plots((("/layout/pose",),))
    assert plots.plot_count == 0
    assert plots.note.text().startswith(f"Not plotted: {path}")
    assert plots.note.isVisibleTo(plots)
