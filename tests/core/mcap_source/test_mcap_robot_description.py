"""An MCAP file's ``/robot_description``: the robot drawn when the user names none.

``panda_description.mcap`` was written by ``mcap-ros2-support`` as a bag of
``robot_state_publisher`` and ``/joint_states`` would be
(``tools/make_robot_mcap.py``); the other files are written here with the
``mcap`` library's writer, each to break or bend one rule (which message is
drawn, the size budget, a broken description, a file without indexes).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from data_paths import MCAP_DATA, TEST_DATA
from decode_counting import counting_decoders
from mcap import writer as mcap_writer
from mcap.well_known import MessageEncoding, SchemaEncoding

from fsr_core.recording import RecordingModel
from fsr_core.sources import OpenOptions, inspect_recording, open_recording
from fsr_core.sources.mcap import reading as mcap_reading
from fsr_core.sources.mcap import robot_description
from fsr_core.sources.registry import source_for

PANDA = MCAP_DATA / "panda_description.mcap"
PANDA_URDF = TEST_DATA / "robots" / "franka_panda" / "panda.urdf"
PANDA_PACKAGE = (TEST_DATA / "robots" / "franka_panda",)
_START_NS = 1_700_000_000_000_000_000
_MS = 1_000_000

# A two-joint arm without meshes; {reach} sets how far its tip sits.
_ARM = """<?xml version="1.0"?>
<robot name="{name}">
  <link name="base"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>
  </link>
  <link name="upper"/>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="tip"/>
    <origin xyz="{reach} 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def _arm(name: str, reach: float) -> str:
    return _ARM.format(name=name, reach=reach)


def _write(
    path: Path,
    descriptions: list[tuple[int, str, object]],
    *,
    chunked: bool = True,
    indexed: bool = True,
    joints_from_ms: int = 10,
) -> Path:
    """Write ``descriptions`` (ms, topic, its data) and 50 joint states, in JSON."""
    with path.open("wb") as stream:
        writer = mcap_writer.Writer(
            stream,
            chunk_size=512,
            use_chunking=chunked,
            index_types=mcap_writer.IndexType.ALL
            if indexed
            else mcap_writer.IndexType.NONE,
        )
        writer.start(profile="", library="fsr-viewer tests")
        string = writer.register_schema(
            "std_msgs/msg/String", SchemaEncoding.JSONSchema, b'{"type": "object"}'
        )
        state = writer.register_schema(
            "sensor_msgs/msg/JointState", SchemaEncoding.JSONSchema, b"{}"
        )
        channels: dict[str, int] = {}
        events = []
        for ms, topic, text in descriptions:
            if topic not in channels:
                channels[topic] = writer.register_channel(
                    topic, MessageEncoding.JSON, string
                )
            events.append((ms, channels[topic], {"data": text}))
        joints = writer.register_channel("/joint_states", MessageEncoding.JSON, state)
        for step in range(50):
            angles = [0.02 * step, -0.01 * step]
            message = {"name": ["j1", "j2"], "position": angles}
            events.append((joints_from_ms + 10 * step, joints, message))
        for ms, channel, message in sorted(events, key=lambda event: event[0]):
            when = _START_NS + ms * _MS
            writer.add_message(
                channel, when, json.dumps(message).encode(), publish_time=when
            )
        writer.finish()
    return path


def _notes(model: RecordingModel) -> list[str]:
    return [str(note) for note in model.report.get("notes", [])]


def test_the_panda_bag_carries_the_urdf_robot_state_publisher_latched() -> None:
    model = open_recording(PANDA, options=OpenOptions(package_paths=PANDA_PACKAGE))
    expected = json.loads((MCAP_DATA / "panda_description.expected.json").read_text())[
        "files"
    ]["panda_description.mcap"]["decoded"]["robot_description"]

    description = model.robot_description
    assert description is not None
    assert description.text == PANDA_URDF.read_bytes()
    assert hashlib.sha256(description.text).hexdigest() == expected["sha256"]
    assert description.where == f"{PANDA} /robot_description"
    assert description.kind == "urdf"
    assert "/robot_description" not in model.channels  # text, not numbers
    topics = {t["topic"]: t for t in model.report["topics"]}
    assert topics["/robot_description"]["shown_as"] == "robot description"


