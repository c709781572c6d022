"""A bag's messages read into what the model is built from.

Messages come in time order from the ``rosbags`` reader, at their recorded
(log) time. Each is sorted by its type (:data:`~fsr_core.sources.toolkit.
message_kinds.KINDS`): transforms go to the transform tree (``/tf_static``
holds for all time), calibrations to their topic's samples, images are only
timed (a frame is deserialised when shown), ``/robot_description`` is kept
as text, and every other message's numeric leaves go to its topic's table.
A lazy open reads only the transforms, calibrations and robot description
whole, and the first message of every other topic (:func:`topic_table`
reads a topic when its channel is shown); a provisional one (the window)
reads of the transforms and calibrations only their first second, and
``/tf_static`` and the robot description whole. With header stamps
(``header_stamps``) every message sits at its own ``header.stamp`` (each
transform at its own; an image's stamp read from its first bytes), one
without a set stamp at its log time, counted against its topic. A message that does not
deserialise is counted against its topic; a topic whose definition does not
parse is listed with the reason and not read. A read that fails part way (a
damaged chunk) keeps what came before it, and says where it stopped.
"""

from __future__ import annotations

import struct
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from fsr_core.calibration import CalibrationProfile
from fsr_core.errors import CalibrationError, DecodeError, FsrError, LimitExceededError
from fsr_core.sources.rosbag.bag_files import OpenBag
from fsr_core.sources.rosbag.leaf_plans import LeafPlan, plan_for
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.rosbag.tf_messages import (
    TF_MESSAGE,
    message_stamp_ns,
    tf_stamps_ns,
    tf_transforms,
)
from fsr_core.sources.toolkit.message_kinds import (
    KINDS,
    TopicKind,
    calibration_of,
    frame_id_of,
    transforms_of,
)
from fsr_core.sources.toolkit.numeric_leaves import NumericTable
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = [
    "IMAGE_KINDS",
    "STARTING_SPAN_NS",
    "BagContents",
    "TopicFacts",
    "read_bag",
    "topic_table",
    "transform_tree",
]

IMAGE_KINDS: Final = frozenset({TopicKind.COMPRESSED_IMAGE, TopicKind.RAW_IMAGE})
ROBOT_DESCRIPTION_TOPIC: Final = "/robot_description"
_STATIC_TF: Final = "/tf_static"
_STRING_TYPES: Final = frozenset({"std_msgs/msg/String"})
_ROWS_AT_ONCE: Final = 4096
STARTING_SPAN_NS: Final = 1_000_000_000
"""How much of the transforms and calibrations a provisional open reads."""
_ROS1_STAMP: Final = struct.Struct("<II")
"""A ROS 1 ``Header`` after its ``seq``: ``stamp.secs``, ``stamp.nsecs``."""


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
    """Where each frame sits on the time base (its log time or its stamp)."""
    image_log_ns: list[int] = field(default_factory=list)
    """Each frame's log time, by which the bag's reader finds it."""
    at_log_time: int = 0
    """Messages left at their log time for want of a stamp (header stamps)."""
    partial: bool = False
    """Only the first second was read (a provisional open)."""
    lazy: bool = False
    """Only the first message was read: the rest is read when shown."""
    first_columns: tuple[str, ...] = ()
    """The numeric columns of the first message (of a lazy numeric topic)."""
    plan: LeafPlan | None = None
    """How this topic's numeric leaves are read (:mod:`leaf_plans`)."""
    planned: bool = False
    pending: tuple[list[int], list[tuple[Any, ...]]] = field(
        default_factory=lambda: ([], [])
    )
    """Messages read by the plan, not yet in the table: times and fields."""

    def flush(self) -> None:
        """Move the rows the plan read into the table."""
        times, rows = self.pending
        if not times or self.table is None or self.plan is None:
            return
        values = self.plan.rows(rows)
        values[~np.isfinite(values)] = np.nan
        self.table.add_rows(np.asarray(times, dtype=np.int64), self.plan.names, values)
        times.clear()
        rows.clear()

    def seen(self, time_ns: int) -> None:
        """Widen the topic's span to ``time_ns``."""
        if self.first_ns is None or time_ns < self.first_ns:
            self.first_ns = time_ns
        if self.last_ns is None or time_ns > self.last_ns:
            self.last_ns = time_ns

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
        return min(self._known_times(0), default=0)

    @property
    def end_ns(self) -> int:
        """Time of the last message (ns), 0 when there is none."""
        return max(self._known_times(1), default=0)

    def _known_times(self, end: int) -> list[int]:
        """Each topic's first (``end`` 0) or last (1) time, and the reader's."""
        times = [(t.first_ns, t.last_ns)[end] for t in self.topics.values()]
        if self.span_ns is not None:
            times.append(self.span_ns[end])
        return [time for time in times if time is not None]


