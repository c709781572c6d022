"""The transforms of a ``tf2_msgs/TFMessage`` read straight from its fields.

:func:`~fsr_core.sources.toolkit.message_kinds.transforms_of` reads any
transform message from its plain tree; a bag's ``/tf`` carries hundreds of
messages a second, all opened at once for the scene, so ``TFMessage`` is
read here from the deserialised message itself, to the same transforms
(rotations made unit length) and the same refusals.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np

from fsr_core.errors import DecodeError
from fsr_core.sources.toolkit.message_kinds import Transform

__all__ = ["TF_MESSAGE", "message_stamp_ns", "tf_stamps_ns", "tf_transforms"]

TF_MESSAGE: Final = "tf2_msgs/msg/TFMessage"


def _finite(values: tuple[float, ...], what: str, names: str) -> None:
    for name, value in zip(names, values, strict=True):
        if not math.isfinite(value):
            raise DecodeError(f"{what}.{name} is not a finite number")


def message_stamp_ns(message: Any) -> int | None:
    """Return the ``header.stamp`` of a deserialised message in ns (``None``: none).

    A stamp of 0 (never set) or before 1970 is no stamp.
    """
    stamp = getattr(getattr(message, "header", None), "stamp", None)
    sec = getattr(stamp, "sec", None)
    nanosec = getattr(stamp, "nanosec", None)
    if not isinstance(sec, int | np.integer) or not isinstance(
        nanosec, int | np.integer
    ):
        return None
    found = int(sec) * 1_000_000_000 + int(nanosec)
    return found if found > 0 else None


def tf_transforms(message: Any) -> list[Transform]:
    """Return the transforms of a deserialised ``TFMessage``, in order.

    Raises
    ------
    DecodeError
        A transform names no child frame, holds a number that is not finite,
        or a zero rotation.
    """
    found = []
    for item in message.transforms:
        child = item.child_frame_id
        if not isinstance(child, str) or not child:
            raise DecodeError("a transform names no child frame")
        parent = item.header.frame_id
        moved, turned = item.transform.translation, item.transform.rotation
        translation = (float(moved.x), float(moved.y), float(moved.z))
        rotation = (float(turned.x), float(turned.y), float(turned.z), float(turned.w))
        _finite(translation, "translation", "xyz")
        _finite(rotation, "rotation", "xyzw")
        norm = math.sqrt(sum(x * x for x in rotation))
        if norm < 1e-9:
            raise DecodeError(f"the rotation of frame {child[:80]!r} is zero")
        unit = (rotation[0] / norm, rotation[1] / norm, rotation[2] / norm,
                rotation[3] / norm)  # fmt: skip
        found.append(Transform(str(parent), child, translation, unit))
    return found


def tf_stamps_ns(message: Any) -> list[int | None]:
    """Return the stamp of each transform of a ``TFMessage`` (``None``: unset)."""
    return [message_stamp_ns(item) for item in message.transforms]
