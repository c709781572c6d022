"""Build the recording model of a ROS bag, and its inspector section.

The play-time axis starts at the bag's first message; every message sits at
its recorded time. Each numeric topic is a channel of its numeric leaves
(a topic without numbers is left out, with a note); every moving frame of
the transform tree is a ``/tf:<frame>`` pose channel and the tree is the 3D
scene; each image topic is a camera with the calibration of its frame; the
``JointState`` topic gives the joints and ``/robot_description`` the robot.

Messages sit at their log time (when the recorder got them), or with the
``header`` time base at their ``header.stamp``. A provisional open (the
window) reads the transforms and calibrations of the first second only: the
scene is posed from them at once, each moving frame seen is a ``/tf:<frame>``
channel that reads the whole ``/tf`` when shown, and the model read with
every transform (:attr:`RecordingModel.refine`) takes its place when ready.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import DecodeError, TruncatedFileError
from fsr_core.recording import (
    Channel,
    ChannelData,
    Integrity,
    Marker,
    MarkerKind,
    RecordingModel,
    RobotDescription,
    Segment,
    Timeline,
)
from fsr_core.sources.rosbag.bag_files import OpenBag, open_bag
from fsr_core.sources.rosbag.cameras import camera_tracks
from fsr_core.sources.rosbag.library import rosbags_version
from fsr_core.sources.rosbag.reading import (
    ROBOT_DESCRIPTION_TOPIC,
    BagContents,
    TopicFacts,
    read_bag,
    topic_table,
    transform_tree,
)
from fsr_core.sources.rosbag.shared_bag import SharedBag
from fsr_core.sources.toolkit.camera_calibration import epochs_of
from fsr_core.sources.toolkit.frames_scene import frames_geometry
from fsr_core.sources.toolkit.joint_state_columns import (
    JOINT_STATE_SCHEMAS,
    preferred_joint_set,
)
from fsr_core.sources.toolkit.pose_columns import POSE_COLUMNS, POSE_UNIT, pose_label
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["load_bag"]

_LISTED: Final = 5
_BAG_TIMES: Final = {
    "log": "log time",
    "header": "header stamp",
    "publish": "log time (a bag records no publish time)",
}


def _play(times_ns: Any, origin_ns: int) -> tuple[np.ndarray, np.ndarray]:
    raw = np.asarray(times_ns, dtype=np.int64)
    order = np.argsort(raw, kind="stable")
    return order, (raw[order] - origin_ns).astype(np.float64) / 1e9


def _load_topic(shared: SharedBag, topic: str, origin_ns: int) -> ChannelData:
    """Read a lazy channel's topic: its times (play seconds), values, columns."""
    table = shared.using(lambda bag: topic_table(bag, topic))
    order, play = _play(table.times_ns, origin_ns)
    return ChannelData(play, table.values()[order], table.columns)


class _WholeTree:
    """Every transform of a bag, read once through its shared reader when asked."""

    def __init__(self, shared: SharedBag) -> None:
        self._shared = shared
        self._lock = threading.Lock()
        self._tree: TransformTree | None = None

    def get(self) -> TransformTree:
        with self._lock:
            if self._tree is None:
                self._tree = self._shared.using(transform_tree)
            return self._tree


def _load_pose(whole: _WholeTree, frame: str, origin_ns: int) -> ChannelData:
    """Read a provisional open's ``/tf:<frame>`` channel from every transform."""
    for child, times, translations, rotations in whole.get().series():
        if child == frame:
            order, play = _play(times, origin_ns)
            values = np.hstack([translations, rotations])[order]
            return ChannelData(play, values, POSE_COLUMNS)
    raise DecodeError(f"frame {frame[:80]!r} is no longer in the transforms")


