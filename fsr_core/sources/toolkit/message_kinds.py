"""The message types the viewer understands, and what each one gives.

Foxglove schemas and ROS 2 messages that mean the same thing are read by the
same code: the table :data:`KINDS` maps each schema name to what it is, and the
functions below read the fields of a decoded message (a plain tree) whatever
its encoding spelled them (``header.stamp`` or ``timestamp``; ``sec``/``nsec``,
``sec``/``nanosec`` or ``seconds``/``nanos``; ``K`` or ``k``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from fsr_core.calibration import (
    DISTORTION_LENGTHS,
    CalibrationProfile,
    distortion_model_for,
)
from fsr_core.errors import CalibrationError, DecodeError

__all__ = [
    "DESCRIPTION_SCHEMAS",
    "KINDS",
    "STAMP_FIELDS",
    "Stamped",
    "TopicKind",
    "Transform",
    "calibration_of",
    "frame_id_of",
    "is_robot_description",
    "is_stamp",
    "stamp_ns",
    "transforms_of",
]


class TopicKind(StrEnum):
    """What a topic's messages are to the viewer."""

    COMPRESSED_IMAGE = "compressed image"
    RAW_IMAGE = "raw image"
    CALIBRATION = "camera calibration"
    TRANSFORMS = "transforms"
    ROBOT_DESCRIPTION = "robot description"
    NUMERIC = "numeric"


KINDS: Final[dict[str, TopicKind]] = {
    "foxglove.CompressedImage": TopicKind.COMPRESSED_IMAGE,
    "sensor_msgs/msg/CompressedImage": TopicKind.COMPRESSED_IMAGE,
    "sensor_msgs/CompressedImage": TopicKind.COMPRESSED_IMAGE,
    "foxglove.RawImage": TopicKind.RAW_IMAGE,
    "sensor_msgs/msg/Image": TopicKind.RAW_IMAGE,
    "sensor_msgs/Image": TopicKind.RAW_IMAGE,
    "foxglove.CameraCalibration": TopicKind.CALIBRATION,
    "sensor_msgs/msg/CameraInfo": TopicKind.CALIBRATION,
    "sensor_msgs/CameraInfo": TopicKind.CALIBRATION,
    "foxglove.FrameTransform": TopicKind.TRANSFORMS,
    "foxglove.FrameTransforms": TopicKind.TRANSFORMS,
    "tf2_msgs/msg/TFMessage": TopicKind.TRANSFORMS,
    "tf2_msgs/TFMessage": TopicKind.TRANSFORMS,
}
"""Schema name to kind; any other schema is read for its numeric fields."""

DESCRIPTION_SCHEMAS: Final = frozenset(
    {"std_msgs/msg/String", "std_msgs/String", "std_msgs.String", "std_msgs.msg.String"}
)
"""The schemas of a robot description topic (``std_msgs/String``, by encoding)."""
DESCRIPTION_TOPIC_END: Final = "robot_description"
"""How the name of a robot description topic ends (``/robot_description``)."""


def is_robot_description(topic: str, schema_name: str) -> bool:
    """Whether a topic holds a robot description: ``.../robot_description`` text."""
    return topic.endswith(DESCRIPTION_TOPIC_END) and schema_name in DESCRIPTION_SCHEMAS


STAMP_FIELDS: Final = (("sec", "nanosec"), ("sec", "nsec"), ("seconds", "nanos"))
"""Field pairs of a time stamp: a structure of exactly one pair is a stamp."""


def is_stamp(value: object) -> bool:
    """Whether ``value`` is a time stamp (seconds and nanoseconds, nothing else)."""
    return isinstance(value, dict) and any(
        set(value) == set(pair) for pair in STAMP_FIELDS
    )


def _stamp_value(value: object) -> int | None:
    if not isinstance(value, dict):
        return None
    for seconds, nanos in STAMP_FIELDS:
        if seconds in value and nanos in value:
            sec, nsec = value[seconds], value[nanos]
            if isinstance(sec, int) and isinstance(nsec, int):
                return sec * 1_000_000_000 + nsec
    return None


def stamp_ns(tree: object) -> int | None:
    """Return a message's own time stamp in nanoseconds (header or timestamp)."""
    if not isinstance(tree, dict):
        return None
    header = tree.get("header")
    if isinstance(header, dict):
        found = _stamp_value(header.get("stamp"))
        if found is not None:
            return found
    return _stamp_value(tree.get("timestamp"))


def frame_id_of(tree: object) -> str:
    """Return a message's coordinate frame name (``""`` when it has none)."""
    if not isinstance(tree, dict):
        return ""
    header = tree.get("header")
    if isinstance(header, dict) and isinstance(header.get("frame_id"), str):
        return str(header["frame_id"])
    frame = tree.get("frame_id")
    return frame if isinstance(frame, str) else ""


