"""Write the MCAP test data of ``tests/data/mcap`` with the upstream writer libraries.

Every file comes from a library that real recorders use, never from bytes put
together by hand: ``mcap`` itself (the layout variants and the schemaless JSON
file), ``mcap-protobuf-support`` with ``foxglove-schemas-protobuf`` (Foxglove
messages), ``mcap-ros2-support`` (ROS 2 CDR) and ``rosbags`` (a rosbag2 folder
with MCAP storage). Each file is then read back with ``mcap.reader`` and the
official decoder factories, and what those readers return is saved in
``expected.json``: the project's tests compare against it and need none of
these libraries.

The libraries are not dependencies of the project. They live in a side
environment outside the repository::

    python3 -m venv /work/venv-mcap-writers
    /work/venv-mcap-writers/bin/pip install mcap mcap-protobuf-support
    /work/venv-mcap-writers/bin/pip install foxglove-schemas-protobuf
    /work/venv-mcap-writers/bin/pip install mcap-ros2-support rosbags
    /work/venv-mcap-writers/bin/pip install Pillow numpy pyyaml
    /work/venv-mcap-writers/bin/python tools/make_mcap_data.py --out tests/data/mcap

Timestamps, image contents and random bytes are fixed, so a second run with
the same library versions writes byte-identical files. Nothing imports this
script; the tests only read what it wrote.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import platform
import shutil
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

import numpy as np
import yaml  # type: ignore[import-untyped,unused-ignore]
from foxglove_schemas_protobuf.CameraCalibration_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    CameraCalibration,
)
from foxglove_schemas_protobuf.CompressedImage_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    CompressedImage,
)
from foxglove_schemas_protobuf.FrameTransform_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    FrameTransform,
)
from foxglove_schemas_protobuf.FrameTransforms_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    FrameTransforms,
)
from foxglove_schemas_protobuf.Quaternion_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    Quaternion,
)
from foxglove_schemas_protobuf.RawImage_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    RawImage,
)
from foxglove_schemas_protobuf.Vector3_pb2 import (  # type: ignore[import-not-found,unused-ignore]
    Vector3,
)
from google.protobuf.timestamp_pb2 import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
    Timestamp,
)
from mcap.decoder import DecoderFactory as McapDecoderFactory
from mcap.exceptions import EndOfFile, McapError
from mcap.reader import DecodedMessageTuple, make_reader
from mcap.records import Attachment, Channel, Footer, Header, Message, Metadata, Schema
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, IndexType
from mcap.writer import Writer as McapWriter
from mcap_protobuf.decoder import (  # type: ignore[import-not-found,unused-ignore]
    DecoderFactory as ProtobufDecoderFactory,
)
from mcap_protobuf.schema import (  # type: ignore[import-not-found,unused-ignore]
    register_schema as register_protobuf_schema,
)
from mcap_protobuf.writer import (  # type: ignore[import-not-found,unused-ignore]
    Writer as ProtobufWriter,
)
from mcap_ros2.decoder import (  # type: ignore[import-not-found,unused-ignore]
    DecoderFactory as Ros2DecoderFactory,
)
from mcap_ros2.writer import (  # type: ignore[import-not-found,unused-ignore]
    Writer as Ros2Writer,
)
from numpy.typing import NDArray
from PIL import Image
from rosbags.interfaces import (  # type: ignore[import-not-found,unused-ignore]
    Qos,
    QosDurability,
    QosHistory,
    QosLiveliness,
    QosReliability,
    QosTime,
)
from rosbags.rosbag2 import (  # type: ignore[import-not-found,unused-ignore]
    Reader as Rosbag2Reader,
)
from rosbags.rosbag2 import (  # type: ignore[import-not-found,unused-ignore]
    StoragePlugin,
)
from rosbags.rosbag2 import (  # type: ignore[import-not-found,unused-ignore]
    Writer as Rosbag2Writer,
)
from rosbags.typesys import (  # type: ignore[import-not-found,unused-ignore]
    Stores,
    get_typestore,
)

Json = dict[str, Any]

DEFAULT_OUT: Final = Path(__file__).resolve().parent.parent / "tests" / "data" / "mcap"
FOXGLOVE_FILE: Final = "foxglove_protobuf.mcap"
ROS2_FILE: Final = "ros2.mcap"
SCHEMALESS_FILE: Final = "json_schemaless.mcap"
ROSBAG2_DIR: Final = "rosbag2_run"
EXPECTED_FILE: Final = "expected.json"

T0_NS: Final = 1_700_000_000_000_000_000
"""Log time of the first message of every file (2023-11-14T22:13:20Z)."""
MS_NS: Final = 1_000_000
NS_PER_S: Final = 1_000_000_000
PUBLISH_LAG_NS: Final = 1 * MS_NS
"""publish_time = log_time - 1 ms in the files whose writer takes one."""
FOXGLOVE_STAMP_LAG_NS: Final = 3 * MS_NS
"""Foxglove ``timestamp`` = log_time - 3 ms."""
ROS_STAMP_LAG_NS: Final = 5 * MS_NS
"""ROS ``header.stamp`` = log_time - 5 ms (camera topics share their image's)."""

VERSIONED: Final = (
    "mcap",
    "mcap-protobuf-support",
    "mcap-ros2-support",
    "foxglove-schemas-protobuf",
    "rosbags",
    "protobuf",
    "zstandard",
    "lz4",
    "Pillow",
    "numpy",
)
NOT_PRODUCIBLE: Final = {
    "padding": "mcap.Writer has no option to pad records (conformance 'pad')",
    "crashed_mid_chunk": "layout_unfinished ends after a flush(), on a record "
    "boundary; a cut inside a record needs truncating by hand",
    "rosbag2_publish_time": "rosbags writes publish_time = log_time",
}


@dataclass(frozen=True)
class _Event:
    """One message to write: when it was logged, where, and what."""

    log_time_ns: int
    topic: str
    message: Any


def _log_ns(ms: int) -> int:
    return T0_NS + ms * MS_NS


def _seconds(ns: int) -> tuple[int, int]:
    return ns // NS_PER_S, ns % NS_PER_S


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _in_log_order(events: Iterable[_Event]) -> list[_Event]:
    return sorted(events, key=lambda event: event.log_time_ns)


# -- images ----------------------------------------------------------------------------

SQUARE_RGB: Final = ((230, 40, 40), (40, 200, 60), (250, 220, 30), (60, 90, 240))
JPEG_QUALITY: Final = 90


def _grid(width: int, height: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    rows, cols = np.mgrid[0:height, 0:width]
    return rows.astype(np.int64), cols.astype(np.int64)


def _scene(width: int, height: int, frame: int) -> NDArray[np.uint8]:
    """Return an RGB gradient with a coloured square that moves with ``frame``."""
    rows, cols = _grid(width, height)
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[..., 0] = cols * 255 // (width - 1)
    image[..., 1] = rows * 255 // (height - 1)
    image[..., 2] = 64
    side = height // 3
    left = 2 + (3 * frame) % (width - side - 4)
    top = 2 + (2 * frame) % (height - side - 4)
    image[top : top + side, left : left + side] = SQUARE_RGB[frame % len(SQUARE_RGB)]
    return image


def _mono8(width: int, height: int, frame: int) -> NDArray[np.uint8]:
    weights = np.array([299, 587, 114], dtype=np.uint32)
    luma = _scene(width, height, frame).astype(np.uint32) @ weights // 1000
    return luma.astype(np.uint8)


def _mono16(width: int, height: int, frame: int) -> NDArray[np.uint16]:
    rows, cols = _grid(width, height)
    low = (3 * cols + 5 * rows + frame) & 0xFF
    high = _mono8(width, height, frame).astype(np.int64) << 8
    return (high | low).astype(np.uint16)


def _depth_mm(width: int, height: int, frame: int) -> NDArray[np.uint16]:
    rows, cols = _grid(width, height)
    return (500 + 20 * cols + 10 * rows + 7 * frame).astype(np.uint16)


def _depth_m(
    width: int, height: int, frame: int, *, nan_last: bool
) -> NDArray[np.float32]:
    rows, cols = _grid(width, height)
    depth = (0.5 + 0.02 * cols + 0.01 * rows + 0.005 * frame).astype(np.float32)
    depth[height // 2, width // 2] = np.nan
    if nan_last:
        depth[height - 1, width - 1] = np.nan
    return depth


def _rgba(width: int, height: int, frame: int) -> NDArray[np.uint8]:
    alpha = np.full((height, width, 1), 255 - 20 * frame, dtype=np.uint8)
    return np.concatenate([_scene(width, height, frame), alpha], axis=2)


def _bgr(width: int, height: int, frame: int) -> NDArray[np.uint8]:
    return _scene(width, height, frame)[..., ::-1]


PIXEL_LAYOUT: Final = {
    "rgb8": (3, "u1"),
    "bgr8": (3, "u1"),
    "rgba8": (4, "u1"),
    "mono8": (1, "u1"),
    "mono16": (1, "u2"),
    "16UC1": (1, "u2"),
    "32FC1": (1, "f4"),
}
"""Encoding -> (channels, numpy kind) of one stored pixel."""


def _packed(
    plane: NDArray[Any], kind: str, *, big_endian: bool = False, pad_bytes: int = 0
) -> tuple[bytes, int]:
    """Return ``(data, step)``: the rows of ``plane`` as stored bytes."""
    typed = plane.astype(np.dtype((">" if big_endian else "<") + kind))
    rows = np.ascontiguousarray(typed.reshape(plane.shape[0], -1)).view(np.uint8)
    if pad_bytes:
        padding = np.zeros((rows.shape[0], pad_bytes), dtype=np.uint8)
        rows = np.concatenate([rows, padding], axis=1)
    return rows.tobytes(), int(rows.shape[1])


def _compressed(image: NDArray[np.uint8], image_format: str) -> bytes:
    buffer = io.BytesIO()
    if image_format == "jpeg":
        Image.fromarray(image).save(buffer, format="JPEG", quality=JPEG_QUALITY)
    else:
        Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


# -- foxglove_protobuf.mcap ------------------------------------------------------------

FOX_WIDTH: Final = 64
FOX_HEIGHT: Final = 48
FOX_FRAME: Final = "cam_front_optical"
ARM_TOPIC: Final = "/arm/state"
ARM_SCHEMA_NAME: Final = "fsr.ArmState"
ARM_SCHEMA: Final = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": ARM_SCHEMA_NAME,
    "type": "object",
    "properties": {
        "q": {
            "description": "joint angles, rad",
            "type": "array",
            "items": {"type": "number"},
            "minItems": 6,
            "maxItems": 6,
        },
        "tip": {
            "description": "tool tip position in base_link, m",
            "type": "object",
            "properties": {axis: {"type": "number"} for axis in "xyz"},
            "required": ["x", "y", "z"],
        },
        "gripper": {"type": "number", "minimum": 0, "maximum": 1},
        "mode": {"type": "string", "enum": ["reach", "grasp"]},
        "ok": {"type": "boolean"},
    },
    "required": ["q", "tip", "gripper", "mode", "ok"],
}
FOX_RAW_TOPICS: Final[tuple[tuple[str, str], ...]] = (
    ("/raw/rgb8", "rgb8"),
    ("/raw/bgr8", "bgr8"),
    ("/raw/rgba8", "rgba8"),
    ("/raw/mono8", "mono8"),
    ("/raw/mono16", "mono16"),
    ("/raw/depth16", "16UC1"),
    ("/raw/depth32", "32FC1"),
)
MONO8_PAD_BYTES: Final = 8
"""``/raw/mono8`` rows carry 8 padding bytes: step = width + 8."""
FOX_CALIBRATIONS: Final = (
    (58.0, (-0.281, 0.0734, 0.00094, -0.00061, -0.0089)),
    (61.5, (-0.265, 0.0734, 0.00094, -0.00061, -0.0089)),
)
"""(fx = fy, plumb_bob D) before and after the change at 1 s."""


def _pb_time(ns: int) -> Any:
    seconds, nanos = _seconds(ns)
    return Timestamp(seconds=seconds, nanos=nanos)


def _fox_stamp(log_ns: int) -> Any:
    return _pb_time(log_ns - FOXGLOVE_STAMP_LAG_NS)


def _fox_compressed_events(topic: str, image_format: str) -> list[_Event]:
    count, period_ms, first_ms = (
        (20, 100, 10) if image_format == "jpeg" else (5, 400, 50)
    )
    events = []
    for frame in range(count):
        log_ns = _log_ns(first_ms + period_ms * frame)
        message = CompressedImage(
            timestamp=_fox_stamp(log_ns),
            frame_id=FOX_FRAME,
            format=image_format,
            data=_compressed(_scene(FOX_WIDTH, FOX_HEIGHT, frame), image_format),
        )
        events.append(_Event(log_ns, topic, message))
    return events


def _fox_raw_plane(encoding: str, frame: int) -> tuple[bytes, int]:
    size = (FOX_WIDTH, FOX_HEIGHT, frame)
    planes: dict[str, Callable[[], tuple[bytes, int]]] = {
        "rgb8": lambda: _packed(_scene(*size), "u1"),
        "bgr8": lambda: _packed(_bgr(*size), "u1"),
        "rgba8": lambda: _packed(_rgba(*size), "u1"),
        "mono8": lambda: _packed(_mono8(*size), "u1", pad_bytes=MONO8_PAD_BYTES),
        "mono16": lambda: _packed(_mono16(*size), "u2"),
        "16UC1": lambda: _packed(_depth_mm(*size), "u2"),
        "32FC1": lambda: _packed(_depth_m(*size, nan_last=True), "f4"),
    }
    return planes[encoding]()


def _fox_raw_events() -> list[_Event]:
    events = []
    for index, (topic, encoding) in enumerate(FOX_RAW_TOPICS):
        for frame in range(3):
            log_ns = _log_ns(200 + 600 * frame + 3 * index)
            data, step = _fox_raw_plane(encoding, frame)
            message = RawImage(
                timestamp=_fox_stamp(log_ns),
                frame_id=FOX_FRAME,
                width=FOX_WIDTH,
                height=FOX_HEIGHT,
                encoding=encoding,
                step=step,
                data=data,
            )
            events.append(_Event(log_ns, topic, message))
    return events


def _pinhole(fx: float, cx: float, cy: float) -> tuple[list[float], list[float]]:
    """Return ``(K, P)`` of a camera with square pixels and no baseline."""
    k = [fx, 0.0, cx, 0.0, fx, cy, 0.0, 0.0, 1.0]
    p = [fx, 0.0, cx, 0.0, 0.0, fx, cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return k, p


IDENTITY_3X3: Final = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]


def _fox_calibration_events() -> list[_Event]:
    events = []
    for second in range(3):
        log_ns = _log_ns(1000 * second)
        fx, distortion = FOX_CALIBRATIONS[0 if second < 1 else 1]
        k, p = _pinhole(fx, (FOX_WIDTH - 1) / 2, (FOX_HEIGHT - 1) / 2)
        message = CameraCalibration(
            timestamp=_fox_stamp(log_ns),
            frame_id=FOX_FRAME,
            width=FOX_WIDTH,
            height=FOX_HEIGHT,
            distortion_model="plumb_bob",
            D=list(distortion),
            K=k,
            R=IDENTITY_3X3,
            P=p,
        )
        events.append(_Event(log_ns, "/cam/front/calibration", message))
    return events


def _base_pose(seconds: float) -> tuple[list[float], list[float]]:
    """Return the moving ``world -> base_link`` translation and rotation (xyzw)."""
    yaw = 0.3 * seconds
    translation = [round(0.5 * seconds, 9), round(0.2 * math.sin(seconds), 9), 0.0]
    rotation = [0.0, 0.0, round(math.sin(yaw / 2), 9), round(math.cos(yaw / 2), 9)]
    return translation, rotation


OPTICAL_ROTATION: Final = [-0.5, 0.5, -0.5, 0.5]
"""x right, y down, z forward from a body frame with x forward, z up."""


def _fox_transform(
    log_ns: int, parent: str, child: str, pose: tuple[list[float], list[float]]
) -> Any:
    translation, rotation = pose
    return FrameTransform(
        timestamp=_fox_stamp(log_ns),
        parent_frame_id=parent,
        child_frame_id=child,
        translation=Vector3(x=translation[0], y=translation[1], z=translation[2]),
        rotation=Quaternion(x=rotation[0], y=rotation[1], z=rotation[2], w=rotation[3]),
    )


def _fox_tf_events() -> list[_Event]:
    events = []
    camera_pose = ([0.2, 0.0, 0.5], OPTICAL_ROTATION)
    for index in range(20):
        log_ms = 5 + 100 * index
        log_ns = _log_ns(log_ms)
        transforms = [
            _fox_transform(log_ns, "world", "base_link", _base_pose(log_ms / 1000)),
            _fox_transform(log_ns, "base_link", FOX_FRAME, camera_pose),
        ]
        events.append(_Event(log_ns, "/tf", FrameTransforms(transforms=transforms)))
    return events


def _arm_state(seconds: float) -> Json:
    q = [
        round(0.4 * math.sin(seconds + 0.5 * joint) + 0.1 * joint, 6)
        for joint in range(6)
    ]
    tip = {
        "x": round(0.45 + 0.05 * math.cos(seconds), 6),
        "y": round(0.1 * math.sin(seconds), 6),
        "z": round(0.3 + 0.02 * seconds, 6),
    }
    return {
        "q": q,
        "tip": tip,
        "gripper": round(0.5 + 0.4 * math.sin(2 * seconds), 6),
        "mode": "reach" if seconds < 1.0 else "grasp",
        "ok": True,
    }


def _arm_events() -> list[_Event]:
    events = []
    for index in range(100):
        log_ms = 7 + 20 * index
        events.append(_Event(_log_ns(log_ms), ARM_TOPIC, _arm_state(log_ms / 1000)))
    return events


def _foxglove_events() -> list[_Event]:
    return _in_log_order(
        [
            *_fox_compressed_events("/cam/front/compressed", "jpeg"),
            *_fox_compressed_events("/cam/front/png", "png"),
            *_fox_raw_events(),
            *_fox_calibration_events(),
            *_fox_tf_events(),
            *_arm_events(),
        ]
    )


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def write_foxglove(path: Path) -> None:
    """Write Foxglove protobuf topics and one JSON topic with the protobuf writer."""
    sequences: Counter[str] = Counter()
    with path.open("wb") as stream:
        writer = ProtobufWriter(stream)
        # The protobuf writer has no JSON call; its own mcap Writer carries one.
        raw_writer = writer._writer
        schema_id = raw_writer.register_schema(
            name=ARM_SCHEMA_NAME,
            encoding="jsonschema",
            data=_json_bytes(ARM_SCHEMA),
        )
        arm_channel = raw_writer.register_channel(ARM_TOPIC, "json", schema_id)
        for event in _foxglove_events():
            sequences[event.topic] += 1
            times = {
                "log_time": event.log_time_ns,
                "publish_time": event.log_time_ns - PUBLISH_LAG_NS,
                "sequence": sequences[event.topic],
            }
            if event.topic == ARM_TOPIC:
                raw_writer.add_message(
                    channel_id=arm_channel, data=_json_bytes(event.message), **times
                )
            else:
                writer.write_message(event.topic, event.message, **times)
        writer.finish()  # type: ignore[no-untyped-call]  # left unannotated upstream


# -- ros2.mcap -------------------------------------------------------------------------

ROS_DEFINITIONS: Final = {
    "builtin_interfaces/Time": (
        "# A point in time: whole seconds plus the nanoseconds past them.\n"
        "int32 sec\n"
        "uint32 nanosec\n"
    ),
    "std_msgs/Header": (
        "# When the data was taken and the frame it is expressed in.\n"
        "builtin_interfaces/Time stamp\n"
        "string frame_id\n"
    ),
    "sensor_msgs/JointState": (
        "# Joint states; the arrays line up with name and may be left empty.\n"
        "std_msgs/Header header\n\n"
        "string[] name\n"
        "float64[] position  # rad or m\n"
        "float64[] velocity  # rad/s or m/s\n"
        "float64[] effort    # N*m or N\n"
    ),
    "sensor_msgs/Image": (
        "# An uncompressed image; encoding and step give the pixel layout.\n"
        "std_msgs/Header header\n"
        "uint32 height  # rows\n"
        "uint32 width   # columns\n"
        "string encoding\n"
        "uint8 is_bigendian\n"
        "uint32 step    # bytes per row\n"
        "uint8[] data   # step * height bytes\n"
    ),
    "sensor_msgs/CompressedImage": (
        "std_msgs/Header header\n"
        "string format  # jpeg or png, maybe with a colour conversion prefix\n"
        "uint8[] data\n"
    ),
    "sensor_msgs/RegionOfInterest": (
        "uint32 x_offset\n"
        "uint32 y_offset\n"
        "uint32 height\n"
        "uint32 width\n"
        "bool do_rectify\n"
    ),
    "sensor_msgs/CameraInfo": (
        "# Intrinsics of a camera, for the image with the same header.\n"
        "std_msgs/Header header\n"
        "uint32 height\n"
        "uint32 width\n"
        "string distortion_model  # plumb_bob, rational_polynomial, equidistant\n"
        "float64[] d      # distortion coefficients, as many as the model needs\n"
        "float64[9] k     # intrinsic matrix, row-major\n"
        "float64[9] r     # rectification rotation, row-major\n"
        "float64[12] p    # projection matrix, row-major\n"
        "uint32 binning_x\n"
        "uint32 binning_y\n"
        "sensor_msgs/RegionOfInterest roi\n"
    ),
    "tf2_msgs/TFMessage": "geometry_msgs/TransformStamped[] transforms\n",
    "geometry_msgs/TransformStamped": (
        "# header.frame_id is the parent frame.\n"
        "std_msgs/Header header\n"
        "string child_frame_id\n"
        "geometry_msgs/Transform transform\n"
    ),
    "geometry_msgs/Transform": (
        "geometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation\n"
    ),
    "geometry_msgs/Vector3": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Quaternion": "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
    "geometry_msgs/Point": "float64 x\nfloat64 y\nfloat64 z\n",
    "geometry_msgs/Pose": (
        "geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n"
    ),
    "geometry_msgs/PoseWithCovariance": (
        "geometry_msgs/Pose pose\n"
        "float64[36] covariance  # row-major 6x6: x y z about-x about-y about-z\n"
    ),
    "geometry_msgs/Twist": (
        "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n"
    ),
    "geometry_msgs/TwistWithCovariance": (
        "geometry_msgs/Twist twist\nfloat64[36] covariance\n"
    ),
    "nav_msgs/Odometry": (
        "# Pose in header.frame_id, twist in child_frame_id.\n"
        "std_msgs/Header header\n"
        "string child_frame_id\n"
        "geometry_msgs/PoseWithCovariance pose\n"
        "geometry_msgs/TwistWithCovariance twist\n"
    ),
    "geometry_msgs/PointStamped": (
        "std_msgs/Header header\ngeometry_msgs/Point point\n"
    ),
    "std_msgs/Float64": "float64 data\n",
}
"""ROS 2 ``.msg`` texts, keyed ``package/Name`` as rosbag2 names dependencies."""
SEPARATOR: Final = "=" * 80


def _short_name(type_name: str) -> str:
    package, _, name = type_name.rpartition("/")
    return f"{package.split('/')[0]}/{name}"


def _dependencies(short_name: str) -> list[str]:
    """Return the message types ``short_name`` uses, depth first, once each."""
    found: list[str] = []

    def visit(name: str) -> None:
        for line in ROS_DEFINITIONS[name].splitlines():
            words = line.split("#")[0].split()
            used = words[0].split("[")[0] if words else ""
            if "/" in used and used not in found:
                found.append(used)
                visit(used)

    visit(short_name)
    return found


def ros2_schema_text(type_name: str) -> str:
    """Return the ``ros2msg`` schema of ``type_name`` with every dependency appended."""
    short_name = _short_name(type_name)
    parts = [ROS_DEFINITIONS[short_name]]
    for dependency in _dependencies(short_name):
        parts.append(f"{SEPARATOR}\nMSG: {dependency}\n{ROS_DEFINITIONS[dependency]}")
    return "".join(parts)


ROS_TOPIC_TYPES: Final = {
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "/tf": "tf2_msgs/msg/TFMessage",
    "/joint_states": "sensor_msgs/msg/JointState",
    "/odom": "nav_msgs/msg/Odometry",
    "/camera/camera_info": "sensor_msgs/msg/CameraInfo",
    "/camera/image_raw": "sensor_msgs/msg/Image",
    "/camera/image/compressed": "sensor_msgs/msg/CompressedImage",
    "/camera/depth": "sensor_msgs/msg/Image",
    "/camera/mono16": "sensor_msgs/msg/Image",
    "/fisheye/camera_info": "sensor_msgs/msg/CameraInfo",
    "/fisheye/image_raw": "sensor_msgs/msg/Image",
}
JOINT_NAMES: Final = [f"joint_{index}" for index in range(1, 7)]
CAM_WIDTH: Final = 80
CAM_HEIGHT: Final = 60
CAM_FRAME: Final = "camera_optical"
FISHEYE_SIZE: Final = 64
FISHEYE_FRAME: Final = "fisheye_optical"
RATIONAL_D: Final = [0.412, -0.093, 0.00031, -0.00042, 0.0127, 0.771, -0.021, 0.0068]
EQUIDISTANT_D: Final = [-0.0125, 0.0031, -0.0019, 0.0004]


def _ros_header(stamp_ns: int, frame_id: str) -> Json:
    sec, nanosec = _seconds(stamp_ns)
    return {"stamp": {"sec": sec, "nanosec": nanosec}, "frame_id": frame_id}


def joint_state(log_ns: int) -> Json:
    """Return the JointState logged at ``log_ns`` as a dict of plain values."""
    seconds = (log_ns - T0_NS) / NS_PER_S
    phases = [seconds * math.pi + 0.4 * joint for joint in range(6)]
    position = [
        round(0.3 * math.sin(phase) + 0.05 * j, 9) for j, phase in enumerate(phases)
    ]
    velocity = [round(0.3 * math.pi * math.cos(phase), 9) for phase in phases]
    effort = [
        round(2.0 + 0.5 * j + 0.1 * math.cos(phase), 9)
        for j, phase in enumerate(phases)
    ]
    return {
        "header": _ros_header(log_ns - ROS_STAMP_LAG_NS, ""),
        "name": list(JOINT_NAMES),
        "position": position,
        "velocity": velocity,
        "effort": effort,
    }


def camera_info(
    stamp_ns: int,
    frame_id: str,
    size: tuple[int, int],
    distortion: tuple[str, list[float]],
) -> Json:
    """Return a CameraInfo message as a dict of plain values."""
    width, height = size
    fx = 70.2 if distortion[0] != "equidistant" else 22.6
    k, p = _pinhole(fx, (width - 1) / 2, (height - 1) / 2)
    return {
        "header": _ros_header(stamp_ns, frame_id),
        "height": height,
        "width": width,
        "distortion_model": distortion[0],
        "d": list(distortion[1]),
        "k": k,
        "r": list(IDENTITY_3X3),
        "p": p,
        "binning_x": 0,
        "binning_y": 0,
        "roi": {
            "x_offset": 0,
            "y_offset": 0,
            "height": 0,
            "width": 0,
            "do_rectify": False,
        },
    }


def _ros_image(
    stamp_ns: int,
    frame_id: str,
    plane: NDArray[Any],
    encoding: str,
    *,
    big_endian: bool = False,
) -> Json:
    data, step = _packed(plane, PIXEL_LAYOUT[encoding][1], big_endian=big_endian)
    return {
        "header": _ros_header(stamp_ns, frame_id),
        "height": int(plane.shape[0]),
        "width": int(plane.shape[1]),
        "encoding": encoding,
        "is_bigendian": int(big_endian),
        "step": step,
        "data": data,
    }


def _ros_raw_frame(
    camera: str,
    frame_id: str,
    image_ms: int,
    image: NDArray[np.uint8],
    distortion: tuple[str, list[float]],
) -> list[_Event]:
    """Return one frame of ``/<camera>``: ``camera_info`` 2 ms before ``image_raw``.

    The header stamps lag the log time by :data:`ROS_STAMP_LAG_NS`; the
    encoding is ``rgb8`` for a colour image, ``mono8`` for a grey one.
    """
    stamp = _log_ns(image_ms) - ROS_STAMP_LAG_NS
    height, width = image.shape[:2]
    encoding = "rgb8" if image.ndim == 3 else "mono8"
    info = camera_info(stamp, frame_id, (width, height), distortion)
    return [
        _Event(_log_ns(image_ms - 2), f"/{camera}/camera_info", info),
        _Event(
            _log_ns(image_ms),
            f"/{camera}/image_raw",
            _ros_image(stamp, frame_id, image, encoding),
        ),
    ]


def _ros_camera_events() -> list[_Event]:
    events = []
    distortion = ("rational_polynomial", RATIONAL_D)
    for frame in range(5):
        image_ms = 100 + 400 * frame
        scene = _scene(CAM_WIDTH, CAM_HEIGHT, frame)
        compressed = {
            "header": _ros_header(_log_ns(image_ms) - ROS_STAMP_LAG_NS, CAM_FRAME),
            "format": "jpeg",
            "data": _compressed(scene, "jpeg"),
        }
        events += _ros_raw_frame("camera", CAM_FRAME, image_ms, scene, distortion)
        events.append(
            _Event(_log_ns(image_ms + 2), "/camera/image/compressed", compressed)
        )
    return events


def _ros_depth_events() -> list[_Event]:
    events = []
    for frame in range(3):
        depth_ms = 200 + 600 * frame
        depth = _depth_m(CAM_WIDTH, CAM_HEIGHT, frame, nan_last=False)
        mono16 = _mono16(CAM_WIDTH, CAM_HEIGHT, frame)
        depth_stamp = _log_ns(depth_ms) - ROS_STAMP_LAG_NS
        mono_stamp = _log_ns(depth_ms + 5) - ROS_STAMP_LAG_NS
        events += [
            _Event(
                _log_ns(depth_ms),
                "/camera/depth",
                _ros_image(depth_stamp, CAM_FRAME, depth, "32FC1"),
            ),
            _Event(
                _log_ns(depth_ms + 5),
                "/camera/mono16",
                _ros_image(mono_stamp, CAM_FRAME, mono16, "mono16", big_endian=True),
            ),
        ]
    return events


def _ros_fisheye_events() -> list[_Event]:
    events = []
    distortion = ("equidistant", EQUIDISTANT_D)
    for frame in range(3):
        mono = _mono8(FISHEYE_SIZE, FISHEYE_SIZE, frame)
        events += _ros_raw_frame(
            "fisheye", FISHEYE_FRAME, 298 + 600 * frame, mono, distortion
        )
    return events


def _ros_transform(
    stamp_ns: int, parent: str, child: str, pose: tuple[list[float], list[float]]
) -> Json:
    translation, rotation = pose
    return {
        "header": _ros_header(stamp_ns, parent),
        "child_frame_id": child,
        "transform": {
            "translation": dict(zip("xyz", translation, strict=True)),
            "rotation": dict(zip("xyzw", rotation, strict=True)),
        },
    }


def _ros_tf_events() -> list[_Event]:
    stamp = _log_ns(0) - ROS_STAMP_LAG_NS
    static = [
        _ros_transform(
            stamp, "base_link", "camera_link", ([0.25, 0.0, 0.6], [0.0, 0.0, 0.0, 1.0])
        ),
        _ros_transform(
            stamp, "camera_link", CAM_FRAME, ([0.0, 0.0, 0.0], OPTICAL_ROTATION)
        ),
        _ros_transform(
            stamp, "camera_link", FISHEYE_FRAME, ([0.0, 0.05, 0.0], OPTICAL_ROTATION)
        ),
    ]
    events = [_Event(_log_ns(0), "/tf_static", {"transforms": static})]
    for index in range(20):
        log_ms = 3 + 100 * index
        moving = _ros_transform(
            _log_ns(log_ms) - ROS_STAMP_LAG_NS,
            "world",
            "base_link",
            _base_pose(log_ms / 1000),
        )
        events.append(_Event(_log_ns(log_ms), "/tf", {"transforms": [moving]}))
    return events


def _covariance(scale: float) -> list[float]:
    values = []
    for row in range(6):
        for col in range(6):
            diagonal = scale * (row + 1) if row == col else 0.0
            values.append(diagonal or (scale / 10 if abs(row - col) == 1 else 0.0))
    return values


def _odometry_message(log_ms: int) -> Json:
    translation, rotation = _base_pose(log_ms / 1000)
    return {
        "header": _ros_header(_log_ns(log_ms) - ROS_STAMP_LAG_NS, "world"),
        "child_frame_id": "base_link",
        "pose": {
            "pose": {
                "position": dict(zip("xyz", translation, strict=True)),
                "orientation": dict(zip("xyzw", rotation, strict=True)),
            },
            "covariance": _covariance(0.01),
        },
        "twist": {
            "twist": {
                "linear": {
                    "x": 0.5,
                    "y": round(0.2 * math.cos(log_ms / 1000), 9),
                    "z": 0.0,
                },
                "angular": {"x": 0.0, "y": 0.0, "z": 0.3},
            },
            "covariance": _covariance(0.002),
        },
    }


def _ros_events() -> list[_Event]:
    joints = [
        _Event(_log_ns(1 + 10 * i), "/joint_states", joint_state(_log_ns(1 + 10 * i)))
        for i in range(200)
    ]
    odometry = [
        _Event(_log_ns(ms), "/odom", _odometry_message(ms)) for ms in range(4, 2000, 50)
    ]
    return _in_log_order(
        [
            *_ros_tf_events(),
            *joints,
            *odometry,
            *_ros_camera_events(),
            *_ros_depth_events(),
            *_ros_fisheye_events(),
        ]
    )


def _write_ros2_events(
    path: Path,
    events: Iterable[_Event | _TimedEvent],
    types: Mapping[str, str],
) -> None:
    """Write ``events`` with mcap-ros2-support, one schema per message type.

    A :class:`_TimedEvent` keeps its own publish time; any other event is
    published 1 ms before it is logged (:data:`PUBLISH_LAG_NS`).
    """
    schemas: dict[str, Any] = {}
    sequences: Counter[str] = Counter()
    with path.open("wb") as stream:
        writer = Ros2Writer(stream)
        for event in events:
            type_name = types[event.topic]
            if type_name not in schemas:
                schemas[type_name] = writer.register_msgdef(
                    type_name, ros2_schema_text(type_name)
                )
            sequences[event.topic] += 1
            publish = (
                event.publish_time_ns
                if isinstance(event, _TimedEvent)
                else event.log_time_ns - PUBLISH_LAG_NS
            )
            writer.write_message(
                event.topic,
                schemas[type_name],
                event.message,
                log_time=event.log_time_ns,
                publish_time=publish,
                sequence=sequences[event.topic],
            )
        writer.finish()  # type: ignore[no-untyped-call]  # left unannotated upstream


def write_ros2(path: Path) -> None:
    """Write ROS 2 CDR topics with mcap-ros2-support, one schema per message type."""
    _write_ros2_events(path, _ros_events(), ROS_TOPIC_TYPES)


# -- json_schemaless.mcap --------------------------------------------------------------


def _schemaless_events() -> list[_Event]:
    events = []
    for index in range(20):
        seconds = index / 20
        cpu = {
            "load": round(0.25 + 0.1 * math.sin(seconds * 5), 6),
            "temp_c": 41 + index % 3,
        }
        events.append(_Event(_log_ns(50 * index), "/metrics/cpu", cpu))
    for index in range(10):
        seconds = index / 10
        pose = {
            "x": round(0.1 * index, 6),
            "y": round(math.sin(seconds), 6),
            "theta": round(0.05 * index, 6),
        }
        events.append(_Event(_log_ns(3 + 100 * index), "/base/pose2d", pose))
    return _in_log_order(events)


def write_schemaless(path: Path) -> None:
    """Write JSON channels without a schema (schema id 0) with the mcap Writer."""
    with path.open("wb") as stream:
        writer = McapWriter(stream)
        writer.start()
        channels: dict[str, int] = {}
        sequences: Counter[str] = Counter()
        for event in _schemaless_events():
            if event.topic not in channels:
                channels[event.topic] = writer.register_channel(event.topic, "json", 0)
            sequences[event.topic] += 1
            writer.add_message(
                channel_id=channels[event.topic],
                log_time=event.log_time_ns,
                data=_json_bytes(event.message),
                publish_time=event.log_time_ns - PUBLISH_LAG_NS,
                sequence=sequences[event.topic],
            )
        writer.finish()  # type: ignore[no-untyped-call]  # left unannotated upstream


# -- time_bases.mcap -------------------------------------------------------------------

TIME_BASES_FILE: Final = "time_bases.mcap"
TIME_BASES_TOPIC_TYPES: Final = {
    "/joint_states": "sensor_msgs/msg/JointState",
    "/battery/voltage": "std_msgs/msg/Float64",
    "/target": "geometry_msgs/msg/PointStamped",
}
UNSET_STAMPS: Final = 2
"""``/target``'s first messages carry the unset stamp 0 (no clock yet)."""
TARGET_STAMP_LAG_NS: Final = 25 * MS_NS
"""``/target``'s set stamps lag its log time by 25 ms."""


@dataclass(frozen=True)
class _TimedEvent:
    """A message whose publish time is its own, not log time - 1 ms."""

    log_time_ns: int
    publish_time_ns: int
    topic: str
    message: Json


def _time_bases_joints() -> list[_TimedEvent]:
    """Return joint states stamped on a 100 ms grid, sent later and later, jittered.

    Stamp ``T0 + 100 ms * i``, publish time 2 ms + 3 ms * i after it (a
    growing queue), log time 10 ms (even i) or 40 ms (odd i) after that.
    """
    events = []
    for index in range(10):
        stamp = _log_ns(100 * index)
        publish = stamp + (2 + 3 * index) * MS_NS
        log = publish + (40 if index % 2 else 10) * MS_NS
        message = joint_state(stamp + ROS_STAMP_LAG_NS)  # its header stamp: ``stamp``
        events.append(_TimedEvent(log, publish, "/joint_states", message))
    return events


def _time_bases_battery() -> list[_TimedEvent]:
    """``std_msgs/Float64`` has no header: it has no stamp to place it."""
    return [
        _TimedEvent(
            _log_ns(50 + 200 * index),
            _log_ns(50 + 200 * index) - PUBLISH_LAG_NS,
            "/battery/voltage",
            {"data": round(24.0 - 0.05 * index, 6)},
        )
        for index in range(5)
    ]


def _time_bases_target() -> list[_TimedEvent]:
    """Return stamped points whose first stamps are unset (0): no clock yet."""
    events = []
    for index in range(4):
        log = _log_ns(120 + 200 * index)
        stamp = 0 if index < UNSET_STAMPS else log - TARGET_STAMP_LAG_NS
        message = {
            "header": _ros_header(stamp, "base_link"),
            "point": {"x": 0.4 + 0.01 * index, "y": -0.1, "z": 0.25},
        }
        events.append(_TimedEvent(log, log - PUBLISH_LAG_NS, "/target", message))
    return events


def _time_bases_events() -> list[_TimedEvent]:
    found = [*_time_bases_joints(), *_time_bases_battery(), *_time_bases_target()]
    return sorted(found, key=lambda event: event.log_time_ns)


def write_time_bases(path: Path) -> None:
    """Write ROS 2 topics whose log, publish and header times differ, unevenly."""
    _write_ros2_events(path, _time_bases_events(), TIME_BASES_TOPIC_TYPES)


def _header_stamp(decoded: Any) -> int | None:
    """Return a decoded message's header stamp; ``None`` without one or when unset."""
    header = getattr(decoded, "header", None)
    if header is None:
        return None
    stamp = int(header.stamp.sec) * NS_PER_S + int(header.stamp.nanosec)
    return stamp or None


def time_bases_references(path: Path) -> Json:
    """Say where each message lies on each time base, as read back from ``path``.

    For each base (``log``, ``publish``, ``header``): ``start_ns``, the
    earliest time, and per topic each message's offset from it in log-time
    order. A message without a header stamp (no header, or the unset stamp 0)
    counts at its log time; ``at_log_time`` counts them per topic.
    """
    items = _decoded(path)
    stamps = [_header_stamp(item.decoded_message) for item in items]
    times = {
        "log": [item.message.log_time for item in items],
        "publish": [item.message.publish_time for item in items],
        "header": [
            item.message.log_time if stamp is None else stamp
            for item, stamp in zip(items, stamps, strict=True)
        ],
    }
    bases: Json = {}
    for base, values in times.items():
        start = min(values)
        offsets: dict[str, list[int]] = {}
        for item, value in zip(items, values, strict=True):
            offsets.setdefault(item.channel.topic, []).append(value - start)
        bases[base] = {"start_ns": start, "offsets_ns": dict(sorted(offsets.items()))}
    unstamped = Counter(
        item.channel.topic
        for item, stamp in zip(items, stamps, strict=True)
        if stamp is None
    )
    bases["header"]["at_log_time"] = dict(sorted(unstamped.items()))
    return bases


# -- layout_*.mcap ---------------------------------------------------------------------

LAYOUT_JSON_TOPIC: Final = "/layout/pose"
LAYOUT_IMAGE_TOPIC: Final = "/layout/image"
LAYOUT_POSE_SCHEMA_NAME: Final = "fsr.Pose2D"
LAYOUT_POSE_SCHEMA: Final = {
    "title": LAYOUT_POSE_SCHEMA_NAME,
    "type": "object",
    "properties": {
        "seq": {"type": "integer"},
        "x": {"type": "number"},
        "y": {"type": "number"},
        "yaw": {"type": "number"},
    },
    "required": ["seq", "x", "y", "yaw"],
}
IMAGE_DELAY_NS: Final = 400 * MS_NS
"""How late ``layout_out_of_order`` writes each image after its log time."""


@dataclass(frozen=True)
class _Extra:
    """An attachment or metadata record, written once ``after`` messages are out."""

    after: int
    attachment: tuple[str, str, bytes] | None = None
    metadata: tuple[str, dict[str, str]] | None = None


@dataclass(frozen=True)
class _Variant:
    """One layout file: the mcap Writer options and how the stream ends."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    finish: bool = True
    delay_images: bool = False


LAYOUT_VARIANTS: Final = (
    _Variant("chunked_zstd"),
    _Variant("chunked_lz4", {"compression": CompressionType.LZ4}),
    _Variant("chunked_none", {"compression": CompressionType.NONE}),
    _Variant("unchunked", {"use_chunking": False}),
    _Variant(
        "no_message_index",
        {"index_types": IndexType.CHUNK | IndexType.ATTACHMENT | IndexType.METADATA},
    ),
    _Variant(
        "no_chunk_index",
        {"index_types": IndexType.MESSAGE | IndexType.ATTACHMENT | IndexType.METADATA},
    ),
    _Variant(
        "no_attachment_metadata_index",
        {"index_types": IndexType.CHUNK | IndexType.MESSAGE},
    ),
    _Variant("no_index", {"index_types": IndexType.NONE}),
    _Variant("no_statistics", {"use_statistics": False}),
    _Variant("no_summary_offsets", {"use_summary_offsets": False}),
    _Variant(
        "no_repeated_schemas_channels",
        {"repeat_schemas": False, "repeat_channels": False},
    ),
    _Variant(
        "no_summary",
        {
            "index_types": IndexType.NONE,
            "use_statistics": False,
            "repeat_schemas": False,
            "repeat_channels": False,
            "use_summary_offsets": False,
        },
    ),
    _Variant("small_chunks", {"chunk_size": 256}),
    _Variant("no_crc", {"enable_crcs": False}),
    _Variant("data_crc", {"enable_data_crcs": True}),
    _Variant("out_of_order", {"chunk_size": 600}, delay_images=True),
    _Variant("unfinished", finish=False),
)


def _layout_events() -> list[_Event]:
    events = []
    for index in range(40):
        seconds = index / 20
        pose = {
            "seq": index,
            "x": round(0.05 * index, 6),
            "y": round(0.3 * math.sin(seconds), 6),
            "yaw": round(0.1 * seconds, 6),
        }
        events.append(_Event(_log_ns(2 + 50 * index), LAYOUT_JSON_TOPIC, pose))
    for frame in range(6):
        log_ns = _log_ns(25 + 300 * frame)
        image = CompressedImage(
            timestamp=_fox_stamp(log_ns),
            frame_id="layout_cam",
            format="jpeg",
            data=_compressed(_scene(32, 24, frame), "jpeg"),
        )
        events.append(_Event(log_ns, LAYOUT_IMAGE_TOPIC, image))
    return _in_log_order(events)


def _layout_extras() -> list[_Extra]:
    blob = np.random.default_rng(7).integers(0, 256, size=256, dtype=np.uint8).tobytes()
    notes = b"Layout test recording.\nSame messages in every layout variant.\n"
    return [
        _Extra(
            0, metadata=("session", {"operator": "ci", "site": "lab-3", "run": "17"})
        ),
        _Extra(10, attachment=("notes.txt", "text/plain", notes)),
        _Extra(30, attachment=("blob.bin", "application/octet-stream", blob)),
        _Extra(46, metadata=("robot", {"model": "arm6", "serial": "A-0042"})),
    ]


def _write_extra(writer: McapWriter, extra: _Extra) -> None:
    if extra.metadata is not None:
        writer.add_metadata(*extra.metadata)
    if extra.attachment is not None:
        name, media_type, data = extra.attachment
        log_ns = _log_ns(500)
        writer.add_attachment(log_ns - NS_PER_S, log_ns, name, media_type, data)


def _write_order(events: list[_Event], delay_images: bool) -> list[_Event]:
    if not delay_images:
        return events
    delay = {LAYOUT_IMAGE_TOPIC: IMAGE_DELAY_NS}
    return sorted(
        events, key=lambda event: event.log_time_ns + delay.get(event.topic, 0)
    )


def _layout_channels(writer: McapWriter) -> dict[str, int]:
    pose_schema = writer.register_schema(
        name=LAYOUT_POSE_SCHEMA_NAME,
        encoding="jsonschema",
        data=_json_bytes(LAYOUT_POSE_SCHEMA),
    )
    image_schema = register_protobuf_schema(writer, CompressedImage)
    return {
        LAYOUT_JSON_TOPIC: writer.register_channel(
            LAYOUT_JSON_TOPIC, "json", pose_schema
        ),
        LAYOUT_IMAGE_TOPIC: writer.register_channel(
            LAYOUT_IMAGE_TOPIC, "protobuf", image_schema
        ),
    }


def _layout_payload(event: _Event) -> bytes:
    if event.topic == LAYOUT_JSON_TOPIC:
        return _json_bytes(event.message)
    return bytes(event.message.SerializeToString())


def write_layout(path: Path, variant: _Variant) -> None:
    """Write the layout content set with the mcap Writer options of ``variant``."""
    extras = _layout_extras()
    sequences: Counter[str] = Counter()
    with path.open("wb") as stream:
        writer = McapWriter(stream, **variant.options)
        writer.start()
        channels = _layout_channels(writer)
        events = _write_order(_layout_events(), variant.delay_images)
        for written, event in enumerate(events):
            for extra in extras:
                if extra.after == written:
                    _write_extra(writer, extra)
            sequences[event.topic] += 1
            writer.add_message(
                channel_id=channels[event.topic],
                log_time=event.log_time_ns,
                data=_layout_payload(event),
                publish_time=event.log_time_ns - PUBLISH_LAG_NS,
                sequence=sequences[event.topic],
            )
        for extra in extras:
            if extra.after == len(events):
                _write_extra(writer, extra)
        if variant.finish:
            writer.finish()  # type: ignore[no-untyped-call]  # left unannotated upstream
        else:
            writer.flush()  # type: ignore[no-untyped-call]  # left unannotated upstream


def write_layouts(out: Path) -> list[str]:
    """Write every layout variant; return their file names."""
    names = []
    for variant in LAYOUT_VARIANTS:
        name = f"layout_{variant.name}.mcap"
        write_layout(out / name, variant)
        names.append(name)
    return names


# -- rosbag2_run/ (rosbags) ------------------------------------------------------------

ROSBAG2_TOPICS: Final = {
    "/joint_states": "sensor_msgs/msg/JointState",
    "/camera/camera_info": "sensor_msgs/msg/CameraInfo",
}


def _sensor_qos() -> Any:
    forever = QosTime(sec=9223372036, nsec=854775807)
    return Qos(
        history=QosHistory.KEEP_LAST,
        depth=10,
        reliability=QosReliability.RELIABLE,
        durability=QosDurability.VOLATILE,
        deadline=forever,
        lifespan=forever,
        liveliness=QosLiveliness.AUTOMATIC,
        liveliness_lease_duration=forever,
        avoid_ros_namespace_conventions=False,
    )


def _rosbags_header(typestore: Any, header: Json) -> Any:
    time = typestore.types["builtin_interfaces/msg/Time"](**header["stamp"])
    return typestore.types["std_msgs/msg/Header"](
        stamp=time, frame_id=header["frame_id"]
    )


def _rosbags_joint_state(typestore: Any, value: Json) -> Any:
    arrays = {
        key: np.array(value[key], dtype=np.float64)
        for key in ("position", "velocity", "effort")
    }
    return typestore.types["sensor_msgs/msg/JointState"](
        header=_rosbags_header(typestore, value["header"]), name=value["name"], **arrays
    )


def _rosbags_camera_info(typestore: Any, value: Json) -> Any:
    roi = typestore.types["sensor_msgs/msg/RegionOfInterest"](**value["roi"])
    arrays = {key: np.array(value[key], dtype=np.float64) for key in "dkrp"}
    plain = {key: value[key] for key in ("height", "width", "distortion_model")}
    return typestore.types["sensor_msgs/msg/CameraInfo"](
        header=_rosbags_header(typestore, value["header"]),
        binning_x=value["binning_x"],
        binning_y=value["binning_y"],
        roi=roi,
        **plain,
        **arrays,
    )


def _rosbag2_events() -> list[_Event]:
    joints = [
        _Event(_log_ns(1 + 10 * i), "/joint_states", joint_state(_log_ns(1 + 10 * i)))
        for i in range(50)
    ]
    infos = []
    for index in range(5):
        log_ns = _log_ns(98 + 100 * index)
        info = camera_info(
            log_ns - ROS_STAMP_LAG_NS,
            CAM_FRAME,
            (CAM_WIDTH, CAM_HEIGHT),
            ("plumb_bob", [-0.2, 0.05, 0.001, -0.001, 0.002]),
        )
        infos.append(_Event(log_ns, "/camera/camera_info", info))
    return _in_log_order([*joints, *infos])


def write_rosbag2(folder: Path) -> None:
    """Write a rosbag2 folder (metadata.yaml + MCAP storage) with rosbags."""
    if folder.exists():
        shutil.rmtree(folder)
    typestore = get_typestore(Stores.ROS2_JAZZY)
    writer = Rosbag2Writer(
        folder, version=Rosbag2Writer.VERSION_LATEST, storage_plugin=StoragePlugin.MCAP
    )
    writer.set_custom_data("generator", "fsr-viewer tools/make_mcap_data.py")
    with writer:
        connections = {
            topic: writer.add_connection(
                topic,
                type_name,
                typestore=typestore,
                offered_qos_profiles=[_sensor_qos()],
            )
            for topic, type_name in ROSBAG2_TOPICS.items()
        }
        for event in _rosbag2_events():
            type_name = ROSBAG2_TOPICS[event.topic]
            build = (
                _rosbags_joint_state
                if event.topic == "/joint_states"
                else _rosbags_camera_info
            )
            message = build(typestore, event.message)
            data = bytes(typestore.serialize_cdr(message, type_name))
            writer.write(connections[event.topic], event.log_time_ns, data)


# -- reading back: what the upstream readers return ------------------------------------


@dataclass
class _Scan:
    """Every record of one file, read front to back by ``mcap``'s StreamReader."""

    header: Header | None = None
    schemas: dict[int, Schema] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    metadata: list[Metadata] = field(default_factory=list)
    footer: bool = False


def _collect(scan: _Scan, record: Any) -> None:
    if isinstance(record, Header):
        scan.header = record
    elif isinstance(record, Schema):
        scan.schemas.setdefault(record.id, record)
    elif isinstance(record, Channel):
        scan.channels.setdefault(record.id, record)
    elif isinstance(record, Message):
        scan.messages.append(record)
    elif isinstance(record, Attachment):
        scan.attachments.append(record)
    elif isinstance(record, Metadata):
        scan.metadata.append(record)
    elif isinstance(record, Footer):
        scan.footer = True


def _scan(path: Path) -> _Scan:
    """Read ``path`` linearly; an unfinished file simply ends without a footer."""
    scan = _Scan()
    with path.open("rb") as stream:
        try:
            for record in StreamReader(stream, validate_crcs=True).records:
                _collect(scan, record)
        except EndOfFile:
            pass
    return scan


def _log_order(scan: _Scan) -> list[Message]:
    return sorted(
        scan.messages,
        key=lambda m: (m.log_time, scan.channels[m.channel_id].topic, m.sequence),
    )


def _topic_entry(scan: _Scan, channel: Channel, messages: list[Message]) -> Json:
    schema = scan.schemas.get(channel.schema_id)
    entry: Json = {
        "schema_name": schema.name if schema else None,
        "schema_encoding": schema.encoding if schema else None,
        "message_encoding": channel.message_encoding,
        "message_count": len(messages),
        "first_log_time": messages[0].log_time,
        "last_log_time": messages[-1].log_time,
        "first_publish_time": messages[0].publish_time,
        "last_publish_time": messages[-1].publish_time,
    }
    if channel.metadata:
        entry["channel_metadata"] = dict(channel.metadata)
    return entry


def _topics(scan: _Scan) -> Json:
    by_channel: dict[int, list[Message]] = {}
    for message in _log_order(scan):
        by_channel.setdefault(message.channel_id, []).append(message)
    entries = {
        scan.channels[channel_id].topic: _topic_entry(
            scan, scan.channels[channel_id], messages
        )
        for channel_id, messages in by_channel.items()
    }
    return dict(sorted(entries.items()))


def _summary(path: Path, scan: _Scan) -> Json:
    if not scan.footer:
        return {"present": False, "footer": False}
    with path.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    if summary is None:
        return {"present": False, "footer": True}
    stats = summary.statistics
    return {
        "present": True,
        "footer": True,
        "schemas": len(summary.schemas),
        "channels": len(summary.channels),
        "chunk_indexes": len(summary.chunk_indexes),
        "attachment_indexes": len(summary.attachment_indexes),
        "metadata_indexes": len(summary.metadata_indexes),
        "statistics": None
        if stats is None
        else {
            "message_count": stats.message_count,
            "chunk_count": stats.chunk_count,
            "attachment_count": stats.attachment_count,
            "metadata_count": stats.metadata_count,
            "message_start_time": stats.message_start_time,
            "message_end_time": stats.message_end_time,
        },
    }


def _message_key(topic: str, message: Message) -> tuple[str, int, int, int, bytes]:
    return topic, message.log_time, message.publish_time, message.sequence, message.data


def _seeking_reader(path: Path, scan: _Scan) -> Json:
    """Say what ``make_reader`` (the SeekingReader) returns, compared with the scan."""
    expected = sorted(
        _message_key(scan.channels[m.channel_id].topic, m) for m in scan.messages
    )
    result: Json = {}
    with path.open("rb") as stream:
        reader = make_reader(stream, validate_crcs=True)
        try:
            got = [_message_key(c.topic, m) for _, c, m in reader.iter_messages()]
            in_order = [key[1] for key in got] == sorted(key[1] for key in got)
            same = sorted(got) == expected
            result["messages"] = "ok" if same and in_order else "differs"
            result["attachments"] = len(list(reader.iter_attachments()))
            result["metadata"] = len(list(reader.iter_metadata()))
        except (McapError, KeyError) as error:
            result["error"] = f"{type(error).__name__}: {error}"
    return result


def _attachments(scan: _Scan) -> list[Json]:
    return [
        {
            "name": a.name,
            "media_type": a.media_type,
            "log_time": a.log_time,
            "create_time": a.create_time,
            "size_bytes": len(a.data),
            "sha256": _sha256(a.data),
        }
        for a in scan.attachments
    ]


def _file_entry(path: Path) -> tuple[Json, _Scan]:
    scan = _scan(path)
    data = path.read_bytes()
    entry: Json = {
        "size_bytes": len(data),
        "sha256": _sha256(data),
        "profile": scan.header.profile if scan.header else None,
        "library": scan.header.library if scan.header else None,
        "summary": _summary(path, scan),
        "topics": _topics(scan),
        "attachments": _attachments(scan),
        "metadata": [
            {"name": m.name, "metadata": dict(m.metadata)} for m in scan.metadata
        ],
        "upstream_seeking_reader": _seeking_reader(path, scan),
    }
    return entry, scan


def content_digest(scan: _Scan) -> str:
    """SHA-256 over (topic, 0, log_time u64 LE, len u64 LE, data) in log-time order."""
    digest = hashlib.sha256()
    for message in _log_order(scan):
        digest.update(scan.channels[message.channel_id].topic.encode("utf-8") + b"\0")
        digest.update(struct.pack("<QQ", message.log_time, len(message.data)))
        digest.update(message.data)
    return digest.hexdigest()


# -- decoded reference values ----------------------------------------------------------


class _JsonDecoderFactory(McapDecoderFactory):
    """Decode ``json`` messages with ``json.loads``, with or without a schema."""

    def decoder_for(
        self, message_encoding: str, schema: Schema | None
    ) -> Callable[[bytes], Any] | None:
        return json.loads if message_encoding == "json" else None


def _decoded(path: Path) -> list[DecodedMessageTuple]:
    factories = [ProtobufDecoderFactory(), Ros2DecoderFactory(), _JsonDecoderFactory()]
    with path.open("rb") as stream:
        reader = make_reader(stream, decoder_factories=factories)
        return list(reader.iter_decoded_messages(log_time_order=True))


def _number(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _floats(values: Iterable[Any]) -> list[Any]:
    return [_number(float(value)) for value in values]


def _stamp(decoded: Any) -> list[int]:
    if hasattr(decoded, "header"):
        return [decoded.header.stamp.sec, decoded.header.stamp.nanosec]
    return [decoded.timestamp.seconds, decoded.timestamp.nanos]


def _frame_id(decoded: Any) -> str:
    return str(
        decoded.header.frame_id if hasattr(decoded, "header") else decoded.frame_id
    )


def _common(item: DecodedMessageTuple) -> Json:
    return {
        "log_time": item.message.log_time,
        "stamp": _stamp(item.decoded_message),
        "frame_id": _frame_id(item.decoded_message),
    }


def pixel(
    data: bytes, encoding: str, step: int, at: tuple[int, int], *, big_endian: bool
) -> list[Any]:
    """Return the stored channel values of pixel ``at`` = (row, col) of a raw image."""
    channels, kind = PIXEL_LAYOUT[encoding]
    dtype = np.dtype((">" if big_endian else "<") + kind)
    offset = at[0] * step + at[1] * channels * dtype.itemsize
    values = np.frombuffer(data, dtype=dtype, count=channels, offset=offset)
    return [_number(value) for value in values.tolist()]


def _raw_image(item: DecodedMessageTuple) -> Json:
    decoded = item.decoded_message
    data = bytes(decoded.data)
    big_endian = bool(getattr(decoded, "is_bigendian", 0))
    last = (decoded.height - 1, decoded.width - 1)
    entry = _common(item) | {
        "width": decoded.width,
        "height": decoded.height,
        "encoding": decoded.encoding,
        "step": decoded.step,
    }
    if hasattr(decoded, "is_bigendian"):
        entry["is_bigendian"] = decoded.is_bigendian
    return entry | {
        "data_len": len(data),
        "data_sha256": _sha256(data),
        "px_first": pixel(
            data, decoded.encoding, decoded.step, (0, 0), big_endian=big_endian
        ),
        "px_last": pixel(
            data, decoded.encoding, decoded.step, last, big_endian=big_endian
        ),
    }


def _compressed_image(item: DecodedMessageTuple) -> Json:
    data = bytes(item.decoded_message.data)
    with Image.open(io.BytesIO(data)) as image:
        mode = image.mode
        rgb = np.asarray(image.convert("RGB"))
    return _common(item) | {
        "format": item.decoded_message.format,
        "data_len": len(data),
        "data_sha256": _sha256(data),
        "pillow": {
            "mode": mode,
            "width": int(rgb.shape[1]),
            "height": int(rgb.shape[0]),
            "px_0_0": [int(value) for value in rgb[0, 0]],
            "mean_rgb": [round(float(value), 3) for value in rgb.mean(axis=(0, 1))],
        },
    }


def _calibration(item: DecodedMessageTuple) -> Json:
    decoded = item.decoded_message
    ros = hasattr(decoded, "header")
    names = ("d", "k", "r", "p") if ros else ("D", "K", "R", "P")
    matrices = {
        key: _floats(getattr(decoded, name))
        for key, name in zip("DKRP", names, strict=True)
    }
    return (
        _common(item)
        | {
            "width": decoded.width,
            "height": decoded.height,
            "distortion_model": decoded.distortion_model,
        }
        | matrices
    )


def _vector(value: Any, axes: str) -> list[float]:
    return [float(getattr(value, axis)) for axis in axes]


def _transforms(item: DecodedMessageTuple) -> list[Json]:
    rows = []
    for transform in item.decoded_message.transforms:
        if hasattr(transform, "header"):
            parent, child, stamp = (
                transform.header.frame_id,
                transform.child_frame_id,
                _stamp(transform),
            )
            moved = transform.transform
        else:
            parent, child, stamp = (
                transform.parent_frame_id,
                transform.child_frame_id,
                _stamp(transform),
            )
            moved = transform
        rows.append(
            {
                "log_time": item.message.log_time,
                "stamp": stamp,
                "parent": parent,
                "child": child,
                "translation": _vector(moved.translation, "xyz"),
                "rotation": _vector(moved.rotation, "xyzw"),
            }
        )
    return rows


def _joint_state(item: DecodedMessageTuple) -> Json:
    decoded = item.decoded_message
    return _common(item) | {
        "name": list(decoded.name),
        "position": _floats(decoded.position),
        "velocity": _floats(decoded.velocity),
        "effort": _floats(decoded.effort),
    }


def _odometry_entry(item: DecodedMessageTuple) -> Json:
    decoded = item.decoded_message
    return _common(item) | {
        "child_frame_id": decoded.child_frame_id,
        "position": _vector(decoded.pose.pose.position, "xyz"),
        "orientation": _vector(decoded.pose.pose.orientation, "xyzw"),
        "pose_covariance": _floats(decoded.pose.covariance),
        "linear": _vector(decoded.twist.twist.linear, "xyz"),
        "angular": _vector(decoded.twist.twist.angular, "xyz"),
        "twist_covariance": _floats(decoded.twist.covariance),
    }


EVERY: Final = "every"
FIRST_LAST: Final = "first_last"
FIRST_3: Final = "first_3"
DECODED_KINDS: Final[
    dict[str, tuple[str, str, Callable[[DecodedMessageTuple], Any]]]
] = {
    "foxglove.RawImage": ("images", EVERY, _raw_image),
    "sensor_msgs/msg/Image": ("images", EVERY, _raw_image),
    "foxglove.CompressedImage": ("images", EVERY, _compressed_image),
    "sensor_msgs/msg/CompressedImage": ("images", EVERY, _compressed_image),
    "foxglove.CameraCalibration": ("calibrations", EVERY, _calibration),
    "sensor_msgs/msg/CameraInfo": ("calibrations", EVERY, _calibration),
    "foxglove.FrameTransforms": ("transforms", FIRST_3, _transforms),
    "tf2_msgs/msg/TFMessage": ("transforms", FIRST_3, _transforms),
    "sensor_msgs/msg/JointState": ("joint_states", FIRST_LAST, _joint_state),
    "nav_msgs/msg/Odometry": ("odometry", FIRST_LAST, _odometry_entry),
}
"""Schema name -> (group in expected.json, which messages, how to describe one)."""


def _kind(
    item: DecodedMessageTuple,
) -> tuple[str, str, Callable[[DecodedMessageTuple], Any]]:
    if item.channel.message_encoding == "json":
        return "json", FIRST_LAST, lambda entry: entry.decoded_message
    return DECODED_KINDS[item.schema.name if item.schema else ""]


def _pick(
    how: str,
    items: list[DecodedMessageTuple],
    describe: Callable[[DecodedMessageTuple], Any],
) -> Any:
    if how == FIRST_LAST:
        return {"first": describe(items[0]), "last": describe(items[-1])}
    if how == FIRST_3:
        return [row for item in items[:3] for row in describe(item)]
    return [describe(item) for item in items]


def decoded_references(path: Path) -> Json:
    """Describe the decoded messages of ``path``, grouped by kind and topic."""
    by_topic: dict[str, list[DecodedMessageTuple]] = {}
    for item in _decoded(path):
        by_topic.setdefault(item.channel.topic, []).append(item)
    groups: Json = {}
    for topic, items in sorted(by_topic.items()):
        group, how, describe = _kind(items[0])
        groups.setdefault(group, {})[topic] = _pick(how, items, describe)
    return dict(sorted(groups.items()))


# -- checks and expected.json ----------------------------------------------------------


def _check_layouts(scans: dict[str, _Scan], entries: dict[str, Json]) -> str:
    """Return the one content digest of all layout files; raise if any differs."""
    digests = {name: content_digest(scan) for name, scan in scans.items()}
    keys = {
        name: sorted(
            _message_key(scan.channels[m.channel_id].topic, m) for m in scan.messages
        )
        for name, scan in scans.items()
    }
    extras = {
        name: (entries[name]["attachments"], entries[name]["metadata"])
        for name in scans
    }
    reference = next(iter(scans))
    for name in scans:
        if digests[name] != digests[reference] or keys[name] != keys[reference]:
            raise SystemExit(f"layout content differs: {name} vs {reference}")
        if extras[name] != extras[reference]:
            raise SystemExit(
                f"layout attachments/metadata differ: {name} vs {reference}"
            )
        entries[name]["content_digest"] = digests[name]
    return digests[reference]


def _check_ros2_against_rosbags(path: Path) -> None:
    """Re-encode every CDR message with rosbags' own definitions: bytes must match."""
    typestore = get_typestore(Stores.ROS2_JAZZY)
    scan = _scan(path)
    for message in scan.messages:
        schema = scan.schemas[scan.channels[message.channel_id].schema_id]
        decoded = typestore.deserialize_cdr(message.data, schema.name)
        if bytes(typestore.serialize_cdr(decoded, schema.name)) != message.data:
            raise SystemExit(f"{path.name}: {schema.name} CDR differs from rosbags")


def _rosbag2_info(folder: Path) -> Json:
    info = yaml.safe_load((folder / "metadata.yaml").read_text(encoding="utf-8"))
    bag = info["rosbag2_bagfile_information"]
    with Rosbag2Reader(folder) as reader:
        counts = {c.topic: c.msgcount for c in reader.connections}
        if reader.message_count != bag["message_count"]:
            raise SystemExit("rosbags Reader disagrees with metadata.yaml")
    return {
        "version": bag["version"],
        "storage_identifier": bag["storage_identifier"],
        "relative_file_paths": bag["relative_file_paths"],
        "message_count": bag["message_count"],
        "starting_time_ns": bag["starting_time"]["nanoseconds_since_epoch"],
        "duration_ns": bag["duration"]["nanoseconds"],
        "ros_distro": bag.get("ros_distro"),
        "topics": {
            entry["topic_metadata"]["name"]: {
                "type": entry["topic_metadata"]["type"],
                "serialization_format": entry["topic_metadata"]["serialization_format"],
                "type_description_hash": entry["topic_metadata"][
                    "type_description_hash"
                ],
                "message_count": entry["message_count"],
                "rosbags_reader_count": counts[entry["topic_metadata"]["name"]],
            }
            for entry in bag["topics_with_message_count"]
        },
    }


def _versions() -> dict[str, str]:
    return {name: version(name) for name in VERSIONED} | {
        "python": platform.python_version()
    }


def build_expected(out: Path, layout_names: Sequence[str]) -> Json:
    """Read every written file back and return the contents of ``expected.json``."""
    bag_mcap = f"{ROSBAG2_DIR}/{ROSBAG2_DIR}.mcap"
    content = [FOXGLOVE_FILE, ROS2_FILE, SCHEMALESS_FILE, bag_mcap]
    files: Json = {}
    scans: dict[str, _Scan] = {}
    for name in [*content, *layout_names]:
        files[name], scans[name] = _file_entry(out / name)
    for name in content:
        files[name]["decoded"] = decoded_references(out / name)
    files[TIME_BASES_FILE], _ = _file_entry(out / TIME_BASES_FILE)
    files[TIME_BASES_FILE]["time_bases"] = time_bases_references(out / TIME_BASES_FILE)
    _check_ros2_against_rosbags(out / ROS2_FILE)
    _check_ros2_against_rosbags(out / TIME_BASES_FILE)
    layout_scans = {name: scans[name] for name in layout_names}
    digest = _check_layouts(layout_scans, files)
    return {
        "about": "Values read back with mcap.reader and the official decoders; "
        "see README.md here. Times are integer nanoseconds.",
        "generator": "tools/make_mcap_data.py",
        "versions": _versions(),
        "time_base_ns": T0_NS,
        "pixel_values": "stored channel order, one list per pixel; NaN is null",
        "digest_rule": "sha256 over messages in (log_time, topic) order of: topic "
        "UTF-8, 0x00, log_time u64 LE, len(data) u64 LE, data",
        "layout_content_digest": digest,
        "writer_cannot_produce": dict(NOT_PRODUCIBLE),
        "rosbag2": _rosbag2_info(out / ROSBAG2_DIR),
        "files": files,
    }


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, dict | list) or (
        isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    )


def dump_json(value: Any, depth: int = 0) -> str:
    """Format like ``json.dumps(indent=1)`` but keep lists of scalars on one line."""
    if _is_leaf(value):
        return json.dumps(value, allow_nan=False)
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(value, list):
        items = [inner + dump_json(item, depth + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]" if items else "[]"
    items = [
        f"{inner}{json.dumps(key)}: {dump_json(item, depth + 1)}"
        for key, item in value.items()
    ]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}" if items else "{}"


def main(argv: Sequence[str] | None = None) -> int:
    """Write every file, read them back, write ``expected.json``; print the sizes."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    write_foxglove(out / FOXGLOVE_FILE)
    write_ros2(out / ROS2_FILE)
    write_schemaless(out / SCHEMALESS_FILE)
    write_time_bases(out / TIME_BASES_FILE)
    layout_names = write_layouts(out)
    write_rosbag2(out / ROSBAG2_DIR)
    expected = build_expected(out, layout_names)
    text = dump_json(expected) + "\n"
    if json.loads(text) != expected:
        raise SystemExit("expected.json does not round-trip")
    (out / EXPECTED_FILE).write_text(text, encoding="utf-8")
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        print(f"{path.stat().st_size:>9}  {path.relative_to(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