def _kind_of(msgtype: str) -> TopicKind:
    return KINDS.get(msgtype, TopicKind.NUMERIC)


def _image_stamp_ns(raw: bytes | memoryview, ros1: bool) -> int | None:
    """Return the ``header.stamp`` an image message starts with (``None``: unset).

    ``sensor_msgs`` images open with a ``std_msgs/Header``: in ROS 1 its
    ``seq`` then the stamp's two unsigned words; in CDR, after the four bytes
    of encapsulation (the second says the byte order), the stamp's two words.
    """
    if len(raw) < 12:
        return None
    if ros1:
        sec, nanosec = _ROS1_STAMP.unpack_from(raw, 4)
    else:
        order = "<" if raw[1] & 1 else ">"
        sec, nanosec = struct.unpack_from(f"{order}iI", raw, 4)
    found = int(sec) * 1_000_000_000 + int(nanosec)
    return found if found > 0 else None


class _Reader:
    def __init__(
        self, bag: OpenBag, contents: BagContents, *, header_stamps: bool = False
    ) -> None:
        self.bag = bag
        self.contents = contents
        self.header = header_stamps

    def facts(self, connection: Any) -> TopicFacts:
        facts = self.contents.topics.get(connection.topic)
        if facts is None:
            kind = _kind_of(connection.msgtype)
            facts = TopicFacts(connection.topic, connection.msgtype, kind)
            if kind is TopicKind.NUMERIC:
                facts.table = NumericTable(connection.topic)
            self.contents.topics[connection.topic] = facts
        return facts

    def one(self, connection: Any, log_ns: int, raw: bytes) -> None:
        facts = self.facts(connection)
        facts.messages += 1
        if facts.kind in IMAGE_KINDS:
            when = log_ns
            if self.header:
                when = self.stamped(facts, _image_stamp_ns(raw, self.bag.ros1), log_ns)
            facts.image_times_ns.append(when)
            facts.image_log_ns.append(log_ns)
            facts.seen(when)
            if facts.messages > 1:
                return
        try:
            when = self.read(facts, connection.msgtype, log_ns, raw)
        except LimitExceededError:
            raise
        except (FsrError, ValueError, TypeError, KeyError, IndexError) as exc:
            facts.problem(str(exc) or type(exc).__name__)
            when = log_ns
        except Exception as exc:  # noqa: BLE001 - rosbags' SerdeError and kin
            facts.problem(f"does not deserialise: {exc}")
            when = log_ns
        if facts.kind not in IMAGE_KINDS:
            facts.seen(when)

    @staticmethod
    def stamped(facts: TopicFacts, stamp_ns: int | None, log_ns: int) -> int:
        """Return the stamp, or the log time (counted) when there is none."""
        if stamp_ns is None:
            facts.at_log_time += 1
            return log_ns
        return stamp_ns

    def read(self, facts: TopicFacts, msgtype: str, log_ns: int, raw: bytes) -> int:
        """Deserialise one message, put it where its kind goes; return its time."""
        return self.take(
            facts, msgtype, log_ns, self.bag.types.deserialize(raw, msgtype)
        )

    def take(self, facts: TopicFacts, msgtype: str, log_ns: int, message: Any) -> int:
        """Put one deserialised message where its kind goes; return its time."""
        if msgtype == TF_MESSAGE:
            return self.tf_message(facts, message, log_ns)
        time_ns = log_ns
        if self.header and facts.kind is not TopicKind.TRANSFORMS:
            time_ns = self.stamped(facts, message_stamp_ns(message), log_ns)
        if self.planned(facts, time_ns, message):
            return time_ns
        self.place(facts, time_ns, plain_tree(message))
        if not facts.planned and facts.table is not None:
            facts.planned = True
            if facts.name != ROBOT_DESCRIPTION_TOPIC:
                facts.plan = plan_for(message)
        return time_ns

    def tf_message(self, facts: TopicFacts, message: Any, log_ns: int) -> int:
        """Add a ``TFMessage``'s transforms to the tree; return its earliest time."""
        static = facts.name == _STATIC_TF
        transforms = tf_transforms(message)
        if not self.header:
            for transform in transforms:
                self.contents.tree.add(log_ns, transform, static=static)
            return log_ns
        placed = []
        unstamped = False
        for transform, stamp in zip(transforms, tf_stamps_ns(message), strict=True):
            unstamped |= stamp is None
            when = log_ns if stamp is None else stamp
            self.contents.tree.add(when, transform, static=static)
            placed.append(when)
        if unstamped:
            facts.at_log_time += 1  # a transform of it had no stamp of its own
        return min(placed, default=log_ns)

    @staticmethod
    def planned(facts: TopicFacts, time_ns: int, message: Any) -> bool:
        """Read ``message`` by its topic's plan; ``False``: it must be walked."""
        if facts.plan is None:
            return False
        parts = facts.plan.parts(message)
        if parts is None:
            facts.flush()  # rows stay in reading order
            return False
        times, rows = facts.pending
        times.append(time_ns)
        rows.append(parts)
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
            self.transforms(facts, time_ns, tree)
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

    def transforms(self, facts: TopicFacts, time_ns: int, tree: Any) -> None:
        """Add a transform message's transforms (each at its stamp, if asked)."""
        static = facts.name == _STATIC_TF
        for stamped in transforms_of(tree):
            when = time_ns
            if self.header:
                stamp = stamped.stamp_ns
                when = self.stamped(facts, stamp if stamp else None, time_ns)
            self.contents.tree.add(when, stamped.value, static=static)