class _Assembly:
    def __init__(self, bag: OpenBag, contents: BagContents, time_base: str) -> None:
        self.bag = bag
        self.contents = contents
        self.time_base = time_base
        self.origin_ns = contents.origin_ns
        self.notes: list[str] = []
        self.shared = SharedBag(bag.path)
        self.partial = any(facts.partial for facts in contents.topics.values())

    def lazy_channel(self, facts: TopicFacts) -> Channel | None:
        """Return the channel of a topic read when first shown."""
        if not facts.first_columns:
            if facts.table is not None and facts.table.rows:
                self.notes.append(
                    f"topic {facts.name[:80]!r} ({facts.msgtype}) has no numbers"
                )
            return None
        loader = functools.partial(_load_topic, self.shared, facts.name, self.origin_ns)
        return Channel.lazy(
            facts.name,
            loader,
            label=facts.name,
            columns=facts.first_columns,
            count=facts.messages,
            path=self.bag.path,
        )

    def topic_channel(self, facts: TopicFacts) -> Channel | None:
        if facts.lazy:
            return self.lazy_channel(facts)
        table = facts.table
        if table is None or not table.rows:
            return None
        if not table.columns:
            self.notes.append(
                f"topic {facts.name[:80]!r} ({facts.msgtype}) has no numbers"
            )
            return None
        check_budget(
            MEMORY,
            table.bytes_needed(),
            f"topic {facts.name[:80]!r}",
            path=self.bag.path,
        )
        self.notes.extend(table.notes)
        order, play = _play(table.times_ns, self.origin_ns)
        return Channel(
            facts.name, play, table.values()[order], "", facts.name, table.columns
        )

    def channels(self) -> dict[str, Channel]:
        channels: dict[str, Channel] = {}
        for facts in self.contents.topics.values():
            found = self.topic_channel(facts)
            if found is not None:
                channels[facts.name] = found
        whole = _WholeTree(self.shared)
        for frame, times, translations, rotations in self.contents.tree.series():
            name = f"/tf:{frame}"
            label = pose_label(frame)
            if self.partial:  # the first second read: the rest when shown
                load = functools.partial(_load_pose, whole, frame, self.origin_ns)
                channels[name] = Channel.lazy(
                    name,
                    load,
                    unit=POSE_UNIT,
                    label=label,
                    columns=POSE_COLUMNS,
                    path=self.bag.path,
                )
                continue
            order, play = _play(times, self.origin_ns)
            values = np.hstack([translations, rotations])[order]
            channels[name] = Channel(name, play, values, POSE_UNIT, label, POSE_COLUMNS)
        return channels

    def markers(self) -> tuple[Marker, ...]:
        markers = [
            Marker(
                MarkerKind.CALIBRATION,
                (epoch.start_ns - self.origin_ns) / 1e9,
                f"{topic}: calibration changes",
            )
            for topic, samples in self.contents.calibrations.items()
            for epoch in epochs_of(samples)[1:]
        ]
        cut = self.cut()
        if cut is not None:
            at_ns, reason = cut
            at = 0.0 if at_ns is None else max((at_ns - self.origin_ns) / 1e9, 0.0)
            markers.append(Marker(MarkerKind.TERMINAL_CUT, at, reason))
        return tuple(sorted(markers, key=lambda marker: marker.play_time_s))

    def cut(self) -> tuple[int | None, str] | None:
        scan = self.bag.scan
        if scan is not None and scan.cut_offset is not None:
            return (
                self.contents.end_ns,
                f"cut at byte {scan.cut_offset}: {scan.cut_reason}",
            )
        stopped = self.contents.stopped
        if stopped is not None:
            return stopped[0], f"reading stopped: {stopped[1]}"
        return None

    def integrity(self) -> tuple[Integrity, str]:
        cut = self.cut()
        if self.contents.stopped is not None and cut is not None:
            return Integrity.DEGRADED, cut[1]
        if cut is not None:
            return Integrity.RECOVERED, f"{self.bag.index}; {cut[1]}"
        if self.bag.scan is not None:
            return Integrity.RECOVERED, self.bag.index
        undecodable = [t for t in self.contents.topics.values() if t.undecodable]
        if undecodable or self.contents.unreadable:
            count = len(undecodable) + len(self.contents.unreadable)
            return Integrity.DEGRADED, f"{count} topic(s) partly or wholly unreadable"
        return Integrity.VALID, ""

    def robot(self) -> RobotDescription | None:
        text = self.contents.robot_description
        if text is None:
            return None
        kind = "mjcf" if "<mujoco" in text[:4096] else "urdf"
        return RobotDescription.of_text(
            text.encode("utf-8"),
            f"{self.bag.path.name}: {ROBOT_DESCRIPTION_TOPIC}",
            kind=kind,
        )

    def model(self, source: str) -> RecordingModel:
        channels = self.channels()
        path = self.bag.path
        cameras = camera_tracks(path, self.contents, self.shared)
        duration = max(self.contents.end_ns - self.origin_ns, 0) / 1e9
        samples = [c.count or 0 for c in channels.values()]
        samples += [t.count or 0 for t in cameras]
        ticks = max(samples, default=1)
        integrity, reason = self.integrity()
        joint_channels = [
            channels[facts.name]
            for facts in self.contents.topics.values()
            if facts.msgtype in JOINT_STATE_SCHEMAS and facts.name in channels
        ]
        if self.contents.tree.problems:
            self.notes.extend(self.contents.tree.problems)
        return RecordingModel(
            path=path,
            source=source,
            title=path.name,
            timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(ticks - 1, 0)),)),
            channels=channels,
            cameras=cameras,
            geometry=frames_geometry(self.contents.tree, self.origin_ns),
            joints=preferred_joint_set(joint_channels),
            markers=self.markers(),
            metadata={
                "format": "ROS 1 bag 2.0" if self.bag.ros1 else "rosbag2 SQLite",
                "library": f"rosbags {rosbags_version()}",
                "index": self.bag.index,
                "time_base": self.time_base,
                "start_time_ns": self.origin_ns,
            },
            integrity=integrity,
            integrity_reason=reason,
            report=self.report(),
            robot_description=self.robot(),
        )

    def report(self) -> dict[str, Any]:
        scan = self.bag.scan
        topics = []
        for facts in self.contents.topics.values():
            entry: dict[str, Any] = {
                "topic": facts.name,
                "type": facts.msgtype,
                "kind": facts.kind.value,
                "messages": facts.messages,
            }
            if facts.undecodable:
                entry["unreadable_messages"] = facts.undecodable
                entry["first_problem"] = facts.first_problem
            if facts.at_log_time:
                entry["at_log_time"] = facts.at_log_time
            topics.append(entry)
        for topic, reason in self.contents.unreadable.items():
            topics.append({"topic": topic, "unreadable": reason})
        notes = list(self.notes)
        unstamped = [t.name for t in self.contents.topics.values() if t.at_log_time]
        if unstamped:
            named = ", ".join(unstamped[:_LISTED])
            more = len(unstamped) - _LISTED
            notes.append(
                "messages without a header stamp stay at their log time: "
                + named
                + (f" and {more} more topic(s)" if more > 0 else "")
            )
        if self.time_base == "publish":
            notes.append("a bag records no publish time: messages at their log time")
        if self.contents.unreadable:
            named = ", ".join(list(self.contents.unreadable)[:_LISTED])
            notes.append(f"topics not read (definition does not parse): {named}")
        return {
            "index": self.bag.index,
            "time_base": _BAG_TIMES[self.time_base],
            "compression": list(self.bag.compression),
            "files": list(self.bag.files),
            "messages": self.contents.messages,
            "topics": topics,
            "scan": None
            if scan is None
            else {
                "chunks": scan.chunks,
                "messages": scan.messages,
                "cut_offset": scan.cut_offset,
                "cut_reason": scan.cut_reason,
            },
            "stopped": None
            if self.contents.stopped is None
            else {
                "after_ns": self.contents.stopped[0],
                "reason": self.contents.stopped[1],
            },
            "notes": notes,
        }


