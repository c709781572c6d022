"""Build the recording model of an MCAP file.

A file whose indexes tell where every topic's messages are opens from them
(:mod:`fsr_core.sources.mcap.indexed_reading`): the summary, the transforms
and calibrations, and one message of each other topic; each numeric topic is
a lazy channel that reads its own chunks when first shown. Any other file,
and any time base but log time, is read in one pass over every block
(:meth:`Reading.read_everything`). Either way images are read only when a view
asks for their frame. The play-time axis starts at the first message; each
message sits at its log time, or at its publish time or header stamp when
``FSR_VIEWER_MCAP_TIME`` says so.
"""

from __future__ import annotations

import os
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
from fsr_core.sources.mcap.frames_scene import frames_geometry
from fsr_core.sources.mcap.indexed_reading import (
    can_read_from_indexes,
    read_from_indexes,
)
from fsr_core.sources.mcap.late_problems import LateProblems
from fsr_core.sources.mcap.reading import Reading
from fsr_core.sources.mcap.report import contents_report
from fsr_core.sources.mcap.topic_loader import TopicLoader
from fsr_core.sources.mcap.topics import Topic
from fsr_core.sources.mcap.transform_tree import TransformTree

__all__ = ["TIME_BASES", "TIME_VARIABLE", "load_mcap"]

TIME_VARIABLE: Final = "FSR_VIEWER_MCAP_TIME"
"""Which time places a message: ``log`` (default), ``publish`` or ``header``."""
TIME_BASES: Final = ("log", "publish", "header")


def time_base() -> str:
    """Return the time base in force (an unknown value means ``log``)."""
    chosen = os.environ.get(TIME_VARIABLE, "log").strip().lower()
    return chosen if chosen in TIME_BASES else "log"


def _play_times(times_ns: list[int], origin_ns: int) -> tuple[np.ndarray, FloatArray]:
    """Return the sort order and the play times (s) of ``times_ns``."""
    raw = np.asarray(times_ns, dtype=np.int64)
    order = np.argsort(raw, kind="stable")
    play: FloatArray = (raw[order] - origin_ns).astype(np.float64) / 1e9
    return order, play


def load_mcap(path: Path, *, read_everything: bool = False) -> RecordingModel:
    """Open ``path`` as a recording model.

    With ``read_everything`` (``inspect --verify``, ``convert``) every chunk is
    read and checked at open, and every channel holds its values.

    Raises
    ------
    FsrError
        The file is not MCAP, cannot be read, needs more than the budgets, or
        needs a package that is missing (named with its extra).
    """
    contents = index_file(path, verify=True)
    base = time_base()
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
        starts = [t.first_ns for t in topics if t.first_ns is not None]
        ends = [t.last_ns for t in topics if t.last_ns is not None]
        self.origin_ns = min(starts) if starts else 0
        self.end_ns = max(ends) if ends else 0
        self.notes: list[str] = []
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
                "m",
                f"pose of {name.split(':', 1)[1]} in its parent",
                ("x", "y", "z", "qx", "qy", "qz", "qw"),
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
        if cut is not None:
            return Integrity.RECOVERED, f"cut at byte {cut.offset}: {cut.reason}"
        return Integrity.VALID, ""

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
        report = contents_report(self.contents, self.reading, self.notes)
        self.problems.attach(report)
        return RecordingModel(
            path=self.contents.path,
            source="mcap",
            title=self.contents.path.name,
            timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(ticks - 1, 0)),)),
            channels=channels,
            cameras=cameras,
            geometry=geometry,
            markers=self.markers(),
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


def _tf_channels(tree: TransformTree) -> dict[str, tuple[list[int], FloatArray]]:
    """Return ``"/tf:<frame>"`` pose series of every moving frame."""
    found: dict[str, tuple[list[int], FloatArray]] = {}
    for frame, times, translations, rotations in tree.series():
        values = np.hstack([translations, rotations])
        found[f"/tf:{frame}"] = (times, values)
    return found