def _read_at_open(connection: Any) -> bool:
    """Whether a topic is read whole at open (what the scene and cameras need)."""
    kind = _kind_of(connection.msgtype)
    return kind in (TopicKind.TRANSFORMS, TopicKind.CALIBRATION) or (
        connection.topic == ROBOT_DESCRIPTION_TOPIC
    )


def _whole_when_provisional(connection: Any) -> bool:
    """Whether a provisional open still reads a topic whole (few messages)."""
    return connection.topic in (_STATIC_TF, ROBOT_DESCRIPTION_TOPIC)


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
            facts.image_log_ns.clear()


@dataclass
class _Plan:
    """Which topics one open reads, and how much of each."""

    whole: list[Any] = field(default_factory=list)
    starting: list[Any] = field(default_factory=list)
    """Read over their first second only (a provisional open)."""
    later: list[Any] = field(default_factory=list)
    """Only their first message read: the rest when shown."""


def _plan(readable: list[Any], *, everything: bool, provisional: bool) -> _Plan:
    if everything:
        return _Plan(whole=readable)
    plan = _Plan()
    for connection in readable:
        if not _read_at_open(connection):
            plan.later.append(connection)
        elif provisional and not _whole_when_provisional(connection):
            plan.starting.append(connection)
        else:
            plan.whole.append(connection)
    return plan


