"""A message deserialised by ``rosbags`` as a plain tree of dicts and lists.

The toolkit's readers (numeric leaves, calibrations, transforms, images)
take the plain values a decoder gives: dicts by field name, lists, numbers,
strings and bytes. ``rosbags`` gives dataclasses whose arrays of numbers are
numpy arrays: byte arrays become ``bytes`` (image data), short arrays of
other numbers lists, and longer ones stay arrays, which no numeric walk
reads (point clouds, blobs).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import numpy as np

from fsr_core.errors import DecodeError
from fsr_core.sources.toolkit.numeric_leaves import MAX_LIST

__all__ = ["plain_tree"]

_MAX_DEPTH: Final = 64
_SKIPPED_FIELDS: Final = frozenset({"__msgtype__"})


def plain_tree(message: Any, depth: int = 0) -> Any:
    """Return ``message`` as dicts, lists, numbers, strings and bytes.

    Raises
    ------
    DecodeError
        The message nests deeper than 64 levels.
    """
    if depth > _MAX_DEPTH:
        raise DecodeError(f"message nests deeper than {_MAX_DEPTH} levels")
    if isinstance(message, np.ndarray):
        if message.dtype == np.uint8 or message.dtype == np.int8:
            return message.tobytes()
        if message.ndim == 1 and message.size <= MAX_LIST:
            return message.tolist()
        return message
    if dataclasses.is_dataclass(message) and not isinstance(message, type):
        return {
            field.name: plain_tree(getattr(message, field.name), depth + 1)
            for field in dataclasses.fields(message)
            if field.name not in _SKIPPED_FIELDS
        }
    if isinstance(message, list | tuple):
        return [plain_tree(item, depth + 1) for item in message]
    if isinstance(message, np.generic):
        return message.item()
    return message
