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


_SCALARS: Final = frozenset({int, float, str, bool, bytes, type(None)})
_FIELDS: dict[type, tuple[str, ...] | None] = {}
"""Field names by message class (``None``: not a message), found once per class."""


def _fields_of(kind: type) -> tuple[str, ...] | None:
    names = _FIELDS.get(kind, ())
    if names == ():
        names = (
            tuple(
                field.name
                for field in dataclasses.fields(kind)
                if field.name not in _SKIPPED_FIELDS
            )
            if dataclasses.is_dataclass(kind)
            else None
        )
        _FIELDS[kind] = names
    return names


def plain_tree(message: Any, depth: int = 0) -> Any:
    """Return ``message`` as dicts, lists, numbers, strings and bytes.

    Raises
    ------
    DecodeError
        The message nests deeper than 64 levels.
    """
    kind = type(message)
    if kind in _SCALARS:
        return message
    if depth > _MAX_DEPTH:
        raise DecodeError(f"message nests deeper than {_MAX_DEPTH} levels")
    if kind is np.ndarray:
        if message.dtype == np.uint8 or message.dtype == np.int8:
            return message.tobytes()
        if message.ndim == 1 and message.size <= MAX_LIST:
            return message.tolist()
        return message
    names = _fields_of(kind)
    if names is not None:
        return {name: plain_tree(getattr(message, name), depth + 1) for name in names}
    if isinstance(message, list | tuple):
        return [plain_tree(item, depth + 1) for item in message]
    if isinstance(message, np.generic):
        return message.item()
    return message
