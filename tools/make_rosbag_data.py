"""Write the ROS bag test data of ``tests/data/rosbag1`` and ``tests/data/rosbag2``.

Every bag comes from the ``rosbags`` writers, never from bytes put together by
hand. ROS 1 (``rosbag1/``): one bag per chunk compression (none, bz2, lz4),
one with small chunks, one whose writer was killed before it wrote its index
(the file as it was on disk when the process died: complete chunks, no index),
and one with a connection whose message definition does not parse. rosbag2
SQLite (``rosbag2/``): a plain bag folder, a bag split over two ``.db3`` files
(written as two bags and joined under one ``metadata.yaml``, as rosbag2's
``--max-bag-duration`` lays them out), one compressed per file and one per
message (zstd), and a bare ``.db3``. ``stamped.bag`` and ``rosbag2/stamped``
were recorded late: each message with a header is logged ``LATENCY_NS`` after
its stamp (a header time base places it earlier than its log time). Each
bag holds the same recording:
``sensor_msgs/JointState`` (``/joint_states``), ``sensor_msgs/Image`` and
``CompressedImage`` with ``CameraInfo``, ``/tf`` and ``/tf_static``, a numeric
``std_msgs/Float64`` topic, a ``std_msgs/String`` topic and
``/robot_description``.

Each bag is then read back with ``rosbags``' own ``AnyReader`` and what it
returns is saved in ``expected.json`` beside the bags: the project's tests
compare against it. Run it in a side environment (``rosbags`` with Pillow and
PyYAML), e.g.::

    python3 -m venv /work/venvs/rosbags
    /work/venvs/rosbags/bin/pip install 'rosbags>=0.10,<0.12' Pillow pyyaml
    /work/venvs/rosbags/bin/python tools/make_rosbag_data.py --out tests/data

Times and contents are fixed, so a second run with the same library versions
writes the same messages. Nothing imports this script; it builds its messages
with ``rosbag_messages.py`` beside it, as ``bench_bags.py`` does.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import shutil
import tempfile
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

import numpy as np
import yaml  # type: ignore[import-untyped,unused-ignore]
from PIL import Image
from rosbags.highlevel import AnyReader  # type: ignore[import-not-found,unused-ignore]
from rosbags.rosbag1 import Reader as Reader1  # type: ignore[import-not-found,unused-ignore]
from rosbags.rosbag1 import Writer as Writer1  # type: ignore[import-not-found,unused-ignore]
from rosbags.rosbag2 import Writer as Writer2  # type: ignore[import-not-found,unused-ignore]
from rosbags.rosbag2.enums import (  # type: ignore[import-not-found,unused-ignore]
    CompressionFormat,
    CompressionMode,
    StoragePlugin,
)
from rosbags.typesys import (  # type: ignore[import-not-found,unused-ignore]
    Stores,
    get_typestore,
)

from rosbag_messages import header, store_of, typestore, write_message

START_NS: Final = 1_700_000_000_000_000_000
DURATION_S: Final = 2.0
JOINTS: Final = ("shoulder", "elbow", "wrist")
WIDTH, HEIGHT = 32, 24
K: Final = [40.0, 0.0, 16.0, 0.0, 40.0, 12.0, 0.0, 0.0, 1.0]
D: Final = [-0.12, 0.03, 0.001, -0.002, 0.0]
_LINKS: Final = (
    ("base_link", "", '<box size="0.2 0.2 0.1"/>'),
    ("upper", "0.15 0 0", '<box size="0.3 0.05 0.05"/>'),
    ("fore", "0.125 0 0", '<box size="0.25 0.04 0.04"/>'),
    ("hand", "", '<sphere radius="0.04"/>'),
)
_JOINT_ORIGINS: Final = ("0 0 0.1", "0.3 0 0", "0.25 0 0")
URDF: Final = "\n".join(
    [
        '<?xml version="1.0"?>',
        '<robot name="three_link">',
        *(
            f'  <link name="{name}"><visual>'
            + (f'<origin xyz="{xyz}"/>' if xyz else "")
            + f"<geometry>{shape}</geometry></visual></link>"
            for name, xyz, shape in _LINKS
        ),
        *(
            f'  <joint name="{joint}" type="revolute">'
            f'<parent link="{_LINKS[i][0]}"/><child link="{_LINKS[i + 1][0]}"/>'
            f'<origin xyz="{_JOINT_ORIGINS[i]}"/><axis xyz="0 0 1"/>'
            '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>'
            for i, joint in enumerate(JOINTS)
        ),
        "</robot>",
        "",
    ]
)
KILL_AFTER: Final = 250
"""Messages written before the writer of `killed.bag` died."""
BAD_TYPE: Final = "fsr_test/msg/Broken"
BAD_DEFINITION: Final = "float64 x\nthis line is ]] not a field\n"
LATENCY_NS: Final = 30_000_000
"""How late the stamped bags log a message with a header after its stamp."""

Event = tuple[str, str, int, Any]
"""``(topic, type, time_ns, message)``."""


def _times(rate_hz: float) -> Iterator[int]:
    count = int(DURATION_S * rate_hz)
    for index in range(count):
        yield START_NS + round(index * 1e9 / rate_hz)


def _image(frame: int) -> np.ndarray:
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH]
    red = (xs * 8 + frame * 20) % 256
    green = (ys * 10) % 256
    blue = np.full_like(xs, 40 + frame * 30)
    return np.stack([red, green, blue], axis=-1).astype(np.uint8)


class _Messages:
    """The recording's messages, built with one type store."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.types = store.types

    def header(self, time_ns: int, frame: str) -> Any:
        return header(self.store, time_ns, frame)

    def joint_states(self) -> Iterator[Event]:
        kind = "sensor_msgs/msg/JointState"
        for time_ns in _times(50):
            seconds = (time_ns - START_NS) / 1e9
            position = [0.5 * math.sin(seconds * (i + 1)) for i in range(len(JOINTS))]
            velocity = [
                0.5 * (i + 1) * math.cos(seconds * (i + 1)) for i in range(len(JOINTS))
            ]
            effort = [0.1 * (i + 1) for i in range(len(JOINTS))]
            message = self.types[kind](
                header=self.header(time_ns, ""),
                name=list(JOINTS),
                position=np.array(position),
                velocity=np.array(velocity),
                effort=np.array(effort),
            )
            yield "/joint_states", kind, time_ns, message

    def speed(self) -> Iterator[Event]:
        kind = "std_msgs/msg/Float64"
        for time_ns in _times(100):
            value = 1.5 + math.sin((time_ns - START_NS) / 1e9 * 3.0)
            yield "/odom_speed", kind, time_ns, self.types[kind](data=value)

    def transform(
        self, time_ns: int, parent: str, child: str, xyz: tuple[float, ...], yaw: float
    ) -> Any:
        geometry = self.types
        return geometry["geometry_msgs/msg/TransformStamped"](
            header=self.header(time_ns, parent),
            child_frame_id=child,
            transform=geometry["geometry_msgs/msg/Transform"](
                translation=geometry["geometry_msgs/msg/Vector3"](
                    x=xyz[0], y=xyz[1], z=xyz[2]
                ),
                rotation=geometry["geometry_msgs/msg/Quaternion"](
                    x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2)
                ),
            ),
        )

    def tf(self) -> Iterator[Event]:
        kind = "tf2_msgs/msg/TFMessage"
        yield (
            "/tf_static",
            kind,
            START_NS,
            self.types[kind](
                transforms=[
                    self.transform(
                        START_NS, "base_link", "camera_optical", (0.2, 0.0, 0.5), 0.0
                    )
                ]
            ),
        )
        for time_ns in _times(20):
            seconds = (time_ns - START_NS) / 1e9
            moving = self.transform(
                time_ns, "world", "base_link", (0.5 * seconds, 0.0, 0.0), 0.3 * seconds
            )
            yield "/tf", kind, time_ns, self.types[kind](transforms=[moving])

    def camera(self) -> Iterator[Event]:
        for frame, time_ns in enumerate(_times(3)):
            pixels = _image(frame)
            raw = self.types["sensor_msgs/msg/Image"](
                header=self.header(time_ns, "camera_optical"),
                height=HEIGHT,
                width=WIDTH,
                encoding="rgb8",
                is_bigendian=0,
                step=WIDTH * 3,
                data=pixels.reshape(-1),
            )
            yield "/camera/image_raw", "sensor_msgs/msg/Image", time_ns, raw
            buffer = io.BytesIO()
            Image.fromarray(pixels).save(buffer, format="PNG")
            compressed = self.types["sensor_msgs/msg/CompressedImage"](
                header=self.header(time_ns, "camera_optical"),
                format="png",
                data=np.frombuffer(buffer.getvalue(), dtype=np.uint8),
            )
            yield (
                "/camera/image_raw/compressed",
                "sensor_msgs/msg/CompressedImage",
                time_ns,
                compressed,
            )
            yield (
                "/camera/camera_info",
                "sensor_msgs/msg/CameraInfo",
                time_ns,
                self.camera_info(time_ns),
            )

    def camera_info(self, time_ns: int) -> Any:
        kind = "sensor_msgs/msg/CameraInfo"
        names = {name for name, _ in self.store.fielddefs[kind][1]}
        upper = "K" in names
        roi = self.types["sensor_msgs/msg/RegionOfInterest"](
            x_offset=0, y_offset=0, height=0, width=0, do_rectify=False
        )
        matrices = {
            "d": np.array(D),
            "k": np.array(K),
            "r": np.array([1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]),
            "p": np.array([40.0, 0, 16.0, 0, 0, 40.0, 12.0, 0, 0, 0, 1.0, 0]),
        }
        return self.types[kind](
            header=self.header(time_ns, "camera_optical"),
            height=HEIGHT,
            width=WIDTH,
            distortion_model="plumb_bob",
            **{
                (key.upper() if upper else key): value
                for key, value in matrices.items()
            },
            binning_x=0,
            binning_y=0,
            roi=roi,
        )

    def strings(self) -> Iterator[Event]:
        kind = "std_msgs/msg/String"
        yield "/robot_description", kind, START_NS, self.types[kind](data=URDF)
        for index, time_ns in enumerate(_times(2)):
            yield "/chatter", kind, time_ns, self.types[kind](data=f"hello {index}")

    def events(self) -> list[Event]:
        found = [
            *self.joint_states(),
            *self.speed(),
            *self.tf(),
            *self.camera(),
            *self.strings(),
        ]
        return sorted(found, key=lambda event: event[2])


