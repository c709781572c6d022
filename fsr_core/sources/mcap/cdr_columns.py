"""Read the numbers of many ROS 2 messages at once, from their CDR bytes.

``mcap-ros2-support`` decodes a ``sensor_msgs/msg/JointState`` in tens of
microseconds, so an hour of one at 100 Hz takes many seconds to plot. Yet the
messages of a topic are nearly always laid out alike. In CDR, where each field
lies follows from the message definition and from the lengths the message
writes (of its strings and sequences): two messages of the same size whose
length prefixes and strings are the same bytes hold their numbers at the same
offsets.

:class:`CdrColumns` walks one message by its definition (the library's own
parse of the ``ros2msg`` schema, and the library's alignment rule) to find
those offsets: a :class:`Layout`. A layout is trusted only once the library
has decoded that same message and its numeric leaves
(:func:`~fsr_core.sources.toolkit.numeric_leaves.numeric_leaves`) are the same
numbers in the same order; their paths name the columns. Every message of a
batch that matches a layout byte for byte where it must is then read with
numpy, a column at a time. The rest are left to the caller, to decode one by
one.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray, IndexArray
from fsr_core.sources.mcap.container import TopicInfo
from fsr_core.sources.toolkit.message_kinds import STAMP_FIELDS
from fsr_core.sources.toolkit.numeric_leaves import MAX_LIST, numeric_leaves

__all__ = ["CdrColumns", "Layout", "MatchedRows", "in_file_order"]

_SIZES: Final = {
    "bool": 1,
    "byte": 1,
    "char": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "float32": 4,
    "float64": 8,
}
_NUMPY_KINDS: Final = {
    "bool": "u1",
    "byte": "u1",
    "char": "i1",
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
    "int64": "i8",
    "uint64": "u8",
    "float32": "f4",
    "float64": "f8",
}
_BYTE_ARRAYS: Final = frozenset({"byte", "uint8"})
"""Element types whose arrays the library returns as ``bytes`` (no leaves)."""
_MAX_DEPTH: Final = 64
MAX_LAYOUTS: Final = 64
"""Layouts one topic may learn; messages past them are decoded one by one."""


class _UnfitError(Exception):
    """The message does not follow its definition as the walk reads it."""


@dataclass(frozen=True)
class Layout:
    """Where one shape of message keeps its numbers."""

    length: int
    fixed: tuple[tuple[int, int], ...]
    """Byte ranges that must equal the template's for a message to match."""
    template: bytes
    """The template message."""
    columns: tuple[str, ...]
    runs: tuple[tuple[np.dtype[Any], int, int, int, bool], ...]
    """``(dtype, byte offset, count, first column, is bool)``: numbers of one
    type that lie back to back and fill consecutive columns."""

    @functools.cached_property
    def _fixed_words(self) -> tuple[tuple[int, int, np.dtype[Any], int], ...]:
        """The fixed bytes as words: ``(start, stop, dtype, template's value)``.

        Each fixed range is cut into 8-byte words, then 4, 2 and 1 for its tail.
        """
        words = []
        for start, stop in self.fixed:
            at = start
            while at < stop:
                size = next(size for size in (8, 4, 2, 1) if stop - at >= size)
                value = int.from_bytes(self.template[at : at + size], "little")
                words.append((at, at + size, np.dtype(f"<u{size}"), value))
                at += size
        return tuple(words)

    def matching(self, rows: np.ndarray) -> np.ndarray:
        """Return which of ``rows`` (messages of ``length`` bytes) fit the layout."""
        fits = np.ones(rows.shape[0], dtype=bool)
        # A word of every row at a time: a comparison per byte, reduced along
        # each row, costs two to three times as much.
        for start, stop, dtype, value in self._fixed_words:
            fits &= rows[:, start:stop].view(dtype)[:, 0] == value
        return fits

    def values(self, rows: np.ndarray) -> FloatArray:
        """Return the numbers of ``rows``, shape ``(messages, columns)``.

        ``rows`` is C-contiguous. Non-finite numbers become NaN, booleans 0
        and 1, as :func:`~fsr_core.sources.toolkit.numeric_leaves.numeric_leaves`
        gives them.
        """
        rows = np.ascontiguousarray(rows)
        count = rows.shape[0]
        out: FloatArray = np.empty((count, len(self.columns)), dtype=np.float64)
        for dtype, offset, width, column, is_bool in self.runs:
            found = np.ndarray(
                (count, width),
                dtype=dtype,
                buffer=rows,
                offset=offset,
                strides=(self.length, dtype.itemsize),
            )
            out[:, column : column + width] = (found != 0) if is_bool else found
        out[~np.isfinite(out)] = np.nan
        return out


