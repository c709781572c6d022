"""Camera tracks of a bag: a frame read and deserialised when it is shown.

Each image topic (``sensor_msgs/Image``, ``CompressedImage``) is a track
whose frames sit at their recorded times. ``fetch(i)`` asks the bag's reader
for the messages of that topic at frame ``i``'s time (the ``n``-th of them
when several share it), deserialises that one and returns it with the
calibration in force (:mod:`fsr_core.sources.toolkit.camera_calibration`).
The tracks of one bag share one reader, opened at the first fetch and used
under a lock, so any thread may fetch.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import DecodeError, FsrError
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack
from fsr_core.sources.rosbag.bag_files import OpenBag, open_bag
from fsr_core.sources.rosbag.plain_tree import plain_tree
from fsr_core.sources.rosbag.reading import IMAGE_KINDS, BagContents, TopicFacts
from fsr_core.sources.toolkit.camera_calibration import (
    CalibrationEpochs,
    epochs_of,
    matching_calibrations,
)
from fsr_core.sources.toolkit.message_images import image_frame
from fsr_core.sources.toolkit.message_kinds import frame_id_of

__all__ = ["SharedBag", "camera_tracks"]


class SharedBag:
    """One bag reader for the camera tracks of a model, opened when first needed."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._bag: OpenBag | None = None

    def raw_message(
        self, topic: str, time_ns: int, ordinal: int
    ) -> tuple[OpenBag, str, bytes]:
        """Return the bag, the message type and the bytes of one message.

        Raises
        ------
        FsrError
            The bag no longer opens, or the message is gone (the file changed).
        """
        with self._lock:
            if self._bag is None:
                self._bag = open_bag(self._path)
                # Closed with the tracks that share it (never left to the GC).
                weakref.finalize(self, self._bag.close)
            bag = self._bag
            chosen = [c for c in bag.connections if c.topic == topic]
            found = 0
            try:
                for connection, _, raw in bag.messages(chosen, time_ns, time_ns + 1):
                    if found == ordinal:
                        return bag, connection.msgtype, bytes(raw)
                    found += 1
            except FsrError:
                raise
            except Exception as exc:  # noqa: BLE001 - rosbags, apsw, lz4
                raise DecodeError(
                    f"topic {topic[:80]!r}: the message is unreadable: {exc}",
                    path=self._path,
                ) from None
        raise DecodeError(
            f"topic {topic[:80]!r}: no message at {time_ns} ns (the file changed)",
            path=self._path,
        )


@dataclass(eq=False)
class _CameraFetch:
    """Decode frame ``i`` of one image topic, with the calibration in force."""

    shared: SharedBag
    facts: TopicFacts
    times_ns: np.ndarray
    ordinals: np.ndarray
    calibrations: CalibrationEpochs

    def __call__(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        time_ns = int(self.times_ns[index])
        bag, msgtype, raw = self.shared.raw_message(
            self.facts.name, time_ns, int(self.ordinals[index])
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


def camera_tracks(
    path: Path, contents: BagContents, shared: SharedBag
) -> tuple[CameraTrack, ...]:
    """Return a track per image topic with messages, frames at their play times."""
    origin_ns = contents.origin_ns
    tracks = []
    for facts in contents.topics.values():
        if facts.kind not in IMAGE_KINDS or not facts.image_times_ns:
            continue
        times = np.asarray(facts.image_times_ns, dtype=np.int64)
        samples = matching_calibrations(
            facts.name, facts.frame_id, dict(contents.calibrations)
        )
        epochs = CalibrationEpochs(
            facts.name, epochs_of(samples), contents.tree, origin_ns
        )
        fetch = _CameraFetch(shared, facts, times, _ordinals(times), epochs)
        play: FloatArray = (times - origin_ns).astype(np.float64) / 1e9
        tracks.append(CameraTrack(facts.name, play, fetch))
    return tuple(tracks)