def _check_something_read(bag: OpenBag, contents: BagContents) -> None:
    """Fail closed when a damaged bag gave no message at all.

    Raises
    ------
    TruncatedFileError
        The scan stopped before any message, or reading failed at the first.
    """
    if contents.messages:
        return
    scan = bag.scan
    if scan is not None and scan.cut_offset is not None:
        raise TruncatedFileError(
            f"no message readable ({bag.index}): cut at byte {scan.cut_offset}: "
            f"{scan.cut_reason}",
            path=bag.path,
        )
    if contents.stopped is not None:
        raise TruncatedFileError(
            f"no message readable: {contents.stopped[1]}", path=bag.path
        )


def load_bag(
    path: Path,
    *,
    source: str,
    read_everything: bool = False,
    provisional: bool = False,
    time_base: str | None = None,
) -> RecordingModel:
    """Open ``path`` (a ROS 1 bag, a rosbag2 folder or ``.db3``) as a model.

    Without ``read_everything`` the numeric topics and the cameras' frame
    times are read when first shown (the transforms, calibrations and robot
    description at once); with it (``inspect --verify``, ``convert``) every
    message is read and checked at open. ``provisional`` (the window) reads
    the transforms and calibrations of the first second only, the model with
    all of them to follow (:attr:`RecordingModel.refine`). ``time_base``
    ``header`` places messages at their stamps (every message read at
    open); ``log`` (``None``) and ``publish`` at their log times.

    Raises
    ------
    FsrError
        The bag cannot be opened, needs more than the budgets, or ``rosbags``
        is missing (named with its extra).
    """
    base = time_base or "log"
    header = base == "header"
    everything = read_everything or header
    bag = open_bag(path)
    try:
        contents = read_bag(
            bag,
            everything=everything,
            provisional=provisional and not everything,
            header_stamps=header,
        )
        _check_something_read(bag, contents)
        assembly = _Assembly(bag, contents, base)
        model = assembly.model(source)
    except BaseException:
        bag.close()
        raise
    if read_everything:
        bag.close()
    else:  # what is read when shown reads through this reader, not a new one
        assembly.shared.keep(bag)
    if not assembly.partial:
        return model
    return _provisional(
        model, functools.partial(load_bag, path, source=source, time_base=time_base)
    )


def _provisional(
    model: RecordingModel, whole: Callable[[], RecordingModel]
) -> RecordingModel:
    """Return ``model`` (read from the first second) to be refined by ``whole``."""

    def refine(progress: Callable[[int, int], None]) -> RecordingModel:
        return whole()

    integrity, reason = model.integrity, model.integrity_reason
    if integrity is Integrity.VALID:
        integrity = Integrity.UNVERIFIED
        reason = "the transforms of the first second read; the rest are being read"
    return dataclasses.replace(
        model, refine=refine, integrity=integrity, integrity_reason=reason
    )