def _logged(events: list[Event], latency_ns: int) -> list[Event]:
    """Return ``events`` logged ``latency_ns`` after the stamps of those with one."""
    if not latency_ns:
        return events
    late = [
        (topic, kind, time_ns + (latency_ns if _has_stamp(message) else 0), message)
        for topic, kind, time_ns, message in events
    ]
    return sorted(late, key=lambda event: event[2])


def _has_stamp(message: Any) -> bool:
    transforms = getattr(message, "transforms", None)
    return hasattr(message, "header") or bool(transforms)


def _stamp_ns(message: Any) -> int | None:
    """Return a message's header stamp (a ``TFMessage``'s first transform's)."""
    transforms = getattr(message, "transforms", None)
    holder = transforms[0] if transforms else message
    header = getattr(holder, "header", None)
    if header is None:
        return None
    return int(header.stamp.sec) * 1_000_000_000 + int(header.stamp.nanosec)


def _write_ros1(
    path: Path,
    *,
    compression: str = "none",
    chunk_bytes: int | None = None,
    broken_topic: bool = False,
    kill_after: int | None = None,
    latency_ns: int = 0,
) -> None:
    """Write one ROS 1 bag.

    With ``kill_after``, the bag is the file as it stood after that many
    messages (its writer killed): the rest, and the index, never written.
    """
    store = typestore(Stores.ROS1_NOETIC)
    messages = _Messages(store)
    target = path if kill_after is None else path.with_suffix(".writing")
    writer = Writer1(target)
    if compression != "none":
        writer.set_compression(getattr(Writer1.CompressionFormat, compression.upper()))
    if chunk_bytes is not None:
        writer.chunk_threshold = chunk_bytes
    writer.open()
    connections: dict[str, Any] = {}
    if broken_topic:
        connections["/broken"] = writer.add_connection(
            "/broken", BAD_TYPE, msgdef=BAD_DEFINITION, md5sum="0" * 32
        )
    events = _logged(messages.events(), latency_ns)
    for index, event in enumerate(events):
        if kill_after is not None and index == kill_after:
            assert writer.bio is not None
            writer.bio.flush()
            shutil.copyfile(target, path)
        write_message(writer, connections, store, event, store.serialize_ros1)
        if broken_topic and event[0] == "/odom_speed":
            writer.write(connections["/broken"], event[2], b"\x00" * 8)
    writer.close()
    if kill_after is not None:
        target.unlink()