@dataclass(frozen=True)
class MatchedRows:
    """Messages of a batch read through one layout."""

    rows: IndexArray
    """Their positions in the batch."""
    columns: tuple[str, ...]
    values: FloatArray
    layout: Layout


class _Walk:
    """One message's bytes walked by its definition, as the library reads them."""

    def __init__(self, data: bytes, definitions: dict[str, Any]) -> None:
        if len(data) < 4:
            raise _UnfitError
        self.data = data
        self.definitions = definitions
        self.order: str = "little" if data[1] & 1 else "big"
        self.offset = 4
        self.fixed: list[tuple[int, int]] = [(0, 4)]
        self.leaves: list[tuple[int, str]] = []

    def _take(self, size: int) -> int:
        if size > 1:
            misalign = (self.offset - 4) % size
            if misalign:
                self.offset += size - misalign
        start = self.offset
        self.offset += size
        if self.offset > len(self.data):
            raise _UnfitError
        return start

    def _length(self) -> int:
        start = self._take(4)
        self.fixed.append((start, start + 4))
        return int.from_bytes(self.data[start : start + 4], self.order)  # type: ignore[arg-type]

    def _string(self) -> None:
        length = self._length()
        start = self.offset
        self.offset += length
        if self.offset > len(self.data):
            raise _UnfitError
        self.fixed.append((start, self.offset))

    def _primitives(self, name: str, count: int, leaves: bool) -> None:
        if name == "string":
            for _ in range(count):
                self._string()
            return
        size = _SIZES.get(name)
        if size is None:  # wstring: the library cannot read it either
            raise _UnfitError
        if count == 0:
            return
        start = self._take(size)
        self.offset = start + size * count
        if self.offset > len(self.data):
            raise _UnfitError
        if leaves:
            self.leaves.extend((start + size * i, name) for i in range(count))

    def _definition(self, kind: Any) -> Any:
        found = self.definitions.get(f"{kind.pkg_name}/{kind.type}")
        if found is None:
            raise _UnfitError
        return found

    def message(self, definition: Any, leaves: bool, depth: int) -> None:
        """Walk a message of ``definition``; ``leaves``: its numbers are columns."""
        if depth > _MAX_DEPTH:
            raise _UnfitError
        if not definition.fields:
            self._take(1)  # the byte ROS 2 adds to an empty structure
            return
        for field in definition.fields:
            self._field(field.type, leaves, depth)

    def _field(self, kind: Any, leaves: bool, depth: int) -> None:
        if not kind.is_array:
            if kind.is_primitive_type():
                self._primitives(kind.type, 1, leaves)
            else:
                nested = self._definition(kind)
                stamp = _is_stamp(nested)
                self.message(nested, leaves and not stamp, depth + 1)
            return
        if kind.is_fixed_size_array() and kind.array_size is not None:
            count = int(kind.array_size)
        else:
            count = self._length()
        if count > len(self.data):
            raise _UnfitError
        if kind.is_primitive_type() and kind.type in _BYTE_ARRAYS:
            self.offset += count  # read as bytes: no alignment, no leaves
            if self.offset > len(self.data):
                raise _UnfitError
            return
        listed = leaves and count <= MAX_LIST
        if kind.is_primitive_type():
            self._primitives(kind.type, count, listed)
            return
        nested = self._definition(kind)
        for _ in range(count):
            self.message(nested, listed, depth + 1)


