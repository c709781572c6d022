"""A bag's messages read into what the model is built from.

Messages come in time order from the ``rosbags`` reader, at their recorded
(log) time. Each is sorted by its type (:data:`~fsr_core.sources.toolkit.
message_kinds.KINDS`): transforms go to the transform tree (``/tf_static``
holds for all time), calibrations to their topic's samples, images are only
timed (a frame is deserialised when shown), ``/robot_description`` is kept
as text, and every other message's numeric leaves go to its topic's table.
A lazy open reads only the transforms, calibrations and robot description
whole, and the first message of every other topic (:func:`topic_table`
reads a topic when its channel is shown). A message that does not
deserialise is counted against its topic; a topic whose definition does not
parse is listed with the reason and not read. A read that fails part way (a
damaged chunk) keeps what came before it, and says where it stopped.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from fsr_core.calibration import CalibrationProfile
from fsr_core.errors import CalibrationError, DecodeError, FsrError, LimitExceededError
from fsr_core.sources.rosbag.bag_files import OpenBag
from fsr_core.sources.rosbag.leaf_plans import LeafPlan, plan_for
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.rosbag.tf_messages import TF_MESSAGE, tf_transforms
from fsr_core.sources.toolkit.message_kinds import (
    KINDS,
    TopicKind,
    calibration_of,
    frame_id_of,
    transforms_of,
)
from fsr_core.sources.toolkit.numeric_leaves import NumericTable
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["IMAGE_KINDS", "BagContents", "TopicFacts", "read_bag", "topic_table"]

IMAGE_KINDS: Final = frozenset({TopicKind.COMPRESSED_IMAGE, TopicKind.RAW_IMAGE})
ROBOT_DESCRIPTION_TOPIC: Final = "/robot_description"
_STATIC_TF: Final = "/tf_static"
_STRING_TYPES: Final = frozenset({"std_msgs/msg/String"})
_ROWS_AT_ONCE: Final = 4096


@dataclass
class TopicFacts:
    """What was read of one topic."""

    name: str
    msgtype: str
    kind: TopicKind
    messages: int = 0
    undecodable: int = 0
    first_problem: str = ""
    first_ns: int | None = None
    last_ns: int | None = None
    frame_id: str = ""
    table: NumericTable | None = None
    image_times_ns: list[int] = field(default_factory=list)
    lazy: bool = False
    """Only the first message was read: the rest is read when shown."""
    first_columns: tuple[str, ...] = ()
    """The numeric columns of the first message (of a lazy numeric topic)."""
    plan: LeafPlan | None = None
    """How this topic's numeric leaves are read (:mod:`leaf_plans`)."""
    planned: bool = False
    pending: tuple[list[int], list[list[float]]] = field(
        default_factory=lambda: ([], [])
    )
    """Rows read by the plan, not yet in the table: times and values."""

    def flush(self) -> None:
        """Move the rows the plan read into the table."""
        times, rows = self.pending
        if not times or self.table is None or self.plan is None:
            return
        values = np.asarray(rows, dtype=np.float64).reshape(len(times), -1)
        values[~np.isfinite(values)] = np.nan
        self.table.add_rows(np.asarray(times, dtype=np.int64), self.plan.names, values)
        times.clear()
        rows.clear()

    def problem(self, reason: str) -> None:
        """Count one message that could not be read, keeping the first reason."""
        self.undecodable += 1
        if not self.first_problem:
            self.first_problem = reason[:200]