def _write_rosbag2(
    path: Path,
    *,
    compression: str = "none",
    keep: Callable[[int], bool] = lambda _: True,
    latency_ns: int = 0,
) -> None:
    store = typestore(Stores.ROS2_HUMBLE)
    messages = _Messages(store)
    writer = Writer2(path, version=9, storage_plugin=StoragePlugin.SQLITE3)
    if compression != "none":
        writer.set_compression(
            getattr(CompressionMode, compression.upper()), CompressionFormat.ZSTD
        )
    writer.open()
    connections: dict[str, Any] = {}
    for event in _logged(messages.events(), latency_ns):
        if keep(event[2]):
            write_message(writer, connections, store, event, store.serialize_cdr)
    writer.close()


def _split(path: Path) -> None:
    """Write a bag split in time over two ``.db3`` files under one metadata file."""
    half_ns = START_NS + int(DURATION_S * 1e9 / 2)
    with tempfile.TemporaryDirectory() as scratch:
        first, second = Path(scratch) / "first", Path(scratch) / "second"
        _write_rosbag2(first, keep=lambda t: t < half_ns)
        _write_rosbag2(second, keep=lambda t: t >= half_ns)
        path.mkdir()
        shutil.copyfile(first / "first.db3", path / f"{path.name}_0.db3")
        shutil.copyfile(second / "second.db3", path / f"{path.name}_1.db3")
        meta = [
            yaml.safe_load((part / "metadata.yaml").read_text())[
                "rosbag2_bagfile_information"
            ]
            for part in (first, second)
        ]
    joined = dict(meta[0])
    joined["relative_file_paths"] = [f"{path.name}_0.db3", f"{path.name}_1.db3"]
    joined["files"] = [
        {**item["files"][0], "path": name}
        for item, name in zip(meta, joined["relative_file_paths"], strict=True)
    ]
    joined["message_count"] = meta[0]["message_count"] + meta[1]["message_count"]
    end = max(
        m["starting_time"]["nanoseconds_since_epoch"] + m["duration"]["nanoseconds"]
        for m in meta
    )
    joined["duration"] = {
        "nanoseconds": end - meta[0]["starting_time"]["nanoseconds_since_epoch"]
    }
    counts: dict[str, int] = {}
    for item in meta:
        for topic in item["topics_with_message_count"]:
            name = topic["topic_metadata"]["name"]
            counts[name] = counts.get(name, 0) + topic["message_count"]
    topics = {
        t["topic_metadata"]["name"]: t
        for m in meta
        for t in m["topics_with_message_count"]
    }
    joined["topics_with_message_count"] = [
        {**topic, "message_count": counts[name]} for name, topic in topics.items()
    ]
    (path / "metadata.yaml").write_text(
        yaml.safe_dump({"rosbag2_bagfile_information": joined}, sort_keys=False)
    )


