"""Compare two recordings channel by channel on a common time base.

:func:`compare_recordings` answers "does it reproduce?": per channel, the
maximum and RMS absolute error, the first time the error exceeds a tolerance,
and whether the values are bit-for-bit equal; overall, a verdict and the first
divergence. It works on :class:`~fsr_core.recording.RecordingModel`, so any
two sources the viewer opens (FSR files, skelarm logs) can be compared.
"""

from fsr_core.compare.recordings import compare_recordings
from fsr_core.compare.result import (
    ChannelComparison,
    ChannelStatus,
    Comparison,
    Divergence,
    RecordingSummary,
)

__all__ = [
    "ChannelComparison",
    "ChannelStatus",
    "Comparison",
    "Divergence",
    "RecordingSummary",
    "compare_recordings",
]
