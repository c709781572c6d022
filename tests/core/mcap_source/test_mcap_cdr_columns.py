"""ROS 2 topics are read by layout, and give what decoding each message gives.

The files are written by ``mcap-ros2-support``'s own writer. Each lazy channel
is compared with the same file read at open, where the library decodes every
message: values (NaN where NaN), columns and times must be identical, whatever
the messages do (change their names, their lengths, their strings).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from decode_counting import counting_decoders
from mcap_ros2.writer import Writer

from fsr_core.sources.mcap import channel_chunks as mcap_channel_chunks
from fsr_core.sources.mcap import message_index as mcap_message_index
from fsr_core.sources.mcap import reading as mcap_reading
from fsr_core.sources.mcap.cdr_columns import CdrColumns
from fsr_core.sources.mcap.channel_chunks import (
    GROUP,
    ChunkMessages,
    channel_chunks,
    joined,
)
from fsr_core.sources.mcap.container import index_file
from fsr_core.sources.mcap.decoding import PlainTree, decoder_for
from fsr_core.sources.mcap.recording_model import load_mcap

_RULE = "=" * 80
_TIME = f"{_RULE}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
_HEADER = (
    f"{_RULE}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\n"
    "string frame_id\n" + _TIME
)
_JOINT_STATE = (
    "std_msgs/Header header\nstring[] name\nfloat64[] position\n"
    "float64[] velocity\nfloat64[] effort\n" + _HEADER
)
_MIXED = (
    "std_msgs/Header header\n"
    "bool ok\nchar grade\nint8 small\nuint16 count\nint32 level\nuint64 big\n"
    "float32 gain\nfloat64[3] offset\nfloat32[] samples\nuint8[] blob\n"
    "bool[] flags\nstring label\nexample_msgs/Point[] points\n"
    "builtin_interfaces/Time[] marks\n"
    f"{_RULE}\nMSG: example_msgs/Point\nfloat64 x\nfloat64 y\nint16 z\n" + _HEADER
)
_START_NS = 1_700_000_000_000_000_000


def _stamp(time_ns: int) -> dict[str, int]:
    return {"sec": time_ns // 10**9, "nanosec": time_ns % 10**9}


def _write(
    path: Path,
    schema_name: str,
    text: str,
    messages: Iterator[dict[str, Any]],
    chunk_size: int = 4096,
) -> None:
    with path.open("wb") as stream:
        writer = Writer(stream, chunk_size=chunk_size)
        schema = writer.register_msgdef(schema_name, text)
        for step, message in enumerate(messages):
            time_ns = _START_NS + step * 10_000_000
            message["header"] = {
                "stamp": _stamp(time_ns),
                "frame_id": message.pop("frame"),
            }
            writer.write_message("/topic", schema, message, log_time=time_ns)
        writer.finish()  # type: ignore[no-untyped-call]


def _joint_states() -> Iterator[dict[str, Any]]:
    for step in range(600):
        # The joints change twice, the frame's name grows, values go non-finite.
        joints = 3 if step < 200 else (5 if step < 400 else 2)
        names = [f"j{i}" for i in range(joints)] if step < 400 else ["wrist", "grip"]
        position = [math.sin(step * 0.01 + i) for i in range(joints)]
        if step % 97 == 0:
            position[0] = math.inf if step % 2 else math.nan
        yield {
            "frame": "base" + "_" * (step // 150),
            "name": names,
            "position": position,
            "velocity": [float(step)] * joints,
            "effort": [] if step % 50 == 0 else [0.5] * joints,
        }


def _mixed() -> Iterator[dict[str, Any]]:
    for step in range(300):
        yield {
            "frame": "",
            "ok": step % 3 == 0,
            "grade": step % 100,
            "small": -(step % 128),
            "count": step,
            "level": -(step * 1000),
            "big": 2**63 + step,
            "gain": 0.25 * step,
            "offset": [1.0, -2.0, float(step)],
            "samples": [0.5 * i for i in range(step % 4)],
            "blob": bytes(range(step % 7)),
            "flags": [True, step % 2 == 0],
            "label": "x" * (step % 3),
            "points": [
                {"x": 1.0 * i, "y": -1.0 * step, "z": i} for i in range(step % 3)
            ],
            "marks": [_stamp(step)],
        }


def _assert_same_as_decoding_each(path: Path) -> None:
    lazy = load_mcap(path)
    eager = load_mcap(path, read_everything=True)
    for name, expected in eager.channels.items():
        channel = lazy.channels[name]
        np.testing.assert_array_equal(channel.values, expected.values)
        np.testing.assert_array_equal(channel.times_s, expected.times_s)
        assert channel.columns == expected.columns, name
    assert lazy.report["notes"] == eager.report["notes"]


@pytest.mark.parametrize("chunk_size", [4096, 512])  # 512: read on two threads
def test_joint_states_that_change_shape_read_as_decoding_each_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_size: int
) -> None:
    path = tmp_path / "joints.mcap"
    _write(
        path, "sensor_msgs/msg/JointState", _JOINT_STATE, _joint_states(), chunk_size
    )
    _assert_same_as_decoding_each(path)
    calls: Counter[str] = Counter()
    monkeypatch.setattr(mcap_reading, "decoder_for", counting_decoders(calls))
    channel = load_mcap(path).channels["/topic"]
    assert channel.values.shape[0] == 600
    assert "position.wrist" in channel.columns
    assert "position.j4" in channel.columns
    # A handful of layouts, each checked by decoding one message: not 600 decodes.
    assert 1 < calls["/topic"] < 40


def test_every_kind_of_field_reads_as_decoding_each_gives(tmp_path: Path) -> None:
    path = tmp_path / "mixed.mcap"
    _write(path, "example_msgs/msg/Mixed", _MIXED, _mixed())
    _assert_same_as_decoding_each(path)
    channel = load_mcap(path).channels["/topic"]
    assert channel.values.shape == (300, len(channel.columns))
    assert "ok" in channel.columns
    assert channel.values[:, channel.columns.index("big")].min() >= 2.0**63


def test_a_layout_the_library_disagrees_with_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "joints.mcap"
    _write(path, "sensor_msgs/msg/JointState", _JOINT_STATE, _joint_states())
    contents = index_file(path)
    topic = next(iter(contents.topics.values()))
    real = decoder_for(topic).decode
    assert real is not None

    def lying(data: bytes) -> PlainTree:
        tree = real(data)
        tree["position"] = [value + 1.0 for value in tree["position"]]
        return tree

    columns = CdrColumns.for_topic(topic, lying)
    assert columns is not None
    blocks = list(enumerate(contents.blocks))
    parts = [found for _, _, found in channel_chunks(path, blocks, topic.channel_id)]
    assert all(isinstance(part, ChunkMessages) for part in parts)
    messages = joined([part for part in parts if isinstance(part, ChunkMessages)])
    matched, left = columns.read(messages.blob, messages.starts, messages.lengths)
    # Nothing is read by a layout the library contradicts: all left to decode.
    assert matched == []
    assert left.tolist() == list(range(600))
    assert not columns.enabled


def _dropping_the_first(entries: bytes) -> bytes:
    return entries[16:]  # the first message of every chunk left out


def _pointing_elsewhere(entries: bytes) -> bytes:
    pairs = np.frombuffer(entries, dtype="<u8").reshape(-1, 2).copy()
    pairs[-1, 1] += 1  # the last entry one byte off its record
    return pairs.tobytes()


def _entries_changed(change: Callable[[np.ndarray], None]) -> Callable[[bytes], bytes]:
    def corrupt(entries: bytes) -> bytes:
        pairs = np.frombuffer(entries, dtype="<u8").reshape(-1, 2).copy()
        if pairs.shape[0] > 1:
            change(pairs)
        return pairs.tobytes()

    return corrupt


def _later_time(pairs: np.ndarray) -> None:
    pairs[-1, 0] += 1  # a log time the record does not have


def _swapped(pairs: np.ndarray) -> None:
    pairs[[0, 1]] = pairs[[1, 0]]  # listed out of order (still true)


def _overlapping(pairs: np.ndarray) -> None:
    pairs[1, 1] = pairs[0, 1] + 1  # inside the first record


def _repeated(pairs: np.ndarray) -> None:
    pairs[1] = pairs[0]  # the first message listed twice, the second not at all


def _past_the_end(pairs: np.ndarray) -> None:
    pairs[-1, 1] = 2**63 + 5  # far outside the chunk (negative as a signed offset)


@pytest.mark.parametrize(
    "corrupt",
    [
        _dropping_the_first,
        _pointing_elsewhere,
        _entries_changed(_later_time),
        _entries_changed(_swapped),
        _entries_changed(_overlapping),
        _entries_changed(_repeated),
        _entries_changed(_past_the_end),
    ],
    ids=[
        "dropping the first",
        "pointing elsewhere",
        "a later time",
        "swapped",
        "overlapping",
        "repeated",
        "past the end",
    ],
)
def test_a_message_index_that_does_not_check_out_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corrupt: Callable[[bytes], bytes]
) -> None:
    path = tmp_path / "joints.mcap"
    _write(path, "sensor_msgs/msg/JointState", _JOINT_STATE, _joint_states())
    real = mcap_message_index.channel_entries

    def corrupted(*args: Any, **options: Any) -> bytes:
        return corrupt(real(*args, **options))

    monkeypatch.setattr(mcap_channel_chunks, "channel_entries", corrupted)
    _assert_same_as_decoding_each(path)


_TF = (
    "geometry_msgs/TransformStamped[] transforms\n"
    f"{_RULE}\nMSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\n"
    "string child_frame_id\ngeometry_msgs/Transform transform\n"
    f"{_RULE}\nMSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\n"
    "geometry_msgs/Quaternion rotation\n"
    f"{_RULE}\nMSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    f"{_RULE}\nMSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\n"
    "float64 w\n" + _HEADER
)


def _transform(parent: str, child: str, step: int, time_ns: int) -> dict[str, Any]:
    angle = 0.01 * step
    rotation = {"x": 0.0, "y": 0.0, "z": math.sin(angle), "w": 2.0 * math.cos(angle)}
    translation = {"x": 0.1 * step, "y": -1.0, "z": 0.5}
    if step % 41 == 7:
        rotation = dict.fromkeys("xyzw", 0.0)  # refused: a zero rotation
    if step % 53 == 9:
        translation["y"] = math.nan  # refused: not finite
    return {
        "header": {"stamp": _stamp(time_ns), "frame_id": parent},
        "child_frame_id": child,
        "transform": {"translation": translation, "rotation": rotation},
    }


def _write_tf(path: Path) -> None:
    with path.open("wb") as stream:
        writer = Writer(stream, chunk_size=8192)
        schema = writer.register_msgdef("tf2_msgs/msg/TFMessage", _TF)
        static = _START_NS - 1
        writer.write_message(
            "/tf_static",
            schema,
            {"transforms": [_transform("world", "base", 0, static)]},
            log_time=static,
        )
        for step in range(400):
            time_ns = _START_NS + step * 10_000_000
            parent = "base" if step < 300 else "world"  # the arm changes parent
            held = [_transform(parent, "arm", step, time_ns)]
            if step % 3 == 0:  # now and then a second link in the same message
                held.append(
                    _transform("arm", "tool" + "0" * (step // 100), step, time_ns)
                )
            writer.write_message("/tf", schema, {"transforms": held}, log_time=time_ns)
        writer.finish()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize("base", ["log", "publish"])
def test_transforms_read_by_layout_are_those_decoding_each_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str
) -> None:
    path = tmp_path / "tf.mcap"
    _write_tf(path)
    fast = load_mcap(path, time_base=base)
    monkeypatch.setattr(mcap_reading.CdrColumns, "for_topic", lambda *_: None)
    each = load_mcap(path, time_base=base)
    assert set(fast.channels) == set(each.channels)
    assert {"/tf:arm", "/tf:tool", "/tf:tool0", "/tf:tool00"} <= set(fast.channels)
    for name, expected in each.channels.items():
        np.testing.assert_array_equal(fast.channels[name].times_s, expected.times_s)
        np.testing.assert_array_equal(fast.channels[name].values, expected.values)
    assert fast.report["notes"] == each.report["notes"]
    assert any("changes parent" in note for note in fast.report["notes"])
    assert fast.report["topics"] == each.report["topics"]
    refused = next(t for t in fast.report["topics"] if t["topic"] == "/tf")
    assert refused["failed_messages"] == 18  # zero rotations and NaN offsets
    assert fast.timeline == each.timeline


def test_chunks_read_on_two_threads_come_in_order_as_on_one(tmp_path: Path) -> None:
    path = tmp_path / "joints.mcap"
    _write(path, "sensor_msgs/msg/JointState", _JOINT_STATE, _joint_states(), 512)
    contents = index_file(path)
    blocks = list(enumerate(contents.blocks))
    assert len(blocks) > 2 * GROUP  # several runs of blocks, read ahead
    bad = blocks[GROUP + 3][1]
    data = bytearray(path.read_bytes())
    data[bad.offset + bad.length - 1] ^= 0xFF  # one chunk's last byte spoiled
    path.write_bytes(bytes(data))
    channel_id = next(iter(contents.topics))
    one = list(channel_chunks(path, blocks, channel_id))
    two = list(channel_chunks(path, blocks, channel_id, threads=2))
    assert [number for number, _, _ in two] == [number for number, _, _ in one]
    assert [number for number, _, _ in two] == list(range(len(blocks)))
    for (_, _, first), (_, _, second) in zip(one, two, strict=True):
        if isinstance(first, ChunkMessages):
            assert isinstance(second, ChunkMessages)
            assert _payloads(first) == _payloads(second)
            np.testing.assert_array_equal(first.times_ns, second.times_ns)
        else:
            assert str(second) == str(first)
    assert sum(isinstance(found, Exception) for _, _, found in two) == 1
    # A reader that stops early leaves no thread working behind it.
    started = channel_chunks(path, blocks, channel_id, threads=2)
    next(started)
    started.close()


def _payloads(found: ChunkMessages) -> list[bytes]:
    """Each message's data, whatever else the blob holds around it."""
    return [found.data(position) for position in range(found.count)]


