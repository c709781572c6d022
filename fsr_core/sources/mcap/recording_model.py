"""Build the recording model of an MCAP file.

A file whose indexes tell where every topic's messages are opens from them
(:mod:`fsr_core.sources.mcap.indexed_reading`): the summary, the transforms
and calibrations, and one message of each other topic; each numeric topic is
a lazy channel that reads its own chunks when first shown. Any other file,
and any time base but log time, is read in one pass over every block
(:meth:`Reading.read_everything`). Either way images are read only when a view
asks for their frame, and of a ``/robot_description`` topic only the message
drawn (:mod:`fsr_core.sources.mcap.robot_description`). The play-time axis
starts at the first message; each message sits at its log time, or at its
publish time or header stamp when the caller's ``time_base`` (the
``--time-base`` option, View → Time base) says so, or, when it does not,
``FSR_VIEWER_MCAP_TIME`` (the default for scripts). With header stamps, a
message without one (no header, or the unset stamp 0) stays at its log time,
and the report's notes and topics say which topics did.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import CorruptRecordError, TruncatedFileError
from fsr_core.recording import (
    Channel,
    Integrity,
    Marker,
    MarkerKind,
    RecordingModel,
    Segment,
    Timeline,
)
from fsr_core.sources.mcap.cameras import camera_tracks, epochs_of
from fsr_core.sources.mcap.container import McapContents, index_file
from fsr_core.sources.mcap.indexed_reading import (
    can_read_from_indexes,
    read_from_indexes,
)
from fsr_core.sources.mcap.inspection_report import contents_report
from fsr_core.sources.mcap.joint_states import joint_states
from fsr_core.sources.mcap.late_problems import LateProblems
from fsr_core.sources.mcap.reading import TIME_LIMIT_NS, Reading
from fsr_core.sources.mcap.robot_description import carried_description
from fsr_core.sources.mcap.topic_loader import TopicLoader
from fsr_core.sources.mcap.topics import Topic
from fsr_core.sources.open_options import TIME_BASES
from fsr_core.sources.toolkit.frames_scene import frames_geometry
from fsr_core.sources.toolkit.pose_columns import POSE_COLUMNS, POSE_UNIT, pose_label
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["TIME_BASES", "TIME_VARIABLE", "default_time_base", "load_mcap"]

TIME_VARIABLE: Final = "FSR_VIEWER_MCAP_TIME"
"""The default time base, for scripts: ``log`` (default), ``publish`` or ``header``."""
_LISTED_TOPICS: Final = 5
"""Topics named in the note of messages left at their log time; the rest counted."""


def default_time_base() -> str:
    """Return the default time base (:data:`TIME_VARIABLE`; unknown: ``log``)."""
    chosen = os.environ.get(TIME_VARIABLE, "log").strip().lower()
    return chosen if chosen in TIME_BASES else "log"


def _play_times(
    times_ns: Sequence[int], origin_ns: int
) -> tuple[np.ndarray, FloatArray]:
    """Return the sort order and the play times (s) of ``times_ns``."""
    raw = np.asarray(times_ns, dtype=np.int64)
    order = np.argsort(raw, kind="stable")
    play: FloatArray = (raw[order] - origin_ns).astype(np.float64) / 1e9
    return order, play


def load_mcap(
    path: Path, *, time_base: str | None = None, read_everything: bool = False
) -> RecordingModel:
    """Open ``path`` as a recording model.

    ``time_base`` places each message at its ``log`` time, ``publish`` time
    or ``header`` stamp (``None``: :func:`default_time_base`, the environment's
    default). With ``read_everything`` (``inspect --verify``, ``convert``)
    every chunk is read and checked at open, and every channel holds its
    values.

    Raises
    ------
    ValueError
        ``time_base`` is none of :data:`TIME_BASES`.
    FsrError
        The file is not MCAP, cannot be read, needs more than the budgets, or
        needs a package that is missing (named with its extra).
    """
    if time_base is not None and time_base not in TIME_BASES:
        raise ValueError(f"time base {time_base!r}: expected one of {TIME_BASES}")
    base = default_time_base() if time_base is None else time_base
    contents = index_file(path, verify=True)
    reading = Reading(contents, base)
    if read_everything or not can_read_from_indexes(contents, base):
        reading.read_everything()
    else:
        try:
            read_from_indexes(reading)
        except (CorruptRecordError, TruncatedFileError) as exc:
            contents.problems.append(
                f"a message index is unreadable ({exc.reason}); every chunk read"
            )
            reading = Reading(contents, base)
            reading.read_everything()
    return _Assembly(contents, reading).model()


class _Assembly:
    """Turn what reading collected into the model's parts."""

    def __init__(self, contents: McapContents, reading: Reading) -> None:
        self.contents = contents
        self.reading = reading
        topics = reading.topics.values()
        # A time of 2**63 ns or more (a damaged one) never spans the timeline.
        starts = [t.first_ns for t in topics if t.first_ns is not None]
        ends = [t.last_ns for t in topics if t.last_ns is not None]
        starts = [start for start in starts if start < TIME_LIMIT_NS]
        ends = [end for end in ends if end < TIME_LIMIT_NS]
        self.origin_ns = min(starts) if starts else 0
        self.end_ns = max(ends) if ends else 0
        self.description, self.notes = carried_description(reading)
        self.problems = LateProblems()

    def channels(self) -> dict[str, Channel]:
        channels: dict[str, Channel] = {}
        for topic in self.reading.topics.values():
            found = self._read_channel(topic)
            if found is None and topic.first_columns is not None:
                found = self._lazy_channel(topic)
            if found is not None:
                channels[topic.info.topic] = found
        for name, (times, values) in _tf_channels(self.reading.tree).items():
            order, play = _play_times(times, self.origin_ns)
            channels[name] = Channel(
                name,
                play,
                values[order],
                POSE_UNIT,
                pose_label(name.split(":", 1)[1]),
                POSE_COLUMNS,
            )
        return channels

    def _read_channel(self, topic: Topic) -> Channel | None:
        """Return the channel of a topic read at open (``None``: not read)."""
        table = topic.table
        if table is None or not table.rows:
            return None
        check_budget(
            MEMORY,
            table.bytes_needed(),
            f"topic {topic.info.topic[:80]!r}",
            path=self.contents.path,
        )
        order, play = _play_times(table.times_ns, self.origin_ns)
        self.notes.extend(table.notes)
        return Channel(
            topic.info.topic,
            play,
            table.values()[order],
            "",
            topic.info.topic,
            table.columns,
        )

    def _lazy_channel(self, topic: Topic) -> Channel:
        """Return the channel of a topic read when first shown."""
        columns = topic.first_columns or ()
        loader = TopicLoader(
            self.contents.path, topic, topic.held_in, self.origin_ns, self.problems
        )
        return Channel.lazy(
            topic.info.topic,
            loader,
            label=topic.info.topic,
            columns=columns,
            width=max(len(columns), 1),
            count=topic.info.count,
            path=self.contents.path,
        )

    def markers(self) -> tuple[Marker, ...]:
        markers: list[Marker] = []
        for topic in self.reading.topics.values():
            for epoch in epochs_of(topic.calibrations)[1:]:
                markers.append(
                    Marker(
                        MarkerKind.CALIBRATION,
                        (epoch.start_ns - self.origin_ns) / 1e9,
                        f"{topic.info.topic}: calibration changes",
                    )
                )
        for block, reason in self.reading.skipped:
            markers.append(
                Marker(
                    MarkerKind.UNREADABLE,
                    max(block.start_ns - self.origin_ns, 0) / 1e9,
                    f"chunk at byte {block.offset} unreadable: {reason}",
                    max(block.end_ns - self.origin_ns, 0) / 1e9,
                )
            )
        cut = self.contents.cut
        if cut is not None:
            at = 0.0 if cut.after_ns is None else (cut.after_ns - self.origin_ns) / 1e9
            markers.append(
                Marker(
                    MarkerKind.TERMINAL_CUT,
                    max(at, 0.0),
                    f"cut at byte {cut.offset}: {cut.reason}",
                )
            )
        return tuple(sorted(markers, key=lambda marker: marker.play_time_s))

    def integrity(self) -> tuple[Integrity, str]:
        if self.reading.skipped:
            block, reason = self.reading.skipped[0]
            return (
                Integrity.DEGRADED,
                f"{len(self.reading.skipped)} chunk(s) unreadable; first at byte "
                f"{block.offset}: {reason}",
            )
        cut = self.contents.cut
        if cut is not None and not self._read_anything():
            return (
                Integrity.INVALID,
                f"nothing could be read: cut at byte {cut.offset}: {cut.reason}",
            )
        if cut is not None:
            return Integrity.RECOVERED, f"cut at byte {cut.offset}: {cut.reason}"
        return Integrity.VALID, ""

    def _read_anything(self) -> bool:
        """Whether reading found any message, attachment or metadata record."""
        contents = self.contents
        return bool(
            any(self.reading.counts.values())
            or contents.attachments
            or contents.metadata
        )

    def model(self) -> RecordingModel:
        channels = self.channels()
        tree = self.reading.tree
        cameras = camera_tracks(
            self.contents.path,
            self.contents.blocks,
            list(self.reading.topics.values()),
            tree,
            self.origin_ns,
        )
        geometry = frames_geometry(tree, self.origin_ns)
        duration = (self.end_ns - self.origin_ns) / 1e9
        samples = [c.count or 0 for c in channels.values()]
        samples += [t.count or 0 for t in cameras]
        ticks = max(samples, default=1)
        integrity, reason = self.integrity()
        note = _at_log_time_note(self.reading)
        notes = [note, *self.notes] if note else self.notes
        report = contents_report(self.contents, self.reading, notes)
        self.problems.attach(report)
        return RecordingModel(
            path=self.contents.path,
            source="mcap",
            title=self.contents.path.name,
            timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(ticks - 1, 0)),)),
            channels=channels,
            cameras=cameras,
            geometry=geometry,
            joints=joint_states(
                (topic.info for topic in self.reading.topics.values()), channels
            ),
            markers=self.markers(),
            robot_description=self.description,
            metadata={
                "profile": self.contents.profile,
                "library": self.contents.library,
                "time_base": self.reading.base,
                "start_time_ns": self.origin_ns,
                **{f"metadata/{name}": value for name, value in self.contents.metadata},
            },
            integrity=integrity,
            integrity_reason=reason,
            report=report,
        )


