"""The panel row providers and their registry, without Qt.

Which rows a recording has (from what it records, whatever the file says)
and the lines they give; the panels themselves are tested in
``test_panel_rows.py``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from python_probe import probe_json

from app.canvas.panel_rows import (
    BUILTIN_ROWS,
    Moment,
    RowValue,
    Section,
    panel_rows,
    register_panel_row,
    row_value,
    rows_for,
    unregister_panel_row,
)
from fsr_core.recording import Channel, RecordingModel, Segment, Timeline


def _model(**changes: Any) -> RecordingModel:
    """Return a model of 11 samples over one second, no joints, from ``changes``."""
    times = np.linspace(0.0, 1.0, 11)
    model = RecordingModel(
        path=Path("x.fsr"),
        source="fsr",
        title="x",
        timeline=Timeline((Segment(0, 0.0, 1.0, 0.0, 0, 10),)),
        channels={"x": Channel("x", times, times)},
    )
    return dataclasses.replace(model, **changes)


def _names(model: RecordingModel) -> list[str]:
    return [row.name for row in rows_for(model)]


def test_importing_the_registry_loads_no_qt() -> None:
    loaded = probe_json(
        "import json, sys\n"
        "import app.canvas.panel_rows\n"
        "print(json.dumps(sorted(name for name in sys.modules\n"
        "    if name.startswith(('PySide6', 'shiboken6', 'pyqtgraph')))))\n"
    )

    assert loaded == []


def test_the_built_in_rows_are_listed_once_in_panel_order() -> None:
    names = [row.name for row in BUILTIN_ROWS]

    assert names == [
        "time",
        "ticks",
        "episode",
        "task",
        "joints",
        "tip",
        "tip_speed",
        "ext_force",
        "friction",
        "active_target",
    ]
    assert panel_rows() == BUILTIN_ROWS


def test_a_recording_of_nothing_but_a_channel_has_the_time_and_ticks() -> None:
    model = _model()

    assert _names(model) == ["time", "ticks"]
    time = row_value(model, "time", 0.25)
    ticks = row_value(model, "ticks", 0.25)
    assert time is not None
    assert ticks is not None
    assert time.texts == ("t = 0.25 s",)
    assert ticks.texts == ("tick 2 · generation 0",)


@pytest.mark.parametrize(
    "changes",
    [
        {"source": "mcap"},
        {"source": "lerobot"},
        {"provenance": {"mode": "convert", "source_kind": "mcap"}},
        {"timeline": Timeline(())},
    ],
    ids=["mcap", "lerobot", "converted-from-mcap", "no-timeline"],
)
def test_ticks_show_only_where_a_simulator_recorded_them(
    changes: dict[str, Any],
) -> None:
    assert "ticks" not in _names(_model(**changes))


def test_a_dataset_episode_shows_its_index_frame_and_dataset() -> None:
    metadata = {"dataset": "tiny", "episode_index": 7, "total_episodes": 12}
    model = _model(source="lerobot", metadata=metadata)

    value = row_value(model, "episode", 0.45)

    assert _names(model) == ["time", "episode"]
    assert value is not None
    assert value.texts == ("Episode 7 · frame 4", "tiny (12 episodes)")
    assert value.value == 7


def test_an_fsr_file_converted_from_an_episode_keeps_its_episode_row() -> None:
    provenance = {
        "mode": "convert",
        "source_kind": "lerobot",
        "dataset": "/data/robots/pick_cubes",
        "episode_index": 3,
    }
    model = _model(provenance=provenance)

    value = row_value(model, "episode", 1.0)

    assert _names(model) == ["time", "episode"]
    assert value is not None
    assert value.texts == ("Episode 3 · frame 10", "pick_cubes")


@pytest.mark.parametrize(
    "metadata",
    [
        {"episode_index": True},
        {"episode_index": "3"},
        {"episode_index": -1},
        {"episode_index": 3.0},
        {"dataset": "tiny"},
    ],
)
def test_no_episode_row_without_a_whole_episode_index(
    metadata: dict[str, Any],
) -> None:
    assert "episode" not in _names(_model(metadata=metadata))


def test_odd_provenance_and_dataset_names_are_shown_as_safe_text() -> None:
    metadata = {"episode_index": 1, "dataset": "a\u202eb\n" + "x" * 300}
    model = _model(metadata=metadata, provenance={"source_kind": ["lerobot"]})

    value = row_value(model, "episode", 0.0)

    assert "ticks" in _names(model)  # an unhashable kind is no known kind
    assert value is not None
    dataset = value.texts[1]
    assert "\u202e" not in dataset
    assert "\n" not in dataset
    assert len(dataset) < 120


def test_a_task_row_shows_the_task_in_force() -> None:
    model = _model(task_texts=((0.0, "pick"), (0.5, "place <b>it</b>")))

    early = row_value(model, "task", 0.2)
    late = row_value(model, "task", 0.7)

    assert early is not None
    assert late is not None
    assert early.texts == ("Task: pick",)
    assert late.texts == ("Task: place <b>it</b>",)  # shown as text, never markup


def test_joint_rows_need_joint_angles_and_tip_rows_the_kinematics() -> None:
    times = np.linspace(0.0, 1.0, 11)
    q = Channel("q", times, np.zeros((11, 2)))
    model = _model(channels={"q": q}, joint_channel="q")

    joints = row_value(model, "joints", 0.5)

    assert _names(model) == ["time", "ticks", "joints"]
    assert joints is not None
    assert [joint.degrees_text for joint in joints.joints] == ["0°", "0°"]
    assert [joint.max_text for joint in joints.joints] == ["180°", "180°"]


class _Extra:
    name = "extra"
    label = "Extra"
    section = Section.READOUTS

    def applies(self, model: RecordingModel) -> bool:
        return True

    def value_at(self, moment: Moment) -> RowValue:
        return RowValue()


def test_registering_adds_a_row_where_asked_and_refuses_a_second_of_one_name() -> None:
    register_panel_row(_Extra(), before="ticks")
    try:
        assert _names(_model())[:3] == ["time", "extra", "ticks"]
        with pytest.raises(ValueError, match="'extra' is registered already"):
            register_panel_row(_Extra())
    finally:
        unregister_panel_row("extra")

    assert panel_rows() == BUILTIN_ROWS
    with pytest.raises(ValueError, match="no panel row named 'nothing'"):
        register_panel_row(_Extra(), before="nothing")
    with pytest.raises(KeyError):
        unregister_panel_row("extra")
    assert panel_rows() == BUILTIN_ROWS
