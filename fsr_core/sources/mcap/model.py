"""Build the recording model of an MCAP file.

One pass over the file's blocks decodes every topic the model shows as values
(numeric topics, calibrations, transforms) and notes where each image message
lies, so an image is read only when a view asks for its frame. The play-time
axis starts at the first message; each message sits at its log time, or at its
publish time or header stamp when ``FSR_VIEWER_MCAP_TIME`` says so.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.calibration import Calibration, CalibrationProfile, CameraPose
from fsr_core.calibration.profile import calibration_digest
from fsr_core.calibration.rotations import quaternion_from_matrix
from fsr_core.errors import CalibrationError, DecodeError, FsrError
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    Integrity,
    Marker,
    MarkerKind,
    RecordingModel,
    Segment,
    Timeline,
)
from fsr_core.sources.mcap.container import (
    Block,
    BlockMessage,
    McapContents,
    TopicInfo,
    index_file,
    read_block,
)
from fsr_core.sources.mcap.decoding import Decoder, PlainTree, decoder_for
from fsr_core.sources.mcap.frames_scene import frames_geometry
from fsr_core.sources.mcap.images import compressed_frame, message_bytes, raw_frame
from fsr_core.sources.mcap.known_types import (
    KINDS,
    TopicKind,
    calibration_of,
    frame_id_of,
    stamp_ns,
    transforms_of,
)
from fsr_core.sources.mcap.numeric_leaves import NumericTable
from fsr_core.sources.mcap.report import contents_report
from fsr_core.sources.mcap.transform_tree import TransformTree

__all__ = ["TIME_BASES", "TIME_VARIABLE", "load_mcap"]

TIME_VARIABLE: Final = "FSR_VIEWER_MCAP_TIME"
"""Which time places a message: ``log`` (default), ``publish`` or ``header``."""
TIME_BASES: Final = ("log", "publish", "header")
_CACHED_BLOCKS: Final = 4
_STATIC_TOPICS: Final = ("/tf_static",)


def time_base() -> str:
    """Return the time base in force (an unknown value means ``log``)."""
    chosen = os.environ.get(TIME_VARIABLE, "log").strip().lower()
    return chosen if chosen in TIME_BASES else "log"


@dataclass
class _Topic:
    info: TopicInfo
    kind: TopicKind
    decoder: Decoder
    times_ns: list[int] = field(default_factory=list)
    table: NumericTable | None = None
    refs: list[tuple[int, int]] = field(default_factory=list)
    calibrations: list[tuple[int, CalibrationProfile, str]] = field(
        default_factory=list
    )
    frame_id: str = ""
    image_format: str = ""
    failures: int = 0
    first_failure: str = ""

    def fail(self, problem: str) -> None:
        self.failures += 1
        if not self.first_failure:
            self.first_failure = problem


def _kind(info: TopicInfo) -> TopicKind:
    return KINDS.get(info.schema_name, TopicKind.NUMERIC)


class _BlockCache:
    """The last few blocks' messages, shared by the camera tracks of one file."""

    def __init__(self, path: Path, blocks: list[Block]) -> None:
        self._path = path
        self._blocks = blocks
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[int, int], list[BlockMessage]] = OrderedDict()

    def message(self, block: int, channel_id: int, ordinal: int) -> BlockMessage:
        key = (block, channel_id)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
        if found is None:
            found = read_block(
                self._path, self._blocks[block], frozenset({channel_id}), verify=True
            )
            with self._lock:
                self._cache[key] = found
                while len(self._cache) > _CACHED_BLOCKS:
                    self._cache.popitem(last=False)
        if ordinal >= len(found):
            raise DecodeError(
                "the message is no longer in its chunk (the file changed)",
                path=self._path,
            )
        return found[ordinal]


