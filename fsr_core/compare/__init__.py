"""Compare two recordings channel by channel and camera by camera.

:func:`compare_recordings` answers "does it reproduce?": per channel, the
maximum and RMS absolute error, the first time the error exceeds a tolerance,
and whether the values are bit-for-bit equal; per camera, the largest and mean
pixel error, the worst frame's PSNR and the first frame that differs beyond a
pixel tolerance; overall, a verdict and the first divergence. It works on
:class:`~fsr_core.recording.RecordingModel`, so any two sources the viewer
opens (FSR files, skelarm logs) can be compared.
"""

from fsr_core.compare import result
from fsr_core.compare.recordings import compare_recordings
from fsr_core.compare.result import *  # noqa: F403 - the result types, as listed there

__all__ = [*result.__all__, "compare_recordings"]
