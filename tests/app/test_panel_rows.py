"""Panel rows as plug-ins: both panels show the rows a recording has, alike.

The window's side panel and the panel exports paint beside the scene read one
registry (``app.canvas.panel_rows``). These tests look at what each panel
shows: the side panel's visible labels and sliders, the exported panel's
painted lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import SO100_JOINTS, TEST_DATA
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from app.canvas.panel import ReadoutPanel
from app.canvas.panel_rows.base import Moment, RowLine, RowValue, Section
from app.canvas.panel_rows.registry import (
    panel_rows,
    register_panel_row,
    unregister_panel_row,
)
from app.canvas.qimage_arrays import qimage_to_rgb
from app.window.state import PlaybackClock, ViewOptionsModel
from app.window.widgets.joint_rows import ElidedLabel, JointBar
from app.window.widgets.side_panel import SidePanel
from fsr_core.recording import RecordingModel
from fsr_core.sources import expand_recordings, open_recording

pytestmark = pytest.mark.gui

MCAP = TEST_DATA / "mcap" / "ros2.mcap"
LEROBOT = TEST_DATA / "lerobot" / "tiny_v30"
PLAY_TIME_S = 0.3


@pytest.fixture
def clock(qapp: Any) -> PlaybackClock:
    return PlaybackClock()


@pytest.fixture
def panel(qtbot: Any, clock: PlaybackClock) -> SidePanel:
    widget = SidePanel(clock, ViewOptionsModel())
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _show(panel: SidePanel, clock: PlaybackClock, model: RecordingModel) -> None:
    """Load ``model`` as the window does and go to ``PLAY_TIME_S``."""
    clock.set_frames(np.linspace(0.0, model.duration_s, 11))
    panel.set_model(model)
    clock.seek(PLAY_TIME_S)
    QApplication.processEvents()  # lays the new rows out


def _top(widget: QWidget, panel: SidePanel) -> int:
    return widget.mapTo(panel, QPoint(0, 0)).y()


def _shown_rows(panel: SidePanel) -> list[QWidget]:
    """Return the row widgets the side panel shows, top to bottom."""
    found = [panel.findChild(QWidget, f"row_{row.name}") for row in panel_rows()]
    shown = [row for row in found if row is not None and row.isVisibleTo(panel)]
    return sorted(shown, key=lambda row: _top(row, panel))


def _label_text(label: QLabel) -> str:
    return label.full_text() if isinstance(label, ElidedLabel) else label.text()


def _joint_line(row: QWidget, name: str) -> str:
    """Return what the side panel shows of one joint widget, as a panel line."""
    index = name.split("_")[1]
    if name.endswith("_name"):
        value = row.findChild(QLabel, f"joint_{index}_value")
        assert value is not None
        label = row.findChild(QLabel, name)
        assert label is not None
        return f"{_label_text(label)}: {value.text()}"
    label = row.findChild(QLabel, name)
    assert label is not None
    return label.text()


def _row_lines(panel: SidePanel, row: QWidget) -> list[str]:
    """Return the lines one row shows: its labels, then each joint's lines."""
    labels = [label for label in row.findChildren(QLabel) if label.isVisibleTo(panel)]
    ordered = sorted(labels, key=lambda label: _top(label, panel))
    lines = [
        label.text()
        for label in ordered
        if label.objectName().startswith(row.objectName())
    ]
    lines += [
        _joint_line(row, label.objectName())
        for label in sorted(
            row.findChildren(QLabel), key=lambda label: _top(label, row)
        )
        if (
            label.objectName().startswith("joint_")
            and label.objectName().endswith(("_name", "_detail"))
        )
        or label.objectName().startswith("joint_group_")
    ]
    return lines


def _side_panel_lines(panel: SidePanel, clock: PlaybackClock) -> list[str]:
    """Return every line the side panel's rows show, the time's without its frame."""
    frame = f" (frame {clock.frame_index + 1}/{clock.frame_count})"
    lines = [line for row in _shown_rows(panel) for line in _row_lines(panel, row)]
    assert lines[0].endswith(frame)
    return [lines[0].removesuffix(frame), *lines[1:]]


def _export_lines(model: RecordingModel) -> list[str]:
    """Return the lines the exported panel paints below its heading."""
    heading, *lines = ReadoutPanel(model).text_lines(PLAY_TIME_S)
    assert heading == "Simulation"
    return lines


def _names(panel: SidePanel) -> list[str]:
    return [row.objectName().removeprefix("row_") for row in _shown_rows(panel)]