class _Reading:
    """The one pass over the blocks, and what it collected."""

    def __init__(self, contents: McapContents, base: str) -> None:
        self.contents = contents
        self.base = base
        self.topics: dict[int, _Topic] = {}
        for channel_id, info in contents.topics.items():
            kind = _kind(info)
            topic = _Topic(info, kind, decoder_for(info))
            if kind is TopicKind.NUMERIC:
                topic.table = NumericTable(info.topic)
            self.topics[channel_id] = topic
        self.tree = TransformTree()
        self.skipped: list[tuple[Block, str]] = []
        self.counts: dict[int, int] = {}

    def run(self) -> None:
        for index, block in enumerate(self.contents.blocks):
            try:
                messages = read_block(self.contents.path, block, None, verify=True)
            except FsrError as exc:
                if exc.__class__.__name__ in ("SourceUnavailableError",):
                    raise
                self.skipped.append((block, exc.reason))
                continue
            ordinals: dict[int, int] = {}
            for message in messages:
                ordinal = ordinals.get(message.channel_id, 0)
                ordinals[message.channel_id] = ordinal + 1
                self._take(index, ordinal, message)

    def _time(self, message: BlockMessage, tree: PlainTree | None) -> int:
        if self.base == "publish":
            return message.publish_time_ns
        if self.base == "header" and tree is not None:
            stamp = stamp_ns(tree)
            if stamp is not None:
                return stamp
        return message.log_time_ns

    def _take(self, block: int, ordinal: int, message: BlockMessage) -> None:
        topic = self.topics.get(message.channel_id)
        if topic is None:
            return
        self.counts[message.channel_id] = self.counts.get(message.channel_id, 0) + 1
        decode = topic.decoder.decode
        if decode is None:
            return
        image = topic.kind in (TopicKind.COMPRESSED_IMAGE, TopicKind.RAW_IMAGE)
        needs_tree = not image or self.base == "header" or not topic.refs
        tree: PlainTree | None = None
        if needs_tree:
            try:
                tree = decode(message.data)
            except Exception as exc:  # noqa: BLE001 - a library's decode error
                topic.fail(f"a message does not decode: {str(exc)[:160]}")
                return
        time_ns = self._time(message, tree)
        if image:
            if not topic.refs and tree is not None:
                topic.frame_id = frame_id_of(tree)
                image_format = tree.get("format") if isinstance(tree, dict) else None
                topic.image_format = str(image_format or tree.get("encoding", ""))
            topic.refs.append((block, ordinal))
            topic.times_ns.append(time_ns)
            return
        try:
            self._value(topic, time_ns, tree)
        except (FsrError, ValueError, TypeError) as exc:
            topic.fail(str(exc)[:200])

    def _value(self, topic: _Topic, time_ns: int, tree: PlainTree) -> None:
        if topic.kind is TopicKind.CALIBRATION:
            profile = calibration_of(tree)
            topic.calibrations.append((time_ns, profile, frame_id_of(tree)))
            topic.times_ns.append(time_ns)
        elif topic.kind is TopicKind.TRANSFORMS:
            static = topic.info.topic in _STATIC_TOPICS
            for stamped in transforms_of(tree):
                when = (
                    stamped.stamp_ns
                    if self.base == "header" and stamped.stamp_ns is not None
                    else time_ns
                )
                self.tree.add(when, stamped.value, static=static)
            topic.times_ns.append(time_ns)
        elif topic.table is not None:
            topic.table.add(time_ns, tree)
            topic.times_ns.append(time_ns)


def _camera_calibrations(
    image: _Topic, calibration_topics: list[_Topic]
) -> list[tuple[int, CalibrationProfile, str]]:
    """Return the calibrations of ``image``'s camera: same frame, else namespace."""
    if image.frame_id:
        for topic in calibration_topics:
            if any(frame == image.frame_id for _, _, frame in topic.calibrations):
                return topic.calibrations
    namespace = image.info.topic.rsplit("/", 1)[0]
    for topic in calibration_topics:
        other = topic.info.topic.rsplit("/", 1)[0]
        if other and (namespace.startswith(other) or other.startswith(namespace)):
            return topic.calibrations
    return []


@dataclass(frozen=True)
class _Epoch:
    start_ns: int
    profile: CalibrationProfile
    digest: str


def _epochs(found: list[tuple[int, CalibrationProfile, str]]) -> list[_Epoch]:
    epochs: list[_Epoch] = []
    for time_ns, profile, _ in sorted(found, key=lambda item: item[0]):
        digest = calibration_digest(profile)
        if not epochs or epochs[-1].digest != digest:
            epochs.append(_Epoch(time_ns, profile, digest))
    return epochs