def in_file_order(
    count: int, matched: list[MatchedRows]
) -> Iterator[tuple[int, int, MatchedRows | None, IndexArray]]:
    """Yield runs ``(begin, end, rows, picks)`` of a batch of ``count`` messages.

    Messages ``begin`` to ``end`` were read by one layout (``rows``, their
    values at ``rows.values[picks]``), or by none (``rows`` is ``None``: to
    decode one by one). Taking the runs in turn keeps the file's order.
    """
    owner = np.full(count, -1, dtype=np.int64)
    place = np.zeros(count, dtype=np.int64)
    for number, rows in enumerate(matched):
        owner[rows.rows] = number
        place[rows.rows] = np.arange(rows.rows.size)
    cuts = np.flatnonzero(np.diff(owner)).tolist()
    for begin, end in zip(
        [0, *(c + 1 for c in cuts)], [*(c + 1 for c in cuts), count], strict=True
    ):
        number = int(owner[begin])
        if number < 0:
            yield begin, end, None, place[begin:end]
        else:
            yield begin, end, matched[number], place[begin:end]


def _is_stamp(definition: Any) -> bool:
    names = {field.name for field in definition.fields}
    return any(names == set(pair) for pair in STAMP_FIELDS)


def _definitions(schema_name: str, schema_text: str) -> dict[str, Any]:
    """Parse a ``ros2msg`` schema with the library's own parser."""
    from mcap_ros2 import _dynamic

    found: dict[str, Any] = {
        "builtin_interfaces/Time": _dynamic.TimeDefinition,
        "builtin_interfaces/Duration": _dynamic.TimeDefinition,
    }

    def keep(name: str, short: str, definition: Any) -> None:
        found[name] = definition
        found[short] = definition

    _dynamic._for_each_msgdef(schema_name, schema_text, keep)
    return found


def _same(ours: FloatArray, theirs: list[float]) -> bool:
    if ours.size != len(theirs):
        return False
    return all(
        (math.isnan(a) and math.isnan(b)) or a == b
        for a, b in zip(ours.tolist(), theirs, strict=True)
    )


_ROOT_NAME: Final = re.compile(r"^[A-Za-z0-9_]+/(msg/)?[A-Za-z0-9_]+$")