def _at_log_time_note(reading: Reading) -> str:
    """Name the topics with messages left at their log time for want of a stamp.

    Only the ``header`` time base leaves any: the inspector's notes say which,
    so a timeline mixing stamps and log times is never silent.
    """
    left = [
        (topic.info.topic, topic.at_log_time, reading.counts.get(channel_id, 0))
        for channel_id, topic in reading.topics.items()
        if topic.at_log_time
    ]
    if not left:
        return ""
    named = ", ".join(
        f"{name[:80]} ({f'all {count}' if count >= total else f'{count} of {total}'})"
        for name, count, total in left[:_LISTED_TOPICS]
    )
    more = len(left) - _LISTED_TOPICS
    rest = f" and {more} more topic(s)" if more > 0 else ""
    return (
        f"header stamps: {len(left)} topic(s) have messages without one (no "
        f"header, or the unset stamp 0), placed at their log time: {named}{rest}"
    )


def _tf_channels(tree: TransformTree) -> dict[str, tuple[list[int], FloatArray]]:
    """Return ``"/tf:<frame>"`` pose series of every moving frame."""
    found: dict[str, tuple[list[int], FloatArray]] = {}
    for frame, times, translations, rotations in tree.series():
        values = np.hstack([translations, rotations])
        found[f"/tf:{frame}"] = (times, values)
    return found