def test_a_chunk_whose_index_claims_indexes_past_the_end_still_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "joints.mcap"
    _write(path, "sensor_msgs/msg/JointState", _JOINT_STATE, _joint_states())
    contents = index_file(path)
    channel_id = next(iter(contents.topics))
    blocks = list(enumerate(contents.blocks))
    size = path.stat().st_size
    # Each claims message indexes running 10 bytes past the end of the file.
    lying = [
        (
            number,
            block._replace(
                message_index_length=size - block.offset - block.length + 10
            ),
        )
        for number, block in blocks
    ]
    for (_, _, honest), (_, _, claimed) in zip(
        channel_chunks(path, blocks, channel_id),
        channel_chunks(path, lying, channel_id),
        strict=True,
    ):
        assert isinstance(honest, ChunkMessages)
        assert isinstance(claimed, ChunkMessages)
        assert _payloads(claimed) == _payloads(honest)
        np.testing.assert_array_equal(claimed.times_ns, honest.times_ns)


def test_a_zstd_chunk_claiming_more_than_its_size_is_refused_before_decoding() -> None:
    import zstandard

    from fsr_core.errors import CorruptRecordError
    from fsr_core.sources.mcap.container import decompress

    data = bytes(range(256)) * 64
    payload = zstandard.ZstdCompressor().compress(data)
    where = {"path": Path("run.mcap"), "offset": 100}
    assert decompress("zstd", payload, len(data), **where) == data
    with pytest.raises(CorruptRecordError, match="claims 16384 bytes, more than 16383"):
        decompress("zstd", payload, len(data) - 1, **where)
