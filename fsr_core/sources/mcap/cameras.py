"""Camera tracks of an MCAP file: frames fetched from their chunk when shown.

Each camera topic becomes a :class:`~fsr_core.recording.CameraTrack` whose
``fetch(i)`` reads the chunk that holds image ``i`` (the last few chunks stay
cached, shared by the cameras of one file), decodes that one message and
returns the frame with the calibration in force: the calibration topic of the
camera's frame (else of its namespace), its pose from the transform tree. A
camera of a file opened from its indexes finds its frames in the message
indexes the first time its frame times, or a frame, are asked for.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration, CalibrationProfile
from fsr_core.errors import DecodeError
from fsr_core.format.safe_open import open_source
from fsr_core.load_once import LoadOnce
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack
from fsr_core.sources.mcap.block_reading import read_block
from fsr_core.sources.mcap.container import Block, BlockMessage
from fsr_core.sources.mcap.message_index import indexed_messages
from fsr_core.sources.mcap.topics import IMAGE_KINDS, ImageRefs, Topic
from fsr_core.sources.toolkit.camera_calibration import (
    CalibrationEpochs,
    Epoch,
    epochs_of,
    matching_calibrations,
)
from fsr_core.sources.toolkit.message_images import image_frame
from fsr_core.sources.toolkit.message_kinds import TopicKind, frame_id_of
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["camera_tracks", "epochs_of"]

_CACHED_BLOCKS: Final = 4


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


def _camera_calibrations(
    image: Topic, calibration_topics: list[Topic]
) -> list[tuple[int, CalibrationProfile, str]]:
    """Return the calibrations of ``image``'s camera: same frame, else namespace."""
    return matching_calibrations(
        image.info.topic,
        image.frame_id,
        {topic.info.topic: topic.calibrations for topic in calibration_topics},
    )


def calibration_epochs(topics: list[Topic]) -> dict[str, list[Epoch]]:
    """Return each camera topic's calibration epochs (none: no calibration found).

    The calibration of a camera is found as its frames find it: the topic of
    the same frame, else of the same namespace.
    """
    calibration_topics = [t for t in topics if t.kind is TopicKind.CALIBRATION]
    return {
        topic.info.topic: epochs_of(_camera_calibrations(topic, calibration_topics))
        for topic in topics
        if topic.kind in IMAGE_KINDS
    }


class _ImageIndex:
    """Where a lazily read camera's images are: read from the message indexes once."""

    def __init__(self, path: Path, topic: Topic) -> None:
        self._path = path
        self._topic = topic
        what = f"the frames of {topic.info.topic[:80]!r}"
        self._refs: LoadOnce[ImageRefs] = LoadOnce(self._read, what=what, path=path)

    def _read(self) -> ImageRefs:
        source = open_source(self._path)
        try:
            found = indexed_messages(
                source, self._path, self._topic.held_in, self._topic.info.channel_id
            )
        finally:
            source.close()
        return ImageRefs.in_time_order(*found)

    def get(self) -> ImageRefs:
        return self._refs.get()


@dataclass(eq=False)
class _CameraFetch:
    """Decode frame ``i`` of one image topic, with the calibration in force."""

    topic: Topic
    refs: Callable[[], ImageRefs]
    cache: _BlockCache
    calibrations: CalibrationEpochs

    def __call__(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        refs = self.refs()
        block, ordinal = int(refs.blocks[index]), int(refs.ordinals[index])
        message = self.cache.message(block, self.topic.info.channel_id, ordinal)
        what = f"topic {self.topic.info.topic[:80]!r}"
        decode = self.topic.decoder.decode
        assert decode is not None
        try:
            tree = decode(message.data)
        except Exception as exc:
            raise DecodeError(f"{what}: the message does not decode: {exc}") from exc
        frame = image_frame(self.topic.kind, tree, what)
        time_ns = int(refs.times_ns[index])
        return frame, self.calibrations.at(
            time_ns, frame_id_of(tree) or self.topic.frame_id
        )


def camera_tracks(
    path: Path,
    blocks: list[Block],
    topics: list[Topic],
    tree: TransformTree,
    origin_ns: int,
) -> tuple[CameraTrack, ...]:
    """Return a track per camera topic with images, frames at their play times.

    A topic read at open has its frames placed; one read later (its blocks
    known, :attr:`Topic.held_in`) finds them in the message indexes the first
    time its frame times or a frame are asked for.
    """
    calibrations = calibration_epochs(topics)
    cache = _BlockCache(path, blocks)
    tracks = []
    for topic in topics:
        if topic.kind not in IMAGE_KINDS:
            continue
        epochs = CalibrationEpochs(
            topic.info.topic, calibrations[topic.info.topic], tree, origin_ns
        )
        refs = topic.image_refs
        if refs is not None:
            fetch = _CameraFetch(topic, _kept(refs), cache, epochs)
            tracks.append(CameraTrack(topic.info.topic, _play(refs, origin_ns), fetch))
        elif topic.held_in:
            index = _ImageIndex(path, topic)
            fetch = _CameraFetch(topic, index.get, cache, epochs)
            tracks.append(
                CameraTrack.lazy(
                    topic.info.topic,
                    functools.partial(_indexed_play, index, origin_ns),
                    fetch,
                    count=topic.info.count,
                    path=path,
                )
            )
    return tuple(tracks)


def _kept(refs: ImageRefs) -> Callable[[], ImageRefs]:
    """Return a getter of references already read."""
    return lambda: refs


def _indexed_play(index: _ImageIndex, origin_ns: int) -> FloatArray:
    """Return the play times of a lazily read camera's images (reads its index)."""
    return _play(index.get(), origin_ns)


def _play(refs: ImageRefs, origin_ns: int) -> FloatArray:
    """Return the play times (s) of a camera's images."""
    play: FloatArray = (refs.times_ns - origin_ns).astype(np.float64) / 1e9
    return play