def test_opening_decodes_the_description_once_and_the_joints_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: Counter[str] = Counter()
    monkeypatch.setattr(mcap_reading, "decoder_for", counting_decoders(calls))

    model = source_for(PANDA).open(PANDA)  # the model, before any posing

    assert calls == Counter({"/robot_description": 1, "/joint_states": 1})
    assert not model.channels["/joint_states"].loaded  # still read when shown


def test_the_carried_panda_is_meshed_and_posed_as_yourdfpy_poses_it() -> None:
    yourdfpy = pytest.importorskip("yourdfpy")
    model = open_recording(PANDA, options=OpenOptions(package_paths=PANDA_PACKAGE))
    reference = yourdfpy.URDF.load(str(PANDA_URDF), load_meshes=False)
    joints = model.joints
    assert joints is not None
    recorded = model.channels[joints.positions].values

    assert model.metadata["robot"]["warnings"] == []
    assert model.geometry is not None
    assert len(model.geometry.meshes) > 0
    for frame in (0, 120, len(recorded) - 1):
        values = dict(
            zip(
                joints.names,
                recorded[frame, list(joints.position_columns)],
                strict=True,
            )
        )
        reference.update_cfg(
            np.array([values[name] for name in reference.actuated_joint_names])
        )
        for link in ("panda_link4", "panda_hand", "panda_rightfinger"):
            pose = model.channels[f"robot/{link}"].values[frame]
            expected = reference.get_transform(link)
            np.testing.assert_allclose(pose[:3], expected[:3, 3], atol=1e-4)


def test_without_package_paths_each_link_is_a_frame_still_posed_with_a_warning() -> (
    None
):
    meshed = open_recording(PANDA, options=OpenOptions(package_paths=PANDA_PACKAGE))
    bare = open_recording(PANDA)

    warnings = bare.metadata["robot"]["warnings"]
    assert len(warnings) == 11  # one per link whose mesh is nowhere
    assert all("mesh not found" in line and "package://" in line for line in warnings)
    assert bare.geometry is not None
    assert meshed.geometry is not None
    assert bare.geometry.bodies == meshed.geometry.bodies
    # Each link whose mesh is nowhere is drawn as its frame: an x, y, z bar.
    framed = {bare.geometry.bodies[mesh.body] for mesh in bare.geometry.meshes}
    assert {mesh.kind for mesh in bare.geometry.meshes} == {"frame"}
    assert len(bare.geometry.meshes) == 3 * len(framed)
    assert {line.split("link '")[1].split("'")[0] for line in warnings} == framed
    links = [name for name in bare.channels if name.startswith("robot/")]
    assert len(links) == 13
    for name in links:
        np.testing.assert_array_equal(
            bare.channels[name].values, meshed.channels[name].values
        )


def test_inspect_poses_the_carried_robot_and_lists_its_warnings() -> None:
    report = inspect_recording(PANDA)

    assert report["robot_description"] == {
        "where": f"{PANDA} /robot_description",
        "kind": "urdf",
    }
    assert report["robot"]["name"] == "panda"
    assert len(report["robot"]["joints"]["matched"]) == 8
    assert len(report["robot"]["warnings"]) == 11
    meshed = inspect_recording(PANDA, options=OpenOptions(package_paths=PANDA_PACKAGE))
    assert meshed["robot"]["warnings"] == []


LAYOUTS = {
    "indexed": {},
    "loose records": {"chunked": False},
    "chunks without message indexes": {"indexed": False},
}


@pytest.fixture(params=list(LAYOUTS))
def described(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Path]:
    """Write arms on ``/robot_description`` in each layout of :data:`LAYOUTS`.

    The writer takes a file name and ``(ms, robot name, reach)`` per arm.
    """

    def write(name: str, *arms: tuple[int, str, float]) -> Path:
        return _write(
            tmp_path / name,
            [(ms, "/robot_description", _arm(arm, reach)) for ms, arm, reach in arms],
            **LAYOUTS[request.param],
        )

    return write


