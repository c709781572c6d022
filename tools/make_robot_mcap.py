"""Write ``tests/data/mcap/panda_description.mcap``: a Franka Panda as ROS 2 records it.

Two topics, written with ``mcap-ros2-support``'s writer (profile ``ros2``):

* ``/robot_description`` (``std_msgs/msg/String``): the text of
  ``tests/data/robots/franka_panda/panda.urdf``, published once at the start,
  the way robot_state_publisher's latched topic lands in a bag;
* ``/joint_states`` (``sensor_msgs/msg/JointState``): the panda's nine joints
  (``panda_joint1`` .. ``panda_joint7``, ``panda_finger_joint1``/``2``) at
  100 Hz for 3 s, a smooth motion inside the URDF's limits
  (``robot_descriptions.smooth_motion``), with velocities and a synthetic effort.

The file is read back with ``mcap.reader`` and ``mcap_ros2``'s decoder, and what
they return goes to ``panda_description.expected.json`` beside it, in the style of
``expected.json`` (``tools/make_mcap_data.py``, whose reading code this reuses).
Run it in the side venv of ``make_mcap_data.py`` (its docstring makes it)::

    /work/venv-mcap-writers/bin/python tools/make_robot_mcap.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Final

import numpy as np
from mcap_ros2.writer import (  # type: ignore[import-not-found,unused-ignore]
    Writer as Ros2Writer,
)

from make_mcap_data import (
    DEFAULT_OUT,
    MS_NS,
    NS_PER_S,
    PUBLISH_LAG_NS,
    ROS_STAMP_LAG_NS,
    T0_NS,
    _check_ros2_against_rosbags,
    _decoded,
    _file_entry,
    _joint_state,
    _ros_header,
    _versions,
    dump_json,
    ros2_schema_text,
)
from robot_descriptions import PANDA_URDF, ROBOTS_DIR, smooth_motion, urdf_joints

Json = dict[str, Any]

REPO_ROOT: Final = ROBOTS_DIR.parent.parent.parent

MCAP_FILE: Final = "panda_description.mcap"
EXPECTED_FILE: Final = "panda_description.expected.json"
DESCRIPTION_TOPIC: Final = "/robot_description"
JOINTS_TOPIC: Final = "/joint_states"
STRING_TYPE: Final = "std_msgs/msg/String"
JOINT_STATE_TYPE: Final = "sensor_msgs/msg/JointState"
STRING_SCHEMA: Final = "string data\n"
RATE_HZ: Final = 100
DURATION_S: Final = 3.0
FIRST_STATE_MS: Final = 10
"""The first joint state is logged 10 ms after the description."""
STIFFNESS: Final = (40.0, 40.0, 40.0, 40.0, 10.0, 10.0, 10.0, 200.0, 200.0)
"""Synthetic effort = -stiffness * (position - middle of the limits)."""


def _joint_messages() -> list[tuple[int, Json]]:
    """Return ``(log_time_ns, JointState)`` for every state of the motion."""
    joints = [joint for joint in urdf_joints(PANDA_URDF) if joint.movable]
    count = round(RATE_HZ * DURATION_S)
    times_s = np.arange(count) / RATE_HZ
    positions, velocities = smooth_motion(joints, times_s)
    middle = np.array([0.5 * ((j.lower or 0.0) + (j.upper or 0.0)) for j in joints])
    efforts = -np.array(STIFFNESS) * (positions - middle)
    messages = []
    for index, time_s in enumerate(times_s):
        log_ns = T0_NS + FIRST_STATE_MS * MS_NS + round(time_s * NS_PER_S)
        message = {
            "header": _ros_header(log_ns - ROS_STAMP_LAG_NS, ""),
            "name": [joint.name for joint in joints],
            "position": positions[index].tolist(),
            "velocity": velocities[index].tolist(),
            "effort": efforts[index].tolist(),
        }
        messages.append((log_ns, message))
    return messages


def write_panda_mcap(path: Path) -> None:
    """Write the description once, then the joint states, with mcap-ros2-support."""
    with path.open("wb") as stream:
        writer = Ros2Writer(stream)
        string_schema = writer.register_msgdef(STRING_TYPE, STRING_SCHEMA)
        joint_schema = writer.register_msgdef(
            JOINT_STATE_TYPE, ros2_schema_text(JOINT_STATE_TYPE)
        )
        writer.write_message(
            DESCRIPTION_TOPIC,
            string_schema,
            {"data": PANDA_URDF.read_text(encoding="utf-8")},
            log_time=T0_NS,
            publish_time=T0_NS - PUBLISH_LAG_NS,
            sequence=1,
        )
        for sequence, (log_ns, message) in enumerate(_joint_messages(), start=1):
            writer.write_message(
                JOINTS_TOPIC,
                joint_schema,
                message,
                log_time=log_ns,
                publish_time=log_ns - PUBLISH_LAG_NS,
                sequence=sequence,
            )
        writer.finish()  # type: ignore[no-untyped-call]  # left unannotated upstream


def _decoded_references(path: Path) -> Json:
    """Return what the upstream decoder gives for both topics."""
    items = _decoded(path)
    descriptions = [item for item in items if item.channel.topic == DESCRIPTION_TOPIC]
    states = [item for item in items if item.channel.topic == JOINTS_TOPIC]
    text: str = descriptions[0].decoded_message.data
    urdf_bytes = PANDA_URDF.read_bytes()
    if text.encode("utf-8") != urdf_bytes:
        raise SystemExit(f"{path.name}: /robot_description differs from the URDF")
    middle = len(states) // 2
    return {
        "robot_description": {
            "count": len(descriptions),
            "log_time": descriptions[0].message.log_time,
            "length_chars": len(text),
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "same_bytes_as": PANDA_URDF.relative_to(REPO_ROOT).as_posix(),
        },
        "joint_states": {
            "count": len(states),
            "name": list(states[0].decoded_message.name),
            "first_middle_last": [
                _joint_state(states[0]),
                _joint_state(states[middle]),
                _joint_state(states[-1]),
            ],
            "log_time": [item.message.log_time for item in states],
            "position": [list(item.decoded_message.position) for item in states],
        },
    }


def main() -> int:
    """Write the MCAP, read it back, write its expected values; print the sizes."""
    path = DEFAULT_OUT / MCAP_FILE
    write_panda_mcap(path)
    _check_ros2_against_rosbags(path)
    entry, _ = _file_entry(path)
    entry["decoded"] = _decoded_references(path)
    expected = {
        "about": "Values read back with mcap.reader and mcap_ros2's decoder; see"
        " README.md here. Times are integer nanoseconds; positions rad or m.",
        "generator": "tools/make_robot_mcap.py",
        "versions": _versions(),
        "time_base_ns": T0_NS,
        "files": {MCAP_FILE: entry},
    }
    text = dump_json(expected) + "\n"
    if json.loads(text) != expected:
        raise SystemExit("the expected values do not round-trip")
    (DEFAULT_OUT / EXPECTED_FILE).write_text(text, encoding="utf-8")
    for name in (MCAP_FILE, EXPECTED_FILE):
        print(f"{(DEFAULT_OUT / name).stat().st_size:>9}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
