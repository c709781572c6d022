"""One MCAP channel as the model reads it, and what reading it gathered.

A :class:`Topic` pairs the file's channel (:class:`TopicInfo`) with what the
viewer makes of it (:class:`TopicKind`) and its decoder, and holds what was
read of it while the file opened: message times, numeric values, where each
image lies, calibrations, the frame of its camera and the messages that did
not decode. A topic read later, when it is first shown (a numeric topic's values, a
camera's frame times), keeps only the span of its times, the blocks that hold
it and, for a numeric topic, the columns of its first message here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from fsr_core.calibration import CalibrationProfile
from fsr_core.sources.mcap.container import Block, TopicInfo
from fsr_core.sources.mcap.decoding import Decoder
from fsr_core.sources.toolkit.message_kinds import (
    KINDS,
    TopicKind,
    is_robot_description,
)
from fsr_core.sources.toolkit.numeric_leaves import NumericTable

__all__ = ["IMAGE_KINDS", "ImageRefs", "Topic", "kind_of"]

IMAGE_KINDS = (TopicKind.COMPRESSED_IMAGE, TopicKind.RAW_IMAGE)


def kind_of(info: TopicInfo) -> TopicKind:
    """Return what a channel's schema makes of it (any unknown schema: numeric).

    A ``std_msgs/String`` topic named ``.../robot_description`` is a robot
    description (:mod:`fsr_core.sources.mcap.robot_description`).
    """
    if is_robot_description(info.topic, info.schema_name):
        return TopicKind.ROBOT_DESCRIPTION
    return KINDS.get(info.schema_name, TopicKind.NUMERIC)


@dataclass(frozen=True)
class ImageRefs:
    """Where each image of a camera topic lies: block number and ordinal in it.

    The ordinal counts the topic's messages in the block, in file order.
    Times are the messages' times; the three arrays run in time order.
    """

    times_ns: np.ndarray
    blocks: np.ndarray
    ordinals: np.ndarray

    @classmethod
    def in_time_order(
        cls, times_ns: np.ndarray, blocks: np.ndarray, ordinals: np.ndarray
    ) -> ImageRefs:
        """Return the references sorted by time (ties keep file order)."""
        order = np.argsort(times_ns, kind="stable")
        return cls(times_ns[order], blocks[order], ordinals[order])


@dataclass
class Topic:
    """One channel of the file, and what was read of it."""

    info: TopicInfo
    kind: TopicKind
    decoder: Decoder
    times_ns: list[int] = field(default_factory=list)
    table: NumericTable | None = None
    refs: list[tuple[int, int]] = field(default_factory=list)
    """Images (or robot descriptions) read at open: ``(block number, ordinal)``
    of each, in file order."""
    calibrations: list[tuple[int, CalibrationProfile, str]] = field(
        default_factory=list
    )
    frame_id: str = ""
    failures: int = 0
    first_failure: str = ""
    at_log_time: int = 0
    """With header stamps: the messages placed at their log time for want of one."""
    first_columns: tuple[str, ...] | None = None
    """A numeric topic read when first shown: the columns of its first message."""
    span_ns: tuple[int, int] | None = None
    """First and last log time, from the message indexes (when not read)."""
    held_in: list[tuple[int, Block]] = field(default_factory=list)
    """A topic read when first shown (numeric values, camera frame times): the
    blocks that hold it, with their numbers."""

    def fail(self, problem: str) -> None:
        """Count a message that did not decode, keeping the first problem."""
        self.failures += 1
        if not self.first_failure:
            self.first_failure = problem

    @property
    def first_ns(self) -> int | None:
        """The earliest time read or indexed (``None``: none)."""
        return self._time_bound(min, 0)

    @property
    def last_ns(self) -> int | None:
        """The latest time read or indexed (``None``: none)."""
        return self._time_bound(max, 1)

    def _time_bound(
        self, pick: Callable[[Iterable[int]], int], side: int
    ) -> int | None:
        """Return ``pick`` of the times read and the indexed span's end ``side``."""
        found = [pick(self.times_ns)] if self.times_ns else []
        if self.span_ns is not None:
            found.append(self.span_ns[side])
        return pick(found) if found else None

    @property
    def image_refs(self) -> ImageRefs | None:
        """The images of a camera topic read at open, in time order (``None``: none)."""
        if not self.refs:
            return None
        pairs = np.asarray(self.refs, dtype=np.int64).reshape(-1, 2)
        return ImageRefs.in_time_order(
            np.asarray(self.times_ns, dtype=np.int64), pairs[:, 0], pairs[:, 1]
        )
