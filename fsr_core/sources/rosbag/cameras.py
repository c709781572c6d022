"""Camera tracks of a bag: a frame read and deserialised when it is shown.

Each image topic (``sensor_msgs/Image``, ``CompressedImage``) is a track
whose frames sit at their recorded times. ``fetch(i)`` asks the bag's reader
for the messages of that topic at frame ``i``'s time (the ``n``-th of them
when several share it), deserialises that one and returns it with the
calibration in force (:mod:`fsr_core.sources.toolkit.camera_calibration`).
The tracks of one bag share one reader (:mod:`shared_bag`), so any thread
may fetch. A track opened lazily finds its frame times (a ROS 1 bag's index,
a rosbag2 bag's messages) the first time they, or a frame, are asked for.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import DecodeError, FsrError
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.rosbag.reading import IMAGE_KINDS, BagContents, TopicFacts
from fsr_core.sources.rosbag.shared_bag import SharedBag
from fsr_core.sources.toolkit.camera_calibration import (
    CalibrationEpochs,
    epochs_of,
    matching_calibrations,
)
from fsr_core.sources.toolkit.message_images import image_frame
from fsr_core.sources.toolkit.message_kinds import frame_id_of

__all__ = ["camera_tracks"]


class _FrameTimes:
    """An image topic's frame times, read once when first asked.

    ``get()`` gives the frames' times on the time base (increasing), and for
    each its log time and its rank among the frames of that log time: what
    finds it in the bag.
    """

    def __init__(self, shared: SharedBag, facts: TopicFacts) -> None:
        self._shared = shared
        self._facts = facts
        self._lock = threading.Lock()
        self._found: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if facts.image_times_ns:
            self._found = _placed(
                np.asarray(facts.image_times_ns, dtype=np.int64),
                np.asarray(facts.image_log_ns, dtype=np.int64),
            )

    def get(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with self._lock:
            if self._found is None:
                times = self._shared.topic_times(self._facts.name)
                self._found = (times, times, _ordinals(times))
            return self._found


def _placed(
    times_ns: np.ndarray, log_ns: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort frames read in log order by their times; keep how each is found."""
    ordinals = _ordinals(log_ns)
    order = np.argsort(times_ns, kind="stable")
    return times_ns[order], log_ns[order], ordinals[order]


@dataclass(eq=False)
class _CameraFetch:
    """Decode frame ``i`` of one image topic, with the calibration in force."""

    shared: SharedBag
    facts: TopicFacts
    times: _FrameTimes
    calibrations: CalibrationEpochs

    def __call__(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        times_ns, log_ns, ordinals = self.times.get()
        time_ns = int(times_ns[index])
        bag, msgtype, raw = self.shared.raw_message(
            self.facts.name, int(log_ns[index]), int(ordinals[index])
        )
        what = f"topic {self.facts.name[:80]!r}"
        try:
            tree = plain_tree(bag.types.deserialize(raw, msgtype))
        except FsrError:
            raise
        except Exception as exc:  # noqa: BLE001 - rosbags' SerdeError and kin
            raise DecodeError(
                f"{what}: the message does not deserialise: {exc}"
            ) from None
        frame = image_frame(self.facts.kind, tree, what)
        frame_id = frame_id_of(tree) or self.facts.frame_id
        return frame, self.calibrations.at(time_ns, frame_id)


def _ordinals(times_ns: np.ndarray) -> np.ndarray:
    """Return each time's rank among the equal times before it (0, 0, 1, 0 ...)."""
    ordinals = np.zeros(times_ns.size, dtype=np.int64)
    for index in range(1, times_ns.size):
        if times_ns[index] == times_ns[index - 1]:
            ordinals[index] = ordinals[index - 1] + 1
    return ordinals


def _play(times: _FrameTimes, origin_ns: int) -> FloatArray:
    play: FloatArray = (times.get()[0] - origin_ns).astype(np.float64) / 1e9
    return play


def camera_tracks(
    path: Path, contents: BagContents, shared: SharedBag
) -> tuple[CameraTrack, ...]:
    """Return a track per image topic with messages, frames at their play times.

    A topic read at open has its frames placed; one left for later (a lazy
    open) finds its frame times the first time they, or a frame, are asked for.
    """
    origin_ns = contents.origin_ns
    tracks = []
    for facts in contents.topics.values():
        if facts.kind not in IMAGE_KINDS or facts.messages == 0:
            continue
        samples = matching_calibrations(
            facts.name, facts.frame_id, dict(contents.calibrations)
        )
        epochs = CalibrationEpochs(
            facts.name, epochs_of(samples), contents.tree, origin_ns
        )
        times = _FrameTimes(shared, facts)
        fetch = _CameraFetch(shared, facts, times, epochs)
        if facts.lazy:
            tracks.append(
                CameraTrack.lazy(
                    facts.name,
                    functools.partial(_play, times, origin_ns),
                    fetch,
                    count=facts.messages,
                    path=path,
                )
            )
        else:
            tracks.append(CameraTrack(facts.name, _play(times, origin_ns), fetch))
    return tuple(tracks)
