"""The channel plots and the "Plot channels…" picker, driven through real widgets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTreeWidgetItem
from pytestqt.qtbot import QtBot
from recording_models import channels_model
from shown_widgets import show_widget, turn_wheel

from app.window.plots import ChannelPickerDialog, ChannelPlots, series_keys
from fsr_core.recording import Channel, RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

BIG_POINTS = 100_000


def _read_whole(path: Path) -> RecordingModel:
    """Open a take with its channels read, as the plots have them once shown."""
    model = open_recording(path)
    for channel in model.channels.values():
        _ = channel.values
    return model


@pytest.fixture(scope="module")
def reach(short_takes: dict[str, Path]) -> RecordingModel:
    return _read_whole(short_takes["reach"])


@pytest.fixture(scope="module")
def multi(short_takes: dict[str, Path]) -> RecordingModel:
    return _read_whole(short_takes["multi"])


@pytest.fixture(scope="module")
def big() -> RecordingModel:
    """One 100k-point channel over 100 s with a spike at 31.234 s."""
    times = np.linspace(0.0, 100.0, BIG_POINTS)
    values = np.sin(times * 3.0)
    values[31_234] = 25.0
    return channels_model(Channel("big", times, values, unit="m", columns=("wave",)))


@pytest.fixture
def plots(qtbot: QtBot) -> Iterator[ChannelPlots]:
    widget = show_widget(qtbot, ChannelPlots(), (800, 600))
    yield widget
    widget.close()


def _view(plots: ChannelPlots, index: int = 0) -> Any:
    return plots.plot_widget(index).getPlotItem().getViewBox()


def _items(plots: ChannelPlots, index: int = 0) -> list[Any]:
    return list(plots.plot_widget(index).getPlotItem().listDataItems())


def _point_at(plots: ChannelPlots, index: int, play_time_s: float) -> QPoint:
    """Return the viewport pixel of ``play_time_s``, half-way up plot ``index``."""
    view = _view(plots, index)
    y_min, y_max = view.viewRange()[1]
    scene = view.mapViewToScene(QPointF(play_time_s, (y_min + y_max) / 2))
    point: QPoint = plots.plot_widget(index).mapFromScene(scene)
    return point


def _seconds_per_pixel(plots: ChannelPlots) -> float:
    x_min, x_max = _view(plots).viewRange()[0]
    return float(x_max - x_min) / float(_view(plots).width())


def _wheel(widget: Any, point: QPoint, steps: int) -> None:
    """Turn the mouse wheel over ``point`` of a plot's viewport."""
    turn_wheel(widget.viewport(), QPointF(point), steps)


# -- plots ------------------------------------------------------------------


