"""ROS 2 transform messages (``/tf``) read many at a time, by layout.

A ``tf2_msgs/msg/TFMessage`` at 100 Hz is 60,000 messages in ten minutes, and
the scene and the ``/tf:FRAME`` channels need every one at open. Decoded one
by one by the library that is seconds. Read by layout
(:class:`~fsr_core.sources.mcap.cdr_columns.CdrColumns`), each layout's frame
names come from its one decoded message (they are among the bytes every
message of the layout shares) and its numbers come from all messages at once.

The numbers are checked as :func:`~fsr_core.sources.toolkit.message_kinds.transforms_of`
checks them (finite, a rotation that is not zero) and the rotation is made a
unit quaternion the same way; a message that fails a check, and any message
no layout reads, goes through the one-by-one path, which says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray, IndexArray
from fsr_core.sources.mcap.cdr_columns import CdrColumns, Layout, in_file_order
from fsr_core.sources.toolkit.message_kinds import transforms_of

__all__ = ["LinkColumns", "Poses", "TransformBatches"]


@dataclass(frozen=True)
class LinkColumns:
    """Where one transform of a layout keeps its numbers."""

    parent: str
    child: str
    translation: IndexArray
    """Columns of x, y, z."""
    rotation: IndexArray
    """Columns of x, y, z, w."""


@dataclass(frozen=True)
class Poses:
    """One transform of a run of messages: its link and a pose a message."""

    link: LinkColumns
    translations: FloatArray
    rotations_xyzw: FloatArray
    """Unit quaternions."""

    def rows(self, part: slice) -> Poses:
        """Return the poses of messages ``part`` only."""
        return Poses(self.link, self.translations[part], self.rotations_xyzw[part])


class TransformBatches:
    """Reads batches of one ROS 2 transform topic's messages."""

    def __init__(self, columns: CdrColumns, decode: Callable[[bytes], Any]) -> None:
        self._columns = columns
        self._decode = decode
        self._links: dict[int, list[LinkColumns] | None] = {}

    def _links_of(self, layout: Layout) -> list[LinkColumns] | None:
        key = id(layout)
        if key not in self._links:
            self._links[key] = _links(layout, self._decode)
        return self._links[key]

    def read(
        self, blob: np.ndarray, starts: IndexArray, lengths: IndexArray
    ) -> list[tuple[IndexArray, list[Poses] | None]]:
        """Return a batch's messages as runs in file order.

        Each run is ``(messages, poses)``: the positions of some messages in
        the batch, and each transform they hold (one row a message), or
        ``None`` for messages to decode one by one.
        """
        matched, _ = self._columns.read(blob, starts, lengths)
        runs: list[tuple[IndexArray, list[Poses] | None]] = []
        for begin, end, rows, picks in in_file_order(int(starts.size), matched):
            messages = np.arange(begin, end, dtype=np.int64)
            links = None if rows is None else self._links_of(rows.layout)
            if rows is None or links is None:
                runs.append((messages, None))
                continue
            values = rows.values[picks]
            good = np.ones(messages.size, dtype=bool)
            poses = []
            for link in links:
                translation = values[:, link.translation]
                rotation = values[:, link.rotation]
                x, y, z, w = (rotation[:, i] for i in range(4))
                # Summed in the order transforms_of sums, so the norm is the same.
                norm = np.sqrt(x * x + y * y + z * z + w * w)
                good &= np.isfinite(translation).all(axis=1)
                good &= np.isfinite(rotation).all(axis=1) & (norm >= 1e-9)
                with np.errstate(divide="ignore", invalid="ignore"):
                    poses.append(Poses(link, translation, rotation / norm[:, None]))
            # Split where the checks change: a failing message is decoded alone.
            cuts = np.flatnonzero(np.diff(good)).tolist()
            for first, stop in zip(
                [0, *(c + 1 for c in cuts)],
                [*(c + 1 for c in cuts), good.size],
                strict=True,
            ):
                part = slice(first, stop)
                runs.append(
                    (
                        messages[part],
                        [pose.rows(part) for pose in poses] if good[first] else None,
                    )
                )
        return runs


def _links(layout: Layout, decode: Callable[[bytes], Any]) -> list[LinkColumns] | None:
    """Return where each transform of ``layout`` lies, from its one decoded message."""
    try:
        tree = decode(layout.template)
        stamped = transforms_of(tree)
    except Exception:  # noqa: BLE001 - any refusal: decode one by one
        return None
    listed = isinstance(tree, dict) and isinstance(tree.get("transforms"), list)
    places = {name: index for index, name in enumerate(layout.columns)}
    links = []
    for number, item in enumerate(stamped):
        prefix = f"transforms.{number}." if listed else ""
        inner = prefix + "transform."
        try:
            translation = [places[f"{inner}translation.{c}"] for c in "xyz"]
            rotation = [places[f"{inner}rotation.{c}"] for c in "xyzw"]
        except KeyError:
            return None
        links.append(
            LinkColumns(
                item.value.parent,
                item.value.child,
                np.asarray(translation, dtype=np.int64),
                np.asarray(rotation, dtype=np.int64),
            )
        )
    return links
