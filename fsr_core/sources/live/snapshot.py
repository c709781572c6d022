"""A :class:`~fsr_core.recording.RecordingModel` of what a follower has read so far.

Building one costs a few objects per channel, not a copy: each channel holds
views of its growing arrays' filled rows (rows only ever added after them,
so the views never change under a reader), each camera its frame times and
a fetch that reads the frame from the file. The window swaps such a model in
at every growth; its integrity stays "not verified", its reason the
follower's state, until the finished file is opened and checked once.
"""

from __future__ import annotations

from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    Integrity,
    RecordingModel,
    Segment,
    Timeline,
)
from fsr_core.sources.live.follower import Follower
from fsr_core.sources.live.growing import GrowingCamera

__all__ = ["live_model"]


def _track(camera: GrowingCamera) -> CameraTrack:
    def fetch(index: int) -> tuple[RGBFrame, None]:
        return camera.frame(index), None

    return CameraTrack(camera.name, camera.times_s, fetch)


def live_model(follower: Follower) -> RecordingModel:
    """Return the model of everything ``follower`` has read (take its lock)."""
    live = follower.model
    with live.lock:
        channels = {
            name: Channel(
                name,
                channel.times_s,
                channel.values,
                channel.unit,
                columns=channel.columns,
            )
            for name, channel in live.channels.items()
            if channel.count
        }
        cameras = tuple(
            _track(camera) for camera in live.cameras.values() if camera.count
        )
        end_s = max(live.end_s or 0.0, 0.0)
        origin = live.origin_s or 0.0
    timeline = Timeline((Segment(0, 0.0, end_s, origin, 0, 0),))
    status = follower.status
    return RecordingModel(
        path=follower.path,
        source=follower.source,
        title=follower.shown_name(),
        timeline=timeline,
        channels=channels,
        cameras=cameras,
        integrity=Integrity.UNVERIFIED,
        integrity_reason=status.message,
        metadata={"live": status.state.value},
    )