def _field(tree: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in tree:
            return tree[name]
    raise DecodeError(f"the message has no {names[0]!r} field")


def _numbers(value: object, count: int | None, what: str) -> list[float]:
    if not isinstance(value, list | tuple) or (
        count is not None and len(value) != count
    ):
        raise CalibrationError(
            f"{what}: expected {count if count is not None else 'a list of'} numbers"
        )
    numbers = [float(item) for item in value if isinstance(item, int | float)]
    if len(numbers) != len(value) or not all(math.isfinite(x) for x in numbers):
        raise CalibrationError(f"{what}: expected finite numbers")
    return numbers


def calibration_of(tree: object) -> CalibrationProfile:
    """Return the intrinsics of a ``CameraCalibration`` or ``CameraInfo`` message.

    Raises
    ------
    CalibrationError
        A matrix or the distortion is missing, malformed or not finite, or
        the distortion model is one the viewer cannot project through.
    """
    if not isinstance(tree, dict):
        raise CalibrationError("the calibration message is not a structure")
    try:
        k = _numbers(_field(tree, "K", "k"), 9, "K")
        coefficients = _numbers(_field(tree, "D", "d"), None, "D")
        model_name = _field(tree, "distortion_model")
        width, height = _field(tree, "width"), _field(tree, "height")
    except DecodeError as exc:
        raise CalibrationError(str(exc)) from None
    model_text = model_name if isinstance(model_name, str) else ""
    model = distortion_model_for(model_text) if model_text else "none"
    if model is None:
        raise CalibrationError(
            f"distortion model {model_text[:40]!r} is not one the viewer projects "
            "through (plumb_bob, rational_polynomial, equidistant/kannala_brandt)"
        )
    if model != "none" and not any(coefficients):
        model, coefficients = "none", []
    wanted = DISTORTION_LENGTHS.get(model)
    if wanted is not None and len(coefficients) != wanted:
        if model == "plumb_bob" and len(coefficients) == 8:
            model = "rational_polynomial"
        elif len(coefficients) < wanted:
            coefficients = [*coefficients, *[0.0] * (wanted - len(coefficients))]
        elif not any(coefficients[wanted:]):
            coefficients = coefficients[:wanted]
    return CalibrationProfile(
        width=width,
        height=height,
        fx=k[0],
        fy=k[4],
        cx=k[2],
        cy=k[5],
        skew=k[1],
        distortion_model=model,
        distortion=tuple(coefficients),
    )


@dataclass(frozen=True)
class Transform:
    """One parent-to-child transform: the child's pose in the parent frame."""

    parent: str
    child: str
    translation: tuple[float, float, float]
    rotation_xyzw: tuple[float, float, float, float]


@dataclass(frozen=True)
class Stamped:
    """A value with the message's own stamp (``None``: the message had none)."""

    stamp_ns: int | None
    value: Any


def _vector(tree: object, names: str, what: str) -> tuple[float, ...]:
    if not isinstance(tree, dict):
        raise DecodeError(f"{what} is not a structure")
    values = []
    for name in names:
        item = tree.get(name, 0.0 if name != "w" else 1.0)
        if not isinstance(item, int | float) or not math.isfinite(item):
            raise DecodeError(f"{what}.{name} is not a finite number")
        values.append(float(item))
    return tuple(values)


def _one_transform(tree: dict[str, Any]) -> Transform:
    if "transform" in tree:  # geometry_msgs/TransformStamped
        inner = tree["transform"]
        parent = frame_id_of(tree)
        child = tree.get("child_frame_id", "")
    else:  # foxglove.FrameTransform
        inner = tree
        parent = tree.get("parent_frame_id", "")
        child = tree.get("child_frame_id", "")
    if not isinstance(inner, dict):
        raise DecodeError("a transform is not a structure")
    if not isinstance(parent, str) or not isinstance(child, str) or not child:
        raise DecodeError("a transform names no child frame")
    translation = _vector(inner.get("translation"), "xyz", "translation")
    rotation = _vector(inner.get("rotation"), "xyzw", "rotation")
    norm = math.sqrt(sum(x * x for x in rotation))
    if norm < 1e-9:
        raise DecodeError(f"the rotation of frame {child[:80]!r} is zero")
    unit = tuple(x / norm for x in rotation)
    return Transform(parent, child, translation, unit)  # type: ignore[arg-type]


def transforms_of(tree: object) -> list[Stamped]:
    """Return the transforms a TF or frame-transform message holds."""
    if not isinstance(tree, dict):
        raise DecodeError("the transform message is not a structure")
    items = tree.get("transforms")
    listed = items if isinstance(items, list) else [tree]
    found = []
    for item in listed:
        if not isinstance(item, dict):
            raise DecodeError("a transform is not a structure")
        found.append(Stamped(stamp_ns(item), _one_transform(item)))
    return found
