"""One channel's messages taken out of a chunk: their data back to back.

The record layout the readers of a chunk's messages share: a message
record's head (:data:`MESSAGE_HEAD`, the MCAP specification's fields before
the data) and rows of a buffer (:func:`windows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.arrays import IndexArray

__all__ = ["HEAD", "MESSAGE_HEAD", "ChunkMessages", "empty_messages", "windows"]

MESSAGE_HEAD: Final = np.dtype(
    [
        ("opcode", "u1"),
        ("length", "<u8"),
        ("channel", "<u2"),
        ("sequence", "<u4"),
        ("log_time", "<u8"),
        ("publish_time", "<u8"),
    ]
)
"""A message record before its data, in the MCAP specification's layout."""
HEAD: Final = MESSAGE_HEAD.itemsize


@dataclass(frozen=True)
class ChunkMessages:
    """Messages of one channel, their data back to back."""

    blob: np.ndarray
    """The messages' data (``uint8``)."""
    starts: IndexArray
    """Where each message starts in ``blob``, in file order."""
    lengths: IndexArray
    times_ns: IndexArray
    """Each message's log time."""
    indexed: bool
    """Found through message indexes (``False``: records were walked)."""

    @property
    def count(self) -> int:
        """Messages held."""
        return int(self.starts.size)

    def data(self, position: int) -> bytes:
        """Return the bytes of message ``position``."""
        start = int(self.starts[position])
        return self.blob[start : start + int(self.lengths[position])].tobytes()


def windows(buffer: np.ndarray, width: int) -> np.ndarray:
    """Return every ``width`` bytes of ``buffer`` as a row (a view, not a copy)."""
    return np.ndarray(
        (buffer.size - width + 1, width), dtype=np.uint8, buffer=buffer, strides=(1, 1)
    )


def empty_messages(indexed: bool) -> ChunkMessages:
    """Return no messages."""
    none = np.zeros(0, dtype=np.int64)
    return ChunkMessages(np.zeros(0, dtype=np.uint8), none, none, none, indexed)
