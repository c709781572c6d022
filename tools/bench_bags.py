"""Benchmark the ROS bag sources against ``rosbags``' own readers.

The bags: a run of ``--minutes`` minutes (default 10), written with
``rosbags``' writers, once as a ROS 1 bag (lz4 chunks, with index) and once
as a rosbag2 SQLite bag: ``/joint_states`` (``sensor_msgs/JointState``,
7 joints) at 500 Hz, ``/tf`` (one moving frame) at 100 Hz and
``/camera/image_raw`` (``sensor_msgs/Image``, 320x240 ``rgb8``) at 10 Hz,
about 140 MB a minute together.

Each figure is printed beside the same work done by the library alone, in the
same run, and their ratio:

- **open**: ``open_recording`` as the window opens (``provisional``: the
  model ready with the transforms of the first second, ``/tf_static`` and the
  first message of every other topic; channels and frame times left for
  later) against the library's own open and connection listing (issue target
  <= 1.2). The model read with every transform, which takes its place in the
  background, is timed beside it, and so is the first open in a process
  (the bag's type store built: its (de)serialisers compiled);
- **plot**: that open and the ``/joint_states`` channel's values (what its
  plot draws) against the library reading and deserialising that topic alone
  (issue target <= 1.3).

The two sides alternate round by round; each figure is the median of
``--rounds`` rounds in CPU time of this process (``time.process_time``: the
work is on this thread, and a machine shared with other jobs skews wall
time by 2x), the wall time printed beside; a ratio is the median of the
rounds' ratios. Files are read warm. Needs the ``rosbag`` extra; ``--quick``
writes six-second bags, ``--keep DIR`` writes them there once and reuses them.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np
from rosbags.rosbag1 import Reader as Reader1
from rosbags.rosbag1 import Writer as Writer1
from rosbags.rosbag2 import Reader as Reader2
from rosbags.rosbag2 import Writer as Writer2
from rosbags.typesys import Stores

from bench_common import numbers_parser
from fsr_core.sources import open_recording
from fsr_core.sources.open_options import OpenOptions
from rosbag_messages import header, store_of, typestore, write_message

JOINT_HZ: Final = 500
TF_HZ: Final = 100
CAMERA_HZ: Final = 10
WIDTH, HEIGHT = 320, 240
JOINTS: Final = tuple(f"joint_{index}" for index in range(1, 8))
START_NS: Final = 1_700_000_000_000_000_000


def _events(store: Any, seconds: float) -> list[tuple[str, str, int, Any]]:
    types = store.types
    events = []
    for index in range(int(seconds * JOINT_HZ)):
        time_ns = START_NS + index * 1_000_000_000 // JOINT_HZ
        angle = np.sin(np.arange(1, 8) * index / JOINT_HZ)
        message = types["sensor_msgs/msg/JointState"](
            header=header(store, time_ns, ""),
            name=list(JOINTS),
            position=angle,
            velocity=np.cos(angle),
            effort=np.zeros(7),
        )
        events.append(("/joint_states", "sensor_msgs/msg/JointState", time_ns, message))
    for index in range(int(seconds * TF_HZ)):
        time_ns = START_NS + index * 1_000_000_000 // TF_HZ
        transform = types["geometry_msgs/msg/TransformStamped"](
            header=header(store, time_ns, "world"),
            child_frame_id="base_link",
            transform=types["geometry_msgs/msg/Transform"](
                translation=types["geometry_msgs/msg/Vector3"](
                    x=index / 1e3, y=0.0, z=0.0
                ),
                rotation=types["geometry_msgs/msg/Quaternion"](
                    x=0.0, y=0.0, z=0.0, w=1.0
                ),
            ),
        )
        events.append(
            (
                "/tf",
                "tf2_msgs/msg/TFMessage",
                time_ns,
                types["tf2_msgs/msg/TFMessage"](transforms=[transform]),
            )
        )
    pixels = np.random.default_rng(1).integers(
        0, 255, WIDTH * HEIGHT * 3, dtype=np.uint8
    )
    for index in range(int(seconds * CAMERA_HZ)):
        time_ns = START_NS + index * 1_000_000_000 // CAMERA_HZ
        image = types["sensor_msgs/msg/Image"](
            header=header(store, time_ns, "camera"),
            height=HEIGHT,
            width=WIDTH,
            encoding="rgb8",
            is_bigendian=0,
            step=WIDTH * 3,
            data=np.roll(pixels, index),
        )
        events.append(("/camera/image_raw", "sensor_msgs/msg/Image", time_ns, image))
    return sorted(events, key=lambda event: event[2])


def write_ros1(path: Path, seconds: float) -> None:
    """Write the run as a ROS 1 bag with lz4 chunks and its index."""
    store = typestore(Stores.ROS1_NOETIC)
    writer = Writer1(path)
    writer.set_compression(Writer1.CompressionFormat.LZ4)
    with writer:
        connections: dict[str, Any] = {}
        for event in _events(store, seconds):
            write_message(writer, connections, store, event, store.serialize_ros1)


def write_rosbag2(path: Path, seconds: float) -> None:
    """Write the run as a rosbag2 SQLite bag."""
    store = typestore(Stores.ROS2_HUMBLE)
    with Writer2(path, version=9) as writer:
        connections: dict[str, Any] = {}
        for event in _events(store, seconds):
            write_message(writer, connections, store, event, store.serialize_cdr)


def _reader(path: Path) -> Any:
    return Reader2(path) if path.is_dir() else Reader1(path)


def _library_open(path: Path) -> int:
    with _reader(path) as reader:
        return len([(c.topic, c.msgtype) for c in reader.connections])


def _deserializer(path: Path, reader: Any) -> Callable[[bytes, str], Any]:
    store = store_of(reader.connections)
    if path.is_dir():
        return store.deserialize_cdr
    return store.deserialize_ros1


def _library_read(path: Path, topics: tuple[str, ...] | None) -> int:
    """Read (and deserialise, images but timed) ``topics`` (``None``: all)."""
    with _reader(path) as reader:
        deserialize = _deserializer(path, reader)
        chosen = [c for c in reader.connections if topics is None or c.topic in topics]
        count = 0
        for connection, _, raw in reader.messages(connections=chosen):
            if connection.msgtype != "sensor_msgs/msg/Image":
                deserialize(raw, connection.msgtype)
            count += 1
        return count


_WINDOW: Final = OpenOptions(provisional=True)


def _source_open(path: Path) -> int:
    """Open the bag as the window does: the model ready, no channel read."""
    return len(open_recording(path, options=_WINDOW).channels)


def _source_whole(path: Path) -> int:
    """Open the bag with every transform read (what replaces the window's)."""
    return len(open_recording(path).channels)


def _source_plot(path: Path) -> int:
    """Open as the window does, then read ``/joint_states`` (what its plot draws)."""
    values = open_recording(path, options=_WINDOW).channels["/joint_states"].values
    return int(values.shape[0])


def _timed(run: Callable[[], object]) -> tuple[float, float]:
    """Return the CPU and wall seconds ``run`` takes."""
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def _pair(
    ours: Callable[[], object], theirs: Callable[[], object], rounds: int
) -> tuple[float, float, float, float, float]:
    """Alternate ``ours`` and ``theirs``; return medians (CPU, wall each) and ratio."""
    found: list[tuple[float, float, float, float]] = []
    for _ in range(rounds):
        ours_cpu, ours_wall = _timed(ours)
        theirs_cpu, theirs_wall = _timed(theirs)
        found.append((ours_cpu, ours_wall, theirs_cpu, theirs_wall))
    columns = [statistics.median(row[index] for row in found) for index in range(4)]
    ratio = statistics.median(row[0] / row[2] for row in found)
    return columns[0], columns[1], columns[2], columns[3], ratio


def measure(path: Path, rounds: int) -> list[str]:
    """Return the printed lines of one bag's figures."""
    files = [*path.iterdir()] if path.is_dir() else [path]
    size_mb = sum(item.stat().st_size for item in files) / 1e6
    first_cpu, first_wall = _timed(lambda: _source_open(path))
    _library_read(path, ("/joint_states",))  # warm both sides' file reads
    whole_cpu, whole_wall = _timed(lambda: _source_whole(path))
    opened = _pair(lambda: _source_open(path), lambda: _library_open(path), rounds)
    plotted = _pair(
        lambda: _source_plot(path),
        lambda: _library_read(path, ("/joint_states",)),
        rounds,
    )
    return [
        f"{path.name} ({size_mb:.0f} MB), CPU seconds (wall in brackets)",
        f"  open: source {opened[0]:.3f} ({opened[1]:.3f}), rosbags open + "
        f"connections {opened[2]:.3f} ({opened[3]:.3f}): {opened[4]:.2f}x, "
        "target <= 1.2x",
        f"    first open in the process (type store built) {first_cpu:.3f} "
        f"({first_wall:.3f}); every transform read, the model that follows "
        f"in the background, {whole_cpu:.3f} ({whole_wall:.3f})",
        f"  plot /joint_states: source open + channel {plotted[0]:.3f} "
        f"({plotted[1]:.3f}), rosbags reading and deserialising that topic "
        f"{plotted[2]:.3f} ({plotted[3]:.3f}): {plotted[4]:.2f}x, target <= 1.3x",
    ]


def main(argv: list[str] | None = None) -> int:
    """Write the bags, measure both, print the figures."""
    parser = numbers_parser(__doc__, {"--minutes": 10.0, "--rounds": 3})
    parser.add_argument("--quick", action="store_true", help="six-second bags")
    parser.add_argument(
        "--keep", type=Path, help="write the bags in this folder once, then reuse them"
    )
    args = parser.parse_args(argv)
    seconds = 6.0 if args.quick else args.minutes * 60
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep if args.keep is not None else Path(scratch)
        tag = f"{seconds:g}s"
        ros1, ros2 = folder / f"run_{tag}.bag", folder / f"run_{tag}_ros2"
        if not ros1.exists():
            write_ros1(ros1, seconds)
        if not ros2.exists():
            write_rosbag2(ros2, seconds)
        for path in (ros1, ros2):
            for line in measure(path, args.rounds):
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
