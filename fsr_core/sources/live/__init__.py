"""Follow a recording while its writer appends to it.

A *follower* (:mod:`fsr_core.sources.live.follower`) reads only the bytes
appended since its last poll, never locks or writes the file, and hands what
it read to a growing model (:mod:`fsr_core.sources.live.growing`). One
follower per source, named in :data:`~fsr_core.sources.live.table.FOLLOWERS`
by module string (the table imports no source package).
"""

from fsr_core.sources.live.follower import (
    Appended,
    Follower,
    FollowState,
    FollowStatus,
)
from fsr_core.sources.live.growing import GrowingCamera, GrowingChannel, LiveRecording
from fsr_core.sources.live.snapshot import live_model
from fsr_core.sources.live.table import (
    FOLLOWERS,
    QUIET_S,
    follow_recording,
    follow_target,
    still_being_written,
)

__all__ = [
    "FOLLOWERS",
    "QUIET_S",
    "Appended",
    "FollowState",
    "FollowStatus",
    "Follower",
    "GrowingCamera",
    "GrowingChannel",
    "LiveRecording",
    "follow_recording",
    "follow_target",
    "live_model",
    "still_being_written",
]