class _CameraFetch:
    """Decode frame ``i`` of one image topic, with the calibration in force."""

    def __init__(
        self,
        topic: _Topic,
        cache: _BlockCache,
        epochs: list[_Epoch],
        tree: TransformTree,
        times_ns: np.ndarray,
        origin_ns: int,
    ) -> None:
        self._topic = topic
        self._cache = cache
        self._epochs = epochs
        self._epoch_starts = np.asarray([e.start_ns for e in epochs], dtype=np.int64)
        self._tree = tree
        self._times_ns = times_ns
        self._origin_ns = origin_ns
        self._decode = topic.decoder.decode

    def __call__(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        block, ordinal = self._topic.refs[index]
        message = self._cache.message(block, self._topic.info.channel_id, ordinal)
        what = f"topic {self._topic.info.topic[:80]!r}"
        assert self._decode is not None
        try:
            tree = self._decode(message.data)
        except Exception as exc:
            raise DecodeError(f"{what}: the message does not decode: {exc}") from exc
        frame = _frame_of(self._topic.kind, tree, what)
        return frame, self._calibration(int(self._times_ns[index]), tree)

    def _calibration(self, time_ns: int, tree: PlainTree) -> Calibration | None:
        if not self._epochs:
            return None
        epoch = max(int(np.searchsorted(self._epoch_starts, time_ns, "right")) - 1, 0)
        chosen = self._epochs[epoch]
        pose = None
        frame = frame_id_of(tree) or self._topic.frame_id
        found = self._tree.world_pose(frame, time_ns) if frame else None
        if found is not None:
            translation, rotation = found
            try:
                pose = CameraPose.normalized(
                    translation, quaternion_from_matrix(rotation)
                )
            except (CalibrationError, ValueError):
                pose = None
        return Calibration(
            camera=self._topic.info.topic,
            generation=0,
            epoch=epoch,
            digest=chosen.digest,
            profile=chosen.profile,
            pose=pose,
            first_tick=0,
            first_sim_time_s=(chosen.start_ns - self._origin_ns) / 1e9,
        )


def _frame_of(kind: TopicKind, tree: PlainTree, what: str) -> RGBFrame:
    if not isinstance(tree, dict):
        raise DecodeError(f"{what}: the image message is not a structure")
    data = message_bytes(tree.get("data", b""), what)
    if kind is TopicKind.COMPRESSED_IMAGE:
        return compressed_frame(data, str(tree.get("format", "")), what)
    fields = {name: tree.get(name) for name in ("width", "height", "step")}
    if not all(isinstance(value, int) for value in fields.values()):
        raise DecodeError(f"{what}: width, height or step is not an integer")
    encoding = tree.get("encoding")
    return raw_frame(
        data,
        width=int(fields["width"]),  # type: ignore[arg-type]
        height=int(fields["height"]),  # type: ignore[arg-type]
        encoding=str(encoding or ""),
        step=int(fields["step"]),  # type: ignore[arg-type]
        big_endian=bool(tree.get("is_bigendian", False)),
        what=what,
    )


def _play_times(times_ns: list[int], origin_ns: int) -> tuple[np.ndarray, FloatArray]:
    """Return the sort order and the play times (s) of ``times_ns``."""
    raw = np.asarray(times_ns, dtype=np.int64)
    order = np.argsort(raw, kind="stable")
    play: FloatArray = (raw[order] - origin_ns).astype(np.float64) / 1e9
    return order, play


def load_mcap(path: Path) -> RecordingModel:
    """Open ``path`` as a recording model.

    Raises
    ------
    FsrError
        The file is not MCAP, cannot be read, needs more than the budgets, or
        needs a package that is missing (named with its extra).
    """
    contents = index_file(path, verify=True)
    reading = _Reading(contents, time_base())
    reading.run()
    return _Assembly(contents, reading).model()


class _Assembly:
    """Turn what the pass collected into the model's parts."""

    def __init__(self, contents: McapContents, reading: _Reading) -> None:
        self.contents = contents
        self.reading = reading
        starts = [min(t.times_ns) for t in reading.topics.values() if t.times_ns]
        ends = [max(t.times_ns) for t in reading.topics.values() if t.times_ns]
        self.origin_ns = min(starts) if starts else 0
        self.end_ns = max(ends) if ends else 0
        self.notes: list[str] = []

    def channels(self) -> dict[str, Channel]:
        channels: dict[str, Channel] = {}
        for topic in self.reading.topics.values():
            table = topic.table
            if table is None or not table.rows:
                continue
            check_budget(
                MEMORY,
                table.bytes_needed(),
                f"topic {topic.info.topic[:80]!r}",
                path=self.contents.path,
            )
            order, play = _play_times(table.times_ns, self.origin_ns)
            values = table.values()[order]
            channels[topic.info.topic] = Channel(
                topic.info.topic,
                play,
                values,
                "",
                topic.info.topic,
                table.columns,
            )
            self.notes.extend(table.notes)
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

    def cameras(self) -> tuple[CameraTrack, ...]:
        topics = self.reading.topics.values()
        calibration_topics = [t for t in topics if t.kind is TopicKind.CALIBRATION]
        cache = _BlockCache(self.contents.path, self.contents.blocks)
        tracks = []
        for topic in topics:
            if topic.kind not in (TopicKind.COMPRESSED_IMAGE, TopicKind.RAW_IMAGE):
                continue
            if not topic.refs:
                continue
            order, play = _play_times(topic.times_ns, self.origin_ns)
            topic.refs = [topic.refs[i] for i in order]
            times_ns = np.asarray(topic.times_ns, dtype=np.int64)[order]
            epochs = _epochs(_camera_calibrations(topic, calibration_topics))
            fetch: Callable[[int], tuple[RGBFrame, Calibration | None]] = _CameraFetch(
                topic, cache, epochs, self.reading.tree, times_ns, self.origin_ns
            )
            tracks.append(CameraTrack(topic.info.topic, play, fetch))
        return tuple(tracks)

    def markers(self) -> tuple[Marker, ...]:
        markers: list[Marker] = []
        for topic in self.reading.topics.values():
            for epoch in _epochs(topic.calibrations)[1:]:
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
        cameras = self.cameras()
        tree = self.reading.tree
        geometry = frames_geometry(tree, self.origin_ns)
        duration = (self.end_ns - self.origin_ns) / 1e9
        samples = [len(c.times_s) for c in channels.values()]
        samples += [len(t.times_s) for t in cameras]
        ticks = max(samples, default=1)
        integrity, reason = self.integrity()
        report = contents_report(self.contents, self.reading, self.notes)
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
