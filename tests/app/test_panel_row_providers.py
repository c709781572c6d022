"""The panel row providers and their registry, without Qt.

Which rows a recording has (from what it records, whatever the file says)
and the lines they give; the panels themselves are tested in
``test_panel_rows.py``.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from python_probe import probe_json

from app.canvas.panel_rows.base import Moment, RowValue, Section, joint_lines
from app.canvas.panel_rows.registry import (
    BUILTIN_ROWS,
    panel_rows,
    register_panel_row,
    row_value,
    rows_for,
    unregister_panel_row,
)
from fsr_core.joint_set import JointKind, JointSet, JointSpec
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
        "environment",
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

    assert _names(model) == ["time", "ticks", "joints"]
    joints = row_value(model, "joints", 0.25)
    assert joints is not None
    assert joints.texts == ("No joint angles recorded",)
    assert joints.joints == ()
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
        {"source": "rosbag1"},
        {"source": "rosbag2"},
        {"provenance": {"mode": "convert", "source_kind": "mcap"}},
        {"timeline": Timeline(())},
    ],
    ids=["mcap", "lerobot", "rosbag1", "rosbag2", "converted-from-mcap", "no-timeline"],
)
def test_ticks_show_only_where_a_simulator_recorded_them(
    changes: dict[str, Any],
) -> None:
    assert "ticks" not in _names(_model(**changes))


def test_a_dataset_episode_shows_its_index_frame_and_dataset() -> None:
    metadata = {"dataset": "tiny", "episode_index": 7, "total_episodes": 12}
    model = _model(source="lerobot", metadata=metadata)

    value = row_value(model, "episode", 0.45)

    assert _names(model) == ["time", "episode", "joints"]
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

    assert _names(model) == ["time", "episode", "joints"]
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


def _joint_model(joints: JointSet, *channels: Channel) -> RecordingModel:
    return _model(
        channels={channel.name: channel for channel in channels}, joints=joints
    )


def test_the_joints_row_names_every_joint_in_degrees_and_metres() -> None:
    times = np.linspace(0.0, 1.0, 11)
    values = np.tile([math.pi / 2, 0.04, 90.0], (11, 1))
    q = Channel("q", times, values)
    joints = JointSet(
        joints=(
            JointSpec("shoulder", JointKind.REVOLUTE, "rad", -math.pi, math.pi),
            JointSpec("finger", JointKind.PRISMATIC, "m", 0.0, 0.08),
            JointSpec("wrist", JointKind.REVOLUTE, "deg"),
        ),
        positions="q",
        position_columns=(0, 1, 2),
    )
    model = _joint_model(joints, q)

    value = row_value(model, "joints", 0.5)

    assert "tip" not in _names(model)  # no planar arm: no tip
    assert value is not None
    assert [joint.name for joint in value.joints] == ["shoulder", "finger", "wrist"]
    assert [joint.value_text for joint in value.joints] == ["90°", "0.040 m", "90°"]
    assert [joint.max_text for joint in value.joints] == ["180°", "0.080 m", ""]
    assert [joint.fraction for joint in value.joints] == [0.75, 0.5, None]
    assert [joint.detail_text for joint in value.joints] == ["", "", ""]
    assert value.joints[2].limits_text == "limits not recorded"


def test_a_joint_past_its_limits_is_marked_and_its_bar_pinned() -> None:
    times = np.array([0.0, 1.0])
    q = Channel("q", times, np.array([[0.5], [1.5]]))
    spec = JointSpec("elbow", lower=-1.0, upper=1.0)
    model = _joint_model(JointSet((spec,), "q", (0,)), q)

    inside = row_value(model, "joints", 0.0)
    outside = row_value(model, "joints", 1.0)

    assert inside is not None
    assert outside is not None
    assert not inside.joints[0].outside
    assert outside.joints[0].outside
    assert outside.joints[0].fraction == 1.0
    assert outside.joints[0].value_text == "86°"


def test_rates_and_efforts_show_where_recorded() -> None:
    times = np.linspace(0.0, 1.0, 11)
    state = Channel("state", times, np.zeros((11, 2)), columns=("a", "b"))
    rates = Channel("rates", times, np.tile([math.radians(30.0), 0.5], (11, 1)))
    efforts = Channel("efforts", times, np.tile([1.25, -2.0], (11, 1)))
    joints = JointSet.of_channel(
        "state", ("a", "b"), velocities="rates", efforts="efforts"
    )
    model = _joint_model(joints, state, rates, efforts)

    value = row_value(model, "joints", 0.5)

    assert value is not None
    assert [joint.detail_text for joint in value.joints] == [
        "30.0°/s · 1.25 N·m",
        "28.6°/s · -2.00 N·m",
    ]


def test_arms_group_by_their_name_prefix_or_their_group() -> None:
    times = np.linspace(0.0, 1.0, 11)
    names = ("left_shoulder", "left_elbow", "right_shoulder", "right_elbow")
    state = Channel("state", times, np.zeros((11, 4)))
    by_prefix = _joint_model(JointSet.of_channel("state", names), state)
    one_arm = _joint_model(
        JointSet.of_channel("state", ("shoulder_pan", "shoulder_lift", "elbow")),
        Channel("state", times, np.zeros((11, 3))),
    )

    grouped = row_value(by_prefix, "joints", 0.0)
    single = row_value(one_arm, "joints", 0.0)

    assert grouped is not None
    assert [(g.name, g.indices) for g in grouped.groups] == [
        ("left", (0, 1)),
        ("right", (2, 3)),
    ]
    assert [line.text for line in joint_lines(grouped)][:3] == [
        "left",
        "left_shoulder: 0°",
        "left_elbow: 0°",
    ]
    assert single is not None
    assert single.groups == ()  # shoulder_* alone is no arm of its own


def test_names_from_the_file_are_plain_and_elided() -> None:
    times = np.linspace(0.0, 1.0, 11)
    name = "j\u202e<b>x</b>" + "y" * 300
    state = Channel("state", times, np.zeros((11, 1)))
    model = _joint_model(JointSet.of_channel("state", (name,)), state)

    value = row_value(model, "joints", 0.0)

    assert value is not None
    (line,) = joint_lines(value)
    assert "\u202e" not in line.text
    assert "<b>x</b>" in line.text  # shown as written, never as markup
    assert len(line.text) < 120


def test_an_unread_channel_shows_as_unknown_until_reading_is_allowed() -> None:
    times = np.linspace(0.0, 1.0, 11)
    reads: list[int] = []

    def load() -> tuple[np.ndarray, np.ndarray]:
        reads.append(1)
        return times, np.full((11, 1), 0.5)

    lazy = Channel.lazy("q", load, columns=("a",), count=11)
    model = _joint_model(JointSet.of_channel("q", ("a",)), lazy)
    (row,) = [row for row in rows_for(model) if row.name == "joints"]

    waiting = row.value_at(Moment(model, 0.5, reads=False))
    read = row.value_at(Moment(model, 0.5))

    assert waiting.joints[0].value_text == "n/a"
    assert read.joints[0].value_text == "29°"
    assert len(reads) == 1


def test_a_batched_run_says_which_environment_the_joints_follow() -> None:
    times = np.linspace(0.0, 1.0, 11)
    channels = [
        Channel(f"env{env}/qpos", times, np.full((11, 1), float(env)))
        for env in range(3)
    ]
    joints = dataclasses.replace(
        JointSet.of_channel("env0/qpos", ("j",)),
        environments=("env0", "env1", "env2"),
    )
    model = _joint_model(joints, *channels)
    (env_row,) = [row for row in rows_for(model) if row.name == "environment"]
    (joint_row,) = [row for row in rows_for(model) if row.name == "joints"]

    first = Moment(model, 0.5)
    third = Moment(model, 0.5, environment="env2")

    assert env_row.value_at(first).texts == ("Environment env0 of 3",)
    assert env_row.value_at(third).texts == ("Environment env2 of 3",)
    assert joint_row.value_at(first).joints[0].value == 0.0
    assert joint_row.value_at(third).joints[0].value == 2.0


def test_tip_rows_need_the_planar_kinematics() -> None:
    times = np.linspace(0.0, 1.0, 11)
    q = Channel("q", times, np.zeros((11, 2)))
    model = _joint_model(JointSet.of_channel("q", ("q0", "q1")), q)

    joints = row_value(model, "joints", 0.5)

    assert _names(model) == ["time", "ticks", "joints"]
    assert joints is not None
    assert [joint.value_text for joint in joints.joints] == ["0°", "0°"]
    assert [joint.max_text for joint in joints.joints] == ["", ""]  # not given


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


def test_a_ros_bag_shows_no_simulator_ticks() -> None:
    from data_paths import TEST_DATA

    from fsr_core.sources import open_recording

    bag = open_recording(TEST_DATA / "rosbag1" / "lz4.bag")

    assert "ticks" not in _names(bag)
    assert "joints" in _names(bag)