def _ros1_messages(path: Path) -> Iterator[tuple[str, str, int, Any]]:
    """Yield a ROS 1 bag's messages as ``rosbags`` reads them, past a bad type.

    ``AnyReader`` refuses a whole bag when one definition does not parse, so
    the types are registered one connection at a time, the broken one left out.
    """
    with Reader1(path) as reader:
        readable = [c for c in reader.connections if c.msgtype != BAD_TYPE]
        store = store_of(readable)
        for connection, time_ns, raw in reader.messages(connections=readable):
            message = store.deserialize_ros1(raw, connection.msgtype)
            yield connection.topic, connection.msgtype, time_ns, message


def _rosbag2_messages(path: Path) -> Iterator[tuple[str, str, int, Any]]:
    with AnyReader(
        [path], default_typestore=get_typestore(Stores.ROS2_HUMBLE)
    ) as reader:
        for connection, time_ns, raw in reader.messages():
            message = reader.deserialize(raw, connection.msgtype)
            yield connection.topic, connection.msgtype, time_ns, message


def _expected(path: Path) -> dict[str, Any]:
    """Return what ``rosbags`` reads of a bag."""
    found: dict[str, Any] = {"topics": {}}
    read = _ros1_messages if path.suffix == ".bag" else _rosbag2_messages
    for topic, kind, time_ns, message in read(path):
        entry = found["topics"].setdefault(
            topic, {"type": kind, "messages": 0, "first_ns": time_ns}
        )
        entry["messages"] += 1
        entry["last_ns"] = time_ns
        stamp = _stamp_ns(message)
        if stamp is not None:
            entry.setdefault("first_stamp_ns", stamp)
            entry["last_stamp_ns"] = stamp
        if topic == "/joint_states":
            entry.setdefault("first_position", message.position.tolist())
            entry["last_position"] = message.position.tolist()
            entry["names"] = list(message.name)
        elif topic == "/odom_speed":
            entry.setdefault("values", []).append(message.data)
        elif topic == "/camera/camera_info":
            k = getattr(message, "K", None)
            entry["k"] = (k if k is not None else message.k).tolist()
            d = getattr(message, "D", None)
            entry["d"] = (d if d is not None else message.d).tolist()
        elif topic == "/camera/image_raw":
            entry.setdefault("first_pixel", message.data[:3].tolist())
            entry["size"] = [message.width, message.height]
        elif topic == "/tf":
            entry["last_translation_x"] = message.transforms[0].transform.translation.x
    return found