def test_a_planar_arm_shows_time_joints_tip_and_force_in_both_panels(
    panel: SidePanel, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    model = open_recording(short_takes["pushed"])

    _show(panel, clock, model)

    names = _names(panel)
    for name in ("time", "ticks", "joints", "tip", "tip_speed", "ext_force"):
        assert name in names
    assert names.index("time") < names.index("joints") < names.index("tip")
    assert len(panel.findChildren(JointBar)) == 3
    exported = _export_lines(model)
    assert exported[0] == f"t = {PLAY_TIME_S:.2f} s"
    joints = [line for line in exported if line.startswith(("q0:", "q1:", "q2:"))]
    assert len(joints) == 3
    assert all(line in _side_panel_lines(panel, clock) for line in joints)
    assert any(line.startswith("Tip: (") for line in exported)
    assert any(line.startswith("Ext. force: ") for line in exported)


@pytest.mark.parametrize("kind", ["mcap", "lerobot"])
def test_a_recording_without_ticks_or_force_shows_its_joints_alone(
    kind: str, panel: SidePanel, clock: PlaybackClock
) -> None:
    path = MCAP if kind == "mcap" else expand_recordings([LEROBOT])[0]
    model = open_recording(path)

    _show(panel, clock, model)

    absent = ("ticks", "tip", "tip_speed", "ext_force", "friction")
    names = _names(panel)
    assert not set(absent) & set(names)
    assert "joints" in names
    exported = _export_lines(model)
    for start in ("tick ", "Tip", "Ext. force", "Friction", "No joint"):
        assert not [line for line in exported if line.startswith(start)], start
    assert exported[0] == f"t = {PLAY_TIME_S:.2f} s"
    if kind == "lerobot":
        assert names == ["time", "episode", "task", "joints"]
        assert exported[1:4] == [
            "Episode 0 · frame 3",
            "tiny_v30 (3 episodes)",
            "Task: pick the red cube",
        ]
        assert [line.split(":")[0] for line in exported[4:]] == list(SO100_JOINTS)


@pytest.mark.parametrize("take", ["reach", "multi", "pushed"])
def test_both_panels_show_the_same_lines_in_the_same_order(
    take: str, panel: SidePanel, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    model = open_recording(short_takes[take])

    _show(panel, clock, model)

    assert _side_panel_lines(panel, clock) == _export_lines(model)


def test_the_same_lines_for_a_dataset_episode(
    panel: SidePanel, clock: PlaybackClock
) -> None:
    model = open_recording(expand_recordings([LEROBOT])[1])

    _show(panel, clock, model)

    assert _side_panel_lines(panel, clock) == _export_lines(model)


class _NoteRow:
    """A row a test adds: a note on every FSR file."""

    name = "test_note"
    label = "Note"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return model.source == "fsr"

    def value_at(self, moment: Moment) -> RowValue:
        return RowValue(lines=(RowLine(f"Note at {moment.play_time_s:.1f} s"),))


@pytest.fixture
def note_row() -> Iterator[_NoteRow]:
    row = _NoteRow()
    register_panel_row(row, before="tip")
    yield row
    unregister_panel_row(row.name)


def test_a_registered_row_shows_in_both_panels(
    panel: SidePanel, clock: PlaybackClock, short_takes: dict[str, Path]
) -> None:
    model = open_recording(short_takes["reach"])
    before = qimage_to_rgb(ReadoutPanel(model).render(PLAY_TIME_S, 600))
    register_panel_row(_NoteRow(), before="tip")
    try:
        _show(panel, clock, model)
        after = qimage_to_rgb(ReadoutPanel(model).render(PLAY_TIME_S, 600))
        exported = _export_lines(model)
        names = _names(panel)
        side = _side_panel_lines(panel, clock)
    finally:
        unregister_panel_row("test_note")

    assert names.index("joints") < names.index("test_note") == names.index("tip") - 1
    assert "Note at 0.3 s" in side
    assert exported == side
    tip = next(index for index, line in enumerate(exported) if line.startswith("Tip:"))
    assert exported[tip - 1] == "Note at 0.3 s"
    assert not np.array_equal(before, after)  # painted, not only listed


def test_a_registered_row_shows_only_where_it_applies(
    note_row: _NoteRow, panel: SidePanel, clock: PlaybackClock
) -> None:
    model = open_recording(MCAP)

    _show(panel, clock, model)

    assert note_row.name not in _names(panel)
    assert not [line for line in _export_lines(model) if line.startswith("Note")]