def test_each_plot_names_its_series_by_column_in_the_legend_and_axis(
    plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",), ("ext_force", "active_target")))

    assert plots.plot_count == 2
    assert plots.series_names(0) == ["q0", "q1", "q2"]
    assert plots.series_names(1) == ["ext_fx", "ext_fy", "active_target"]
    legend = plots.plot_widget(0).getPlotItem().legend
    assert [label.text for _, label in legend.items] == ["q0", "q1", "q2"]
    first, second = (plots.plot_widget(i).getPlotItem() for i in range(2))
    assert first.getAxis("left").labelText == "joint angle [rad]"
    assert second.getAxis("left").labelText == "ext_force, active_target"
    assert second.getAxis("bottom").labelText == "time [s]"


def test_series_get_distinct_thin_colours_on_the_palette_base(
    plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q", "ext_force"),))

    pens = [item.opts["pen"] for item in _items(plots)]
    assert len({pen.color().name() for pen in pens}) == len(pens) == 5
    assert {pen.widthF() for pen in pens} == {1.5}
    base = plots.palette().color(QPalette.ColorRole.Base)
    assert plots.plot_widget(0).backgroundBrush().color() == base


def test_unknown_keys_are_skipped_and_the_choice_carries_to_the_next_file(
    plots: ChannelPlots, reach: RecordingModel, multi: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q[q1]", "no_such_channel", "q[q7]"), ("missing",)))

    assert plots.plot_count == 1
    assert plots.series_names(0) == ["q1"]
    plots.set_model(multi)
    assert plots.plot_count == 1
    assert plots.series_names(0) == ["q1"]
    (item,) = _items(plots)
    assert item.getData()[1][-1] == pytest.approx(multi.channels["q"].values[-1, 1])


def test_a_column_shared_by_two_channels_is_told_apart_in_one_plot(
    plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q[q0]", "observations.arm[q0]"),))

    assert plots.series_names(0) == ["q[q0]", "observations.arm[q0]"]


def test_set_position_moves_the_cursor_of_every_plot(
    qtbot: QtBot, plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",), ("ext_force",), ("active_target",)))

    with qtbot.assertNotEmitted(plots.seek_requested):
        plots.set_position(0.3)

    assert plots.cursor_positions() == pytest.approx([0.3, 0.3, 0.3])


def test_clicking_in_a_plot_requests_a_seek_to_the_clicked_time(
    qtbot: QtBot, plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",), ("ext_force",)))
    point = _point_at(plots, 1, 0.3)

    with qtbot.waitSignal(plots.seek_requested, timeout=2000) as blocker:
        qtbot.mouseClick(
            plots.plot_widget(1).viewport(), Qt.MouseButton.LeftButton, pos=point
        )

    assert blocker.args[0] == pytest.approx(0.3, abs=2 * _seconds_per_pixel(plots))


def test_a_click_beyond_the_data_seeks_to_its_nearest_end(
    qtbot: QtBot, plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",),))
    times = reach.channels["q"].times_s
    plots.plot_widget(0).setXRange(-1.0, 2.0, padding=0)
    viewport = plots.plot_widget(0).viewport()

    with qtbot.waitSignal(plots.seek_requested, timeout=2000) as before:
        qtbot.mouseClick(
            viewport, Qt.MouseButton.LeftButton, pos=_point_at(plots, 0, -0.5)
        )
    with qtbot.waitSignal(plots.seek_requested, timeout=2000) as after:
        qtbot.mouseClick(
            viewport, Qt.MouseButton.LeftButton, pos=_point_at(plots, 0, 1.5)
        )

    assert before.args[0] == pytest.approx(times[0])
    assert after.args[0] == pytest.approx(times[-1])


@pytest.fixture
def every_mouse_move() -> Iterator[None]:
    """Let pyqtgraph see every synthetic move (it drops those < 10 ms apart)."""
    limit = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", limit)


@pytest.mark.usefixtures("every_mouse_move")
def test_dragging_the_cursor_requests_seeks_along_the_way(
    qtbot: QtBot, plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",),))
    plots.set_position(0.1)
    viewport = plots.plot_widget(0).viewport()
    start, end = _point_at(plots, 0, 0.1), _point_at(plots, 0, 0.4)
    seeks: list[float] = []
    plots.seek_requested.connect(seeks.append)

    qtbot.mouseMove(viewport, start)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for fraction in (0.25, 0.5, 0.75, 1.0):
        qtbot.mouseMove(viewport, start + (end - start) * fraction)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)

    assert len(seeks) >= 2
    assert seeks == sorted(seeks)
    assert seeks[-1] == pytest.approx(0.4, abs=2 * _seconds_per_pixel(plots))


def test_a_100k_point_series_is_drawn_decimated_and_keeps_its_spike(
    plots: ChannelPlots, big: RecordingModel
) -> None:
    plots.set_model(big)
    plots.set_plots((("big",),))

    (item,) = _items(plots)
    x_drawn, y_drawn = item.getData()
    width_px = int(_view(plots).width())
    assert x_drawn.size <= 2 * width_px + 6
    assert x_drawn.size < BIG_POINTS / 10
    assert y_drawn.max() == 25.0
    assert plots.series_names(0) == ["wave"]


def test_zooming_with_the_wheel_redraws_the_view_in_finer_detail(
    qtbot: QtBot, plots: ChannelPlots, big: RecordingModel
) -> None:
    plots.set_model(big)
    plots.set_plots((("big",), ("big",)))
    (item,) = _items(plots)
    spacing_before = float(np.median(np.diff(item.getData()[0])))

    _wheel(plots.plot_widget(0), _point_at(plots, 0, 50.0), steps=8)

    x_min, x_max = _view(plots).viewRange()[0]
    assert x_max - x_min < 50.0
    assert _view(plots, 1).viewRange()[0] == pytest.approx([x_min, x_max])
    x_drawn = item.getData()[0]
    inside = x_drawn[(x_drawn >= x_min) & (x_drawn <= x_max)]
    assert inside.size <= 2 * int(_view(plots).width())
    assert float(np.median(np.diff(inside))) < spacing_before / 2
    assert inside[0] - x_min < 2 * _seconds_per_pixel(plots)
    assert x_max - inside[-1] < 2 * _seconds_per_pixel(plots)


def _show_zoomed_to_40_s(
    plots: ChannelPlots, model: RecordingModel, rows: tuple[tuple[str, ...], ...]
) -> None:
    """Show ``rows`` of ``model``, the first plot zoomed into 40 s to 41 s."""
    plots.set_model(model)
    plots.set_plots(rows)
    plots.plot_widget(0).setXRange(40.0, 41.0, padding=0)


def test_view_all_after_zooming_shows_the_whole_series_again(
    plots: ChannelPlots, big: RecordingModel
) -> None:
    _show_zoomed_to_40_s(plots, big, (("big",),))

    _view(plots).autoRange()

    x_min, x_max = _view(plots).viewRange()[0]
    y_min, y_max = _view(plots).viewRange()[1]
    assert x_min <= 0.0 < 100.0 <= x_max < 110.0
    assert y_min <= -1.0 < 25.0 <= y_max < 28.0


def test_changing_the_plots_of_the_same_file_keeps_the_zoom(
    plots: ChannelPlots, big: RecordingModel
) -> None:
    _show_zoomed_to_40_s(plots, big, (("big",),))

    plots.set_plots((("big",), ("big[wave]",)))

    assert _view(plots, 1).viewRange()[0] == pytest.approx([40.0, 41.0])


def test_the_next_file_is_shown_whole_whatever_the_zoom_before(
    plots: ChannelPlots, big: RecordingModel, reach: RecordingModel
) -> None:
    _show_zoomed_to_40_s(plots, big, (("big",), ("q",)))

    plots.set_model(reach)

    times = reach.channels["q"].times_s
    x_min, x_max = _view(plots).viewRange()[0]
    assert x_min <= times[0] < times[-1] <= x_max < times[-1] * 1.1


def test_no_recording_means_no_plots(
    plots: ChannelPlots, reach: RecordingModel
) -> None:
    plots.set_model(reach)
    plots.set_plots((("q",),))

    plots.set_model(None)

    assert plots.plot_count == 0
    assert plots.cursor_positions() == []


# -- picker -----------------------------------------------------------------


@pytest.fixture
def make_picker(qtbot: QtBot, reach: RecordingModel) -> Any:
    def make(current: tuple[tuple[str, ...], ...] = ()) -> ChannelPickerDialog:
        dialog = ChannelPickerDialog(reach, current)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        return dialog

    return make


def _row(dialog: ChannelPickerDialog, name: str) -> QTreeWidgetItem:
    (item,) = [item for item in dialog.channel_items() if item.text(0) == name]
    return item


def _visible_children(item: QTreeWidgetItem) -> list[str]:
    children = (item.child(row) for row in range(item.childCount()))
    return [child.text(0) for child in children if child and not child.isHidden()]


def _toggle(qtbot: QtBot, dialog: ChannelPickerDialog, item: QTreeWidgetItem) -> None:
    """Toggle a row's check box the way a keyboard user does (Space)."""
    dialog.tree.setCurrentItem(item)
    qtbot.keyClick(dialog.tree, Qt.Key.Key_Space)


def test_the_picker_lists_channels_with_units_and_their_columns(
    make_picker: Any,
) -> None:
    dialog = make_picker()

    assert [item.text(0) for item in dialog.channel_items()] == [
        "observations.arm",
        "q",
        "ext_force",
        "active_target",
    ]
    q = _row(dialog, "q")
    assert q.text(1) == "rad"
    assert _visible_children(q) == ["q0", "q1", "q2"]
    assert dialog.search.placeholderText() == "Search channels"


def test_searching_hides_channels_and_columns_that_do_not_match(
    qtbot: QtBot, make_picker: Any
) -> None:
    dialog = make_picker()

    qtbot.keyClicks(dialog.search, "EXT_F")

    shown = [item.text(0) for item in dialog.channel_items() if not item.isHidden()]
    assert shown == ["observations.arm", "ext_force"]
    assert _visible_children(_row(dialog, "observations.arm")) == ["ext_fx", "ext_fy"]
    assert _row(dialog, "observations.arm").isExpanded()
    assert _visible_children(_row(dialog, "ext_force")) == ["ext_fx", "ext_fy"]
    dialog.search.clear()
    assert all(not item.isHidden() for item in dialog.channel_items())


def test_checking_a_channel_checks_its_columns_and_plots_it_whole(
    qtbot: QtBot, make_picker: Any
) -> None:
    dialog = make_picker()
    q = _row(dialog, "q")

    _toggle(qtbot, dialog, q)

    children = [q.child(row) for row in range(q.childCount())]
    assert all(child.checkState(0) == Qt.CheckState.Checked for child in children)
    assert dialog.selected_plots() == (("q",),)


def test_checked_columns_give_one_plot_per_channel_or_all_in_one(
    qtbot: QtBot, make_picker: Any
) -> None:
    dialog = make_picker()
    q, force = _row(dialog, "q"), _row(dialog, "ext_force")
    _toggle(qtbot, dialog, q.child(1))
    _toggle(qtbot, dialog, force.child(0))
    _toggle(qtbot, dialog, _row(dialog, "active_target"))

    assert q.checkState(0) == Qt.CheckState.PartiallyChecked
    assert dialog.selected_plots() == (
        ("q[q1]",),
        ("ext_force[ext_fx]",),
        ("active_target",),
    )
    qtbot.mouseClick(dialog.all_in_one_button, Qt.MouseButton.LeftButton)
    assert dialog.selected_plots() == (("q[q1]", "ext_force[ext_fx]", "active_target"),)


@pytest.mark.parametrize(
    "current",
    [
        (("observations.arm[tip_x]", "observations.arm[tip_y]"), ("q",)),
        (("q", "ext_force[ext_fy]"),),
        (),
    ],
)
def test_the_current_selection_is_prechecked_and_comes_back_unchanged(
    make_picker: Any, current: tuple[tuple[str, ...], ...]
) -> None:
    dialog = make_picker(current)

    assert dialog.selected_plots() == current
    assert dialog.all_in_one_button.isChecked() == (len(current) == 1)


def test_index_keys_and_unknown_keys_are_read_as_columns_or_dropped(
    make_picker: Any,
) -> None:
    dialog = make_picker((("q[1]", "gone"),))

    assert dialog.selected_plots() == (("q[q1]",),)


def test_ok_accepts_and_cancel_rejects_the_picker(
    qtbot: QtBot, make_picker: Any
) -> None:
    accepting, rejecting = make_picker(), make_picker()
    ok = accepting.buttons.button(QDialogButtonBox.StandardButton.Ok)
    cancel = rejecting.buttons.button(QDialogButtonBox.StandardButton.Cancel)

    with qtbot.waitSignal(accepting.accepted, timeout=2000):
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(rejecting.rejected, timeout=2000):
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)

    assert accepting.result() == QDialog.DialogCode.Accepted
    assert rejecting.result() == QDialog.DialogCode.Rejected


def test_every_key_the_picker_can_produce_is_a_listed_series_key(
    qtbot: QtBot, make_picker: Any, reach: RecordingModel
) -> None:
    dialog = make_picker()
    for item in dialog.channel_items():
        _toggle(qtbot, dialog, item)

    keys = {key for plot in dialog.selected_plots() for key in plot}

    assert keys == set(reach.channels)
    assert keys <= set(series_keys(reach))


def test_a_legend_of_many_series_sits_above_the_data_not_over_it(
    plots: ChannelPlots, qtbot: QtBot
) -> None:
    # A joint state's position, velocity and effort of seven joints.
    times = np.linspace(0.0, 10.0, 500)
    values = np.sin(times[:, None] + np.arange(21)[None, :])
    columns = tuple(
        f"{field}.joint_{i}"
        for field in ("position", "velocity", "effort")
        for i in range(7)
    )
    plots.set_model(
        channels_model(Channel("/joint_states", times, values, columns=columns))
    )
    plots.set_plots((("/joint_states",),))
    plot = plots.plot_widget(0).getPlotItem()
    qtbot.waitUntil(lambda: plot.legend.sceneBoundingRect().height() > 0)

    legend = plot.legend.sceneBoundingRect()
    data = plot.getViewBox().sceneBoundingRect()
    assert len(plot.legend.items) == 21
    assert legend.bottom() <= data.top() + 1  # the whole legend above the data
    assert data.height() > 0.5 * plot.sceneBoundingRect().height()
    assert legend.right() <= plot.sceneBoundingRect().right()


def test_a_legend_shows_a_hostile_column_name_as_written(plots: ChannelPlots) -> None:
    times = np.linspace(0.0, 1.0, 50)
    hostile = '<img src="x"><b>bold</b>\u202eevil'
    model = channels_model(Channel("c", times, np.sin(times), columns=(hostile,)))
    plots.set_model(model)
    plots.set_plots((("c",),))

    legend = plots.plot_widget(0).getPlotItem().legend
    (text,) = [label.text for _, label in legend.items]
    assert "<b>" not in text
    assert "<img" not in text
    assert "&lt;b&gt;bold&lt;/b&gt;" in text
    assert "\u202e" not in text  # the bidi override is made visible, not obeyed


def test_a_long_axis_label_is_elided_in_the_middle_to_fit_a_short_plot(
    qtbot: QtBot,
) -> None:
    times = np.linspace(0.0, 1.0, 50)
    label = "observation.state.of_a_robot_with_a_long_name"
    model = channels_model(Channel(label, times, np.sin(times), unit="rad"))
    widget = show_widget(qtbot, ChannelPlots(), (800, 180))
    widget.set_model(model)
    widget.set_plots(((label,),))
    plot = widget.plot_widget(0).getPlotItem()
    axis = plot.getAxis("left")
    qtbot.waitUntil(lambda: "…" in axis.labelText)

    shown = axis.labelText
    assert shown.startswith("obs")
    assert shown.endswith("[rad]")
    drawn = axis.label.boundingRect().width()  # the label is drawn turned
    assert drawn <= plot.getViewBox().height() + 8
    # ... and centred on the plot again: placed for the long text it had,
    # the short one would hang over the top, cut by the panel's edge.
    label_box = axis.label.sceneBoundingRect()
    view_box = plot.getViewBox().sceneBoundingRect()
    assert label_box.top() >= view_box.top() - 8
    assert label_box.bottom() <= view_box.bottom() + 8
    widget.resize(800, 900)
    qtbot.waitUntil(lambda: axis.labelText == f"{label} [rad]")
    widget.close()