@dataclass
class BagContents:
    """What one pass over a bag's messages found."""

    topics: dict[str, TopicFacts] = field(default_factory=dict)
    tree: TransformTree = field(default_factory=TransformTree)
    calibrations: dict[str, list[tuple[int, CalibrationProfile, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    robot_description: str | None = None
    unreadable: dict[str, str] = field(default_factory=dict)
    """Reason by topic that was not read (its definition does not parse)."""
    stopped: tuple[int | None, str] | None = None
    """Where reading stopped early: the last time read (ns) and why."""
    messages: int = 0
    span_ns: tuple[int, int] | None = None
    """The bag's first and last message times, as its reader says (when some
    topics are left to be read when shown)."""

    @property
    def origin_ns(self) -> int:
        """Time of the first message (ns), 0 when there is none."""
        starts = [t.first_ns for t in self.topics.values() if t.first_ns is not None]
        if self.span_ns is not None:
            starts.append(self.span_ns[0])
        return min(starts, default=0)

    @property
    def end_ns(self) -> int:
        """Time of the last message (ns), 0 when there is none."""
        ends = [t.last_ns for t in self.topics.values() if t.last_ns is not None]
        if self.span_ns is not None:
            ends.append(self.span_ns[1])
        return max(ends, default=0)


def _kind_of(msgtype: str) -> TopicKind:
    return KINDS.get(msgtype, TopicKind.NUMERIC)


class _Reader:
    def __init__(self, bag: OpenBag, contents: BagContents) -> None:
        self.bag = bag
        self.contents = contents

    def facts(self, connection: Any) -> TopicFacts:
        facts = self.contents.topics.get(connection.topic)
        if facts is None:
            kind = _kind_of(connection.msgtype)
            facts = TopicFacts(connection.topic, connection.msgtype, kind)
            if kind is TopicKind.NUMERIC:
                facts.table = NumericTable(connection.topic)
            self.contents.topics[connection.topic] = facts
        return facts

    def one(self, connection: Any, time_ns: int, raw: bytes) -> None:
        facts = self.facts(connection)
        facts.messages += 1
        if facts.first_ns is None:
            facts.first_ns = time_ns
        facts.last_ns = time_ns
        if facts.kind in IMAGE_KINDS:
            facts.image_times_ns.append(time_ns)
            if facts.messages > 1:
                return
        try:
            self.read(facts, connection.msgtype, time_ns, raw)
        except LimitExceededError:
            raise
        except (FsrError, ValueError, TypeError, KeyError, IndexError) as exc:
            facts.problem(str(exc) or type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 - rosbags' SerdeError and kin
            facts.problem(f"does not deserialise: {exc}")

    def read(self, facts: TopicFacts, msgtype: str, time_ns: int, raw: bytes) -> None:
        """Deserialise one message and put it where its kind goes."""
        message = self.bag.types.deserialize(raw, msgtype)
        if self.planned(facts, time_ns, message):
            return
        if msgtype == TF_MESSAGE:
            static = facts.name == _STATIC_TF
            for transform in tf_transforms(message):
                self.contents.tree.add(time_ns, transform, static=static)
            return
        self.place(facts, time_ns, plain_tree(message))
        if not facts.planned and facts.table is not None:
            facts.planned = True
            if facts.name != ROBOT_DESCRIPTION_TOPIC:
                facts.plan = plan_for(message)

    @staticmethod
    def planned(facts: TopicFacts, time_ns: int, message: Any) -> bool:
        """Read ``message`` by its topic's plan; ``False``: it must be walked."""
        if facts.plan is None:
            return False
        values = facts.plan.values(message)
        if values is None:
            facts.flush()  # rows stay in reading order
            return False
        times, rows = facts.pending
        times.append(time_ns)
        rows.append(values)
        if len(times) >= _ROWS_AT_ONCE:
            facts.flush()
        return True

    def finish(self) -> None:
        """Move every topic's planned rows into its table."""
        for facts in self.contents.topics.values():
            facts.flush()

    def place(self, facts: TopicFacts, time_ns: int, tree: Any) -> None:
        kind = facts.kind
        if kind in IMAGE_KINDS:
            facts.frame_id = frame_id_of(tree)
        elif kind is TopicKind.TRANSFORMS:
            static = facts.name == _STATIC_TF
            for stamped in transforms_of(tree):
                self.contents.tree.add(time_ns, stamped.value, static=static)
        elif kind is TopicKind.CALIBRATION:
            try:
                profile = calibration_of(tree)
            except CalibrationError as exc:
                raise DecodeError(f"calibration unreadable: {exc}") from None
            self.contents.calibrations[facts.name].append(
                (time_ns, profile, frame_id_of(tree))
            )
        elif facts.name == ROBOT_DESCRIPTION_TOPIC and facts.msgtype in _STRING_TYPES:
            text = tree.get("data") if isinstance(tree, dict) else None
            if isinstance(text, str) and text.strip():
                self.contents.robot_description = text
        elif facts.table is not None:
            facts.table.add(time_ns, tree)
            if facts.lazy and not facts.first_columns:
                facts.first_columns = facts.table.columns


def _read_at_open(connection: Any) -> bool:
    """Whether a topic is read whole at open (what the scene and cameras need)."""
    kind = _kind_of(connection.msgtype)
    return kind in (TopicKind.TRANSFORMS, TopicKind.CALIBRATION) or (
        connection.topic == ROBOT_DESCRIPTION_TOPIC
    )


def _first_messages(bag: OpenBag, reader: _Reader, connections: list[Any]) -> None:
    """Read the first message of each lazy topic; count the rest from the index."""
    for connection in connections:
        facts = reader.facts(connection)
        facts.lazy = True
        first = next(bag.messages([connection]), None)
        if first is None:
            continue
        _, time_ns, raw = first
        reader.one(connection, time_ns, raw)
        facts.messages += max(int(connection.msgcount) - 1, 0)
        facts.last_ns = None
        if facts.kind in IMAGE_KINDS:
            facts.image_times_ns.clear()


def read_bag(bag: OpenBag, *, everything: bool = True) -> BagContents:
    """Read every message of ``bag`` once.

    Without ``everything``, only the topics the scene and the cameras need at
    once (transforms, calibrations, the robot description) are read whole;
    every other topic gives its first message (its columns, its frame) and
    is read when shown.

    Raises
    ------
    LimitExceededError
        A topic's values grow past the memory budget.
    """
    contents = BagContents()
    readable = []
    for connection in bag.connections:
        reason = bag.types.unreadable.get(connection.msgtype)
        if reason is None:
            readable.append(connection)
        else:
            contents.unreadable[connection.topic] = f"{connection.msgtype}: {reason}"
    reader = _Reader(bag, contents)
    later: list[Any] = []
    if not everything:
        later = [c for c in readable if not _read_at_open(c)]
        readable = [c for c in readable if _read_at_open(c)]
        start, end = bag.reader.start_time, bag.reader.end_time - 1
        if end >= start:
            contents.span_ns = (start, end)
    _read_messages(bag, reader, readable, later)
    if not everything:
        contents.messages = sum(t.messages for t in contents.topics.values())
    return contents


def _read_messages(
    bag: OpenBag, reader: _Reader, readable: list[Any], later: list[Any]
) -> None:
    """Read ``readable`` whole and the first message of ``later``; note a stop."""
    contents = reader.contents
    last_ns: int | None = None
    try:
        _first_messages(bag, reader, later)
        for connection, time_ns, raw in bag.messages(readable) if readable else ():
            reader.one(connection, time_ns, raw)
            contents.messages += 1
            last_ns = time_ns
    except LimitExceededError:
        raise
    except FsrError as exc:
        contents.stopped = (last_ns, exc.reason)
    except Exception as exc:  # noqa: BLE001 - rosbags, apsw, lz4 raise many kinds
        text = str(exc).strip().splitlines()
        contents.stopped = (last_ns, (text[0] if text else type(exc).__name__)[:200])
    reader.finish()  # what was read before any stop is kept


def topic_table(bag: OpenBag, topic: str) -> NumericTable:
    """Read the numeric leaves of every message of ``topic`` (a lazy channel's).

    A message that does not deserialise is left out; the first reason is a
    note of the table.

    Raises
    ------
    LimitExceededError
        The topic's values grow past the memory budget.
    """
    contents = BagContents()
    reader = _Reader(bag, contents)
    chosen = [c for c in bag.connections if c.topic == topic]
    for connection, time_ns, raw in bag.messages(chosen) if chosen else ():
        reader.one(connection, time_ns, raw)
    reader.finish()
    facts = contents.topics.get(topic)
    table = NumericTable(topic) if facts is None or facts.table is None else facts.table
    if facts is not None and facts.undecodable:
        table.notes.append(
            f"topic {topic[:80]!r}: {facts.undecodable} message(s) unreadable, "
            f"first: {facts.first_problem}"
        )
    return table
