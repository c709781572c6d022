"""A topic's plan reads each message's numbers exactly as the walk does.

Every message of every test bag is read both ways: the plan made from its
topic's first message (:mod:`fsr_core.sources.rosbag.leaf_plans`) and the
toolkit's walk of its plain tree; a message shaped otherwise than the first
must be refused by the plan, never read wrong.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.sources.rosbag.bag_files import open_bag
from fsr_core.sources.rosbag.leaf_plans import plan_for
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.toolkit.message_kinds import KINDS
from fsr_core.sources.toolkit.numeric_leaves import numeric_leaves
from tests.data_paths import ROSBAG1_DATA, ROSBAG2_DATA

BAGS = [ROSBAG1_DATA / "none.bag", ROSBAG2_DATA / "split"]


@pytest.mark.parametrize("path", BAGS, ids=lambda path: path.name)
def test_the_plan_of_each_topic_reads_every_message_as_the_walk(path: Path) -> None:
    bag = open_bag(path)
    plans = {}
    planned = 0
    try:
        for connection, _, raw in bag.messages():
            if connection.msgtype in KINDS:
                continue
            message = bag.types.deserialize(raw, connection.msgtype)
            if connection.topic not in plans:
                plans[connection.topic] = plan_for(message)
            plan = plans[connection.topic]
            walked = numeric_leaves(plain_tree(message))
            values = None if plan is None else plan.values(message)
            if values is None:
                continue
            planned += 1
            assert plan is not None
            assert plan.names == tuple(walked)
            np.testing.assert_array_equal(values, list(walked.values()))
    finally:
        bag.close()
    assert plans["/joint_states"] is not None
    assert plans["/odom_speed"] is not None
    assert planned >= 300


def test_a_message_shaped_otherwise_is_refused() -> None:
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_HUMBLE)
    joint_state = store.types["sensor_msgs/msg/JointState"]
    header = store.types["std_msgs/msg/Header"](
        stamp=store.types["builtin_interfaces/msg/Time"](sec=1, nanosec=2),
        frame_id="",
    )

    def message(names: list[str], count: int) -> object:
        values = np.arange(count, dtype=np.float64)
        return joint_state(
            header=header, name=names, position=values, velocity=values, effort=values
        )

    plan = plan_for(message(["a", "b"], 2))
    assert plan is not None
    assert plan.names == (
        "position.a",
        "position.b",
        "velocity.a",
        "velocity.b",
        "effort.a",
        "effort.b",
    )
    assert plan.values(message(["a", "b"], 2)) == [0.0, 1.0] * 3
    assert plan.values(message(["b", "a"], 2)) is None  # renamed: walked instead
    assert plan.values(message(["a", "b", "c"], 3)) is None


@pytest.mark.parametrize("path", BAGS, ids=lambda path: path.name)
def test_tf_messages_give_the_transforms_the_plain_tree_gives(path: Path) -> None:
    from fsr_core.sources.rosbag.tf_messages import TF_MESSAGE, tf_transforms
    from fsr_core.sources.toolkit.message_kinds import transforms_of

    bag = open_bag(path)
    compared = 0
    try:
        for connection, _, raw in bag.messages():
            if connection.msgtype != TF_MESSAGE:
                continue
            message = bag.types.deserialize(raw, connection.msgtype)
            walked = [item.value for item in transforms_of(plain_tree(message))]
            assert tf_transforms(message) == walked
            compared += 1
    finally:
        bag.close()
    assert compared == 41  # /tf at 20 Hz for 2 s, and /tf_static