class CdrColumns:
    """Learns a ROS 2 topic's layouts and reads batches of its messages by them."""

    def __init__(
        self, definitions: dict[str, Any], root: Any, decode: Callable[[bytes], Any]
    ) -> None:
        self._definitions = definitions
        self._root = root
        self._decode = decode
        self._layouts: dict[int, list[Layout]] = {}
        self._learned = 0
        self.enabled = True
        """``False`` once a message showed the walk does not match the library."""

    @classmethod
    def for_topic(
        cls, info: TopicInfo, decode: Callable[[bytes], Any]
    ) -> CdrColumns | None:
        """Return the reader of a CDR topic, or ``None`` when it has none."""
        if (
            info.message_encoding != "cdr"
            or info.schema_encoding != "ros2msg"
            or not _ROOT_NAME.match(info.schema_name)
        ):
            return None
        try:
            text = info.schema_data.decode("utf-8")
            definitions = _definitions(info.schema_name, text)
        except Exception:  # noqa: BLE001 - any refusal: decode one by one
            return None
        root = definitions.get(info.schema_name)
        if root is None:
            return None
        return cls(definitions, root, decode)

    def read(
        self, buffer: np.ndarray, starts: IndexArray, lengths: IndexArray
    ) -> tuple[list[MatchedRows], IndexArray]:
        """Read the messages ``buffer[starts[i] : starts[i] + lengths[i]]``.

        ``buffer`` is a one-dimensional ``uint8`` array. Returns what the
        layouts read, and the positions of the messages left to decode one by
        one.
        """
        done: list[MatchedRows] = []
        left: list[IndexArray] = []
        for length in np.unique(lengths).tolist():
            positions = np.flatnonzero(lengths == length)
            if length < 4 or length > buffer.size:
                left.append(positions)
                continue
            # Each message a row: a strided view, then whole rows copied at once.
            windows = np.lib.stride_tricks.as_strided(
                buffer, (buffer.size - length + 1, length), (1, 1), writeable=False
            )
            rows = windows[starts[positions]]
            rest = self._read_rows(int(length), rows, positions, done)
            if rest.size:
                left.append(rest)
        remaining = (
            np.sort(np.concatenate(left)) if left else np.zeros(0, dtype=np.int64)
        )
        return done, remaining

    def _read_rows(
        self,
        length: int,
        rows: np.ndarray,
        positions: IndexArray,
        done: list[MatchedRows],
    ) -> IndexArray:
        known = self._layouts.setdefault(length, [])
        open_rows = np.ones(rows.shape[0], dtype=bool)
        tried = 0
        while open_rows.any():
            if tried < len(known):
                layout: Layout | None = known[tried]
                tried += 1
            else:
                first = int(np.flatnonzero(open_rows)[0])
                layout = self._learn(rows[first])
                if layout is None:
                    break
                known.append(layout)
                tried = len(known)
            assert layout is not None
            fits = open_rows & layout.matching(rows)
            if fits.all():
                # The usual case: every message of this size fits the layout.
                done.append(
                    MatchedRows(positions, layout.columns, layout.values(rows), layout)
                )
                return positions[:0]
            if fits.any():
                picked = np.flatnonzero(fits)
                done.append(
                    MatchedRows(
                        positions[picked],
                        layout.columns,
                        layout.values(rows[picked]),
                        layout,
                    )
                )
                open_rows &= ~fits
        return positions[open_rows]

    def _learn(self, row: np.ndarray) -> Layout | None:
        """Return the layout of one message, checked against the library's decode."""
        if not self.enabled or self._learned >= MAX_LAYOUTS:
            return None
        self._learned += 1
        data = row.tobytes()
        try:
            walk = _Walk(data, self._definitions)
            walk.message(self._root, True, 0)
            leaves = numeric_leaves(self._decode(data))
        except Exception:  # noqa: BLE001 - unfit, or the library refuses it
            return None
        layout = _layout(walk, row, tuple(leaves))
        if layout is None or not _same(
            layout.values(row[None, :])[0], list(leaves.values())
        ):
            self.enabled = False  # the walk and the library disagree: trust neither
            return None
        return layout


def _layout(walk: _Walk, row: np.ndarray, columns: tuple[str, ...]) -> Layout | None:
    if len(walk.leaves) != len(columns):
        return None
    prefix = "<" if walk.order == "little" else ">"
    runs: list[list[Any]] = []
    for column, (offset, name) in enumerate(walk.leaves):
        size = _SIZES[name]
        last = runs[-1] if runs else None
        if last is not None and last[5] == name and last[1] + last[2] * size == offset:
            last[2] += 1
            continue
        runs.append(
            [
                np.dtype(prefix + _NUMPY_KINDS[name]),
                offset,
                1,
                column,
                name == "bool",
                name,
            ]
        )
    return Layout(
        length=row.size,
        fixed=_merged(walk.fixed),
        template=row.tobytes(),
        columns=columns,
        runs=tuple((r[0], r[1], r[2], r[3], r[4]) for r in runs),
    )


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Join byte ranges that touch or overlap, in order."""
    joined: list[tuple[int, int]] = []
    for start, stop in sorted(ranges):
        if stop <= start:
            continue
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], stop))
        else:
            joined.append((start, stop))
    return tuple(joined)