def test_the_description_in_force_when_the_joints_start_is_drawn(
    described: Callable[..., Path],
) -> None:
    path = described(
        "arm.mcap", (0, "first", 0.3), (5, "in_force", 0.5), (200, "later", 0.7)
    )

    model = open_recording(path)

    assert model.robot_description is not None
    assert b'name="in_force"' in model.robot_description.text
    assert model.metadata["robot"]["name"] == "in_force"
    angles = model.channels["/joint_states"].values
    tip = model.channels["robot/tip"].values
    j1 = angles[:, 0]
    expected = np.stack([0.5 * np.cos(j1), 0.5 * np.sin(j1), 0 * j1], axis=1)
    np.testing.assert_allclose(tip[:, :3], expected, atol=1e-9)


def test_a_description_logged_after_the_joints_start_is_still_drawn(
    described: Callable[..., Path],
) -> None:
    path = described("late.mcap", (30, "late", 0.4), (90, "later", 0.6))

    model = open_recording(path)

    assert model.metadata["robot"]["name"] == "late"


def test_a_description_over_the_budget_is_a_note_and_its_bytes_are_not_read(
    described: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = described("big.mcap", (0, "big", 0.3))
    monkeypatch.setattr(robot_description, "MAX_DESCRIPTION_BYTES", 200)
    calls: Counter[str] = Counter()
    monkeypatch.setattr(mcap_reading, "decoder_for", counting_decoders(calls))

    model = open_recording(path)

    assert model.robot_description is None
    assert calls["/robot_description"] == 0
    (note,) = [note for note in _notes(model) if "robot description" in note]
    size = len(json.dumps({"data": _arm("big", 0.3)}).encode())
    assert note == (
        f"robot description on /robot_description is {size:,} bytes, "
        "over the 200 budget; not read"
    )
    assert "robot" not in model.metadata
    assert model.joints is not None  # the recording itself opens as ever


def test_a_cut_description_is_a_note_and_the_recording_opens(tmp_path: Path) -> None:
    text = _arm("cut", 0.3)
    path = _write(tmp_path / "cut.mcap", [(0, "/robot_description", text[:200])])

    model = open_recording(path)

    (note,) = [note for note in _notes(model) if note.startswith("robot not drawn")]
    assert f"{path} /robot_description" in note
    assert "not a well-formed URDF" in note
    assert not any(name.startswith("robot/") for name in model.channels)
    assert model.joints is not None
    report = inspect_recording(path)
    assert "robot" not in report
    assert note in report["notes"]


def test_a_description_that_is_not_text_is_a_note(tmp_path: Path) -> None:
    path = _write(tmp_path / "numbers.mcap", [(0, "/robot_description", 12.5)])

    model = open_recording(path)

    assert model.robot_description is None
    assert (
        "robot description on /robot_description cannot be read (its data is not text)"
    ) in _notes(model)


def test_a_namespaced_description_is_drawn_and_the_plain_one_preferred(
    tmp_path: Path,
) -> None:
    only = _write(
        tmp_path / "namespaced.mcap",
        [(0, "/arm/robot_description", _arm("namespaced", 0.3))],
    )
    both = _write(
        tmp_path / "both.mcap",
        [
            (0, "/arm/robot_description", _arm("namespaced", 0.3)),
            (1, "/robot_description", _arm("plain", 0.3)),
        ],
    )

    assert open_recording(only).metadata["robot"]["name"] == "namespaced"
    model = open_recording(both)
    assert model.metadata["robot"]["name"] == "plain"
    assert (
        "robot description topics not drawn (one robot is): /arm/robot_description"
    ) in _notes(model)


def test_a_string_topic_of_another_name_is_no_description(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.mcap", [(0, "/chatter", _arm("not_one", 0.3))])

    model = open_recording(path)

    assert model.robot_description is None
    assert "robot" not in model.metadata