def read_bag(
    bag: OpenBag,
    *,
    everything: bool = True,
    provisional: bool = False,
    header_stamps: bool = False,
) -> BagContents:
    """Read the messages of ``bag`` the model is built from, once.

    Without ``everything``, only the topics the scene and the cameras need at
    once (transforms, calibrations, the robot description) are read whole;
    every other topic gives its first message (its columns, its frame) and
    is read when shown. With ``provisional`` as well, the transforms (but
    ``/tf_static``) and calibrations are read over the bag's first second
    only, their topics marked :attr:`TopicFacts.partial` when that left some
    out. ``header_stamps`` places messages at their stamps (read
    ``everything`` then: the stamps are in every message).

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
    reader = _Reader(bag, contents, header_stamps=header_stamps)
    plan = _plan(readable, everything=everything, provisional=provisional)
    if not everything:
        start, end = bag.reader.start_time, bag.reader.end_time - 1
        if end >= start:
            contents.span_ns = (start, end)
    _read_messages(bag, reader, plan)
    if not everything:
        contents.messages = sum(t.messages for t in contents.topics.values())
    return contents


def _read_messages(bag: OpenBag, reader: _Reader, plan: _Plan) -> None:
    """Read what ``plan`` says, in time order per part; note a stop."""
    contents = reader.contents
    last_ns: int | None = None
    try:
        _first_messages(bag, reader, plan.later)
        if plan.starting:
            start = bag.reader.start_time
            stop = start + STARTING_SPAN_NS
            for connection, time_ns, raw in bag.messages(plan.starting, start, stop):
                reader.one(connection, time_ns, raw)
            for connection in plan.starting:
                facts = reader.facts(connection)
                if facts.messages < int(connection.msgcount):
                    facts.partial = True
                    facts.messages = int(connection.msgcount)
        for connection, time_ns, raw in bag.messages(plan.whole) if plan.whole else ():
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
    note of the table. Messages the topic's plan reads (nearly all) take the
    short way: deserialised, their fields kept, many turned into rows at once.

    Raises
    ------
    LimitExceededError
        The topic's values grow past the memory budget.
    """
    contents = BagContents()
    reader = _Reader(bag, contents)
    chosen = [c for c in bag.connections if c.topic == topic]
    facts = reader.facts(chosen[0]) if chosen else None
    if facts is not None:
        _read_topic(bag, reader, facts, chosen)
    reader.finish()
    table = NumericTable(topic) if facts is None or facts.table is None else facts.table
    if facts is not None and facts.undecodable:
        table.notes.append(
            f"topic {topic[:80]!r}: {facts.undecodable} message(s) unreadable, "
            f"first: {facts.first_problem}"
        )
    return table


def _read_topic(
    bag: OpenBag, reader: _Reader, facts: TopicFacts, chosen: list[Any]
) -> None:
    """Read every message of one topic into ``facts``: by its plan when it can.

    The loop every message of a plotted topic goes through: the library's
    deserialiser called directly, the plan's two getters, two appends (the
    messages are not counted: the table's rows are).
    """
    deserialize = bag.types.deserializer()
    times, rows = facts.pending
    add_time, add_row = times.append, rows.append
    plan = facts.plan
    for connection, time_ns, raw in bag.messages(chosen):
        if plan is None:
            reader.one(connection, time_ns, raw)
            plan = facts.plan
            continue
        try:
            message = deserialize(raw, connection.msgtype)
        except Exception:  # noqa: BLE001 - rosbags' SerdeError and kin
            reader.one(connection, time_ns, raw)  # counts it, with the reason
            continue
        parts = plan.parts(message)
        if parts is None:
            facts.flush()  # rows stay in reading order
            try:
                reader.take(facts, connection.msgtype, time_ns, message)
            except LimitExceededError:
                raise
            except (FsrError, ValueError, TypeError, KeyError, IndexError) as exc:
                facts.problem(str(exc) or type(exc).__name__)
            continue
        add_time(time_ns)
        add_row(parts)
        if len(rows) >= _ROWS_AT_ONCE:
            facts.flush()


def transform_tree(bag: OpenBag) -> TransformTree:
    """Read every transform topic of ``bag`` whole, at log time, into a tree.

    What a provisional open's ``/tf:<frame>`` channels read when shown.
    """
    contents = BagContents()
    reader = _Reader(bag, contents)
    chosen = [
        c
        for c in bag.connections
        if _kind_of(c.msgtype) is TopicKind.TRANSFORMS
        and c.msgtype not in bag.types.unreadable
    ]
    for connection, time_ns, raw in bag.messages(chosen) if chosen else ():
        reader.one(connection, time_ns, raw)
    return contents.tree