def _ros1_bags(out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    bags: dict[str, dict[str, Any]] = {
        "none.bag": {},
        "bz2.bag": {"compression": "bz2"},
        "lz4.bag": {"compression": "lz4"},
        "small_chunks_lz4.bag": {"compression": "lz4", "chunk_bytes": 4096},
        "small_chunks_bz2.bag": {"compression": "bz2", "chunk_bytes": 8192},
        "broken_definition.bag": {"broken_topic": True},
        "stamped.bag": {"compression": "lz4", "latency_ns": LATENCY_NS},
    }
    expected: dict[str, Any] = {}
    for name, options in bags.items():
        _write_ros1(out / name, **options)
        expected[name] = _expected(out / name)
    _write_ros1(out / "killed.bag", chunk_bytes=4096, kill_after=KILL_AFTER)
    expected["killed.bag"] = {"written_before_kill": KILL_AFTER, "chunk_bytes": 4096}
    return expected


def _rosbag2_bags(out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Any] = {}
    for name, compression in (
        ("plain", "none"),
        ("zstd_file", "file"),
        ("zstd_message", "message"),
    ):
        _write_rosbag2(out / name, compression=compression)
        expected[name] = _expected(out / name)
    _write_rosbag2(out / "stamped", latency_ns=LATENCY_NS)
    expected["stamped"] = _expected(out / "stamped")
    _split(out / "split")
    expected["split"] = _expected(out / "split")
    shutil.copyfile(out / "plain" / "plain.db3", out / "bare.db3")
    expected["bare.db3"] = _expected(out / "bare.db3")
    return expected


def main() -> None:
    """Write every bag and its ``expected.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data"))
    args = parser.parse_args()
    for folder, write in (("rosbag1", _ros1_bags), ("rosbag2", _rosbag2_bags)):
        target = args.out / folder
        if target.exists():
            shutil.rmtree(target)
        expected = write(target)
        expected["writer"] = {"rosbags": version("rosbags")}
        (target / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
