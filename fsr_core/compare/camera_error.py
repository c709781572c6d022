"""Compare one camera of the reference with its camera in the candidate.

Each reference frame inside the window meets the candidate frame shown at its
time (the pairing of :mod:`fsr_core.compare.time_base`). Frames are decoded
one at a time and each only once: the reference's in order, the candidate's
kept until the pairing moves on, so memory stays at two frames whatever the
length of the recording.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.compare.result import CameraComparison, CameraStatus, Divergence
from fsr_core.compare.time_base import pair_samples
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack

__all__ = ["FrameError", "compare_camera", "frame_error"]


_PEAK_LEVEL = 255.0
_LEVELS = np.arange(256, dtype=np.float64)


@dataclass(frozen=True)
class FrameError:
    """How far one frame is from another, in 8-bit levels."""

    max_abs: float
    mean_abs: float
    mean_square: float

    @property
    def psnr_db(self) -> float:
        """Peak signal-to-noise ratio in decibels (``inf`` for equal frames)."""
        if self.mean_square == 0:
            return math.inf
        return 10.0 * math.log10(_PEAK_LEVEL**2 / self.mean_square)


_EQUAL = FrameError(0.0, 0.0, 0.0)


def frame_error(reference: RGBFrame, candidate: RGBFrame) -> FrameError:
    """Return the absolute pixel error of ``candidate`` against ``reference``.

    Parameters
    ----------
    reference, candidate
        Frames of the same shape.

    Returns
    -------
    FrameError
        The largest and the mean absolute difference over every pixel and
        colour, and the mean squared difference (for the PSNR).

    Raises
    ------
    ValueError
        The frames differ in shape.
    """
    ours, theirs = reference.pixels, candidate.pixels
    if ours.shape != theirs.shape:
        raise ValueError(f"frame shapes differ: {ours.shape} and {theirs.shape}")
    if np.array_equal(ours, theirs):
        return _EQUAL
    # |a - b| in uint8 without overflow, then a histogram of the 256 levels:
    # every figure follows from it exactly, with one pass over the pixels.
    difference = np.maximum(ours, theirs)
    difference -= np.minimum(ours, theirs)
    counts = np.bincount(difference.ravel(), minlength=_LEVELS.size)
    return FrameError(
        max_abs=float(np.flatnonzero(counts)[-1]),
        mean_abs=float(counts @ _LEVELS) / difference.size,
        mean_square=float(counts @ np.square(_LEVELS)) / difference.size,
    )


def _size(frame: RGBFrame) -> tuple[int, int]:
    height, width = frame.pixels.shape[:2]
    return int(width), int(height)


def _frame_pairs(
    reference: CameraTrack,
    candidate: CameraTrack,
    reference_idx: npt.NDArray[np.intp],
    candidate_idx: npt.NDArray[np.intp],
) -> Iterator[tuple[RGBFrame, RGBFrame]]:
    """Yield the paired frames, decoding each candidate frame once."""
    shown_index, shown = -1, None
    for ours, theirs in zip(
        reference_idx.tolist(), candidate_idx.tolist(), strict=True
    ):
        if theirs != shown_index or shown is None:
            shown_index, shown = theirs, candidate.fetch(theirs)[0]
        yield reference.fetch(ours)[0], shown


def _frozen(values: list[float]) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    array.setflags(write=False)
    return array


def _same_times(reference: CameraTrack, candidate: CameraTrack) -> bool:
    ours = np.asarray(reference.times_s, dtype=np.float64)
    theirs = np.asarray(candidate.times_s, dtype=np.float64)
    return ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes()


def compare_camera(
    reference: CameraTrack,
    candidate: CameraTrack,
    *,
    window_s: tuple[float, float],
    pixel_tolerance: float,
) -> CameraComparison:
    """Compare ``candidate``'s frames with ``reference``'s inside ``window_s``.

    Parameters
    ----------
    reference, candidate
        The camera tracks (the reference gives the frame times).
    window_s
        The play-time span both recordings cover, closed.
    pixel_tolerance
        The largest absolute pixel error accepted, in levels (0 to 255).

    Returns
    -------
    CameraComparison
        ``SIZE_MISMATCH`` (and nothing compared) when a paired frame differs
        in width or height; ``NO_OVERLAP`` when no frame pairs.

    Raises
    ------
    FsrError
        A frame cannot be read or decoded (the source's own error).
    """
    times = np.asarray(reference.times_s, dtype=np.float64)
    base = CameraComparison(
        name=reference.name,
        status=CameraStatus.NO_OVERLAP,
        reference_frames=len(times),
        candidate_frames=len(candidate.times_s),
        candidate_name=candidate.name,
    )
    reference_idx, candidate_idx = pair_samples(
        times, np.asarray(candidate.times_s, dtype=np.float64), window_s
    )
    if not len(reference_idx):
        return base
    errors: list[FrameError] = []
    for ours, theirs in _frame_pairs(
        reference, candidate, reference_idx, candidate_idx
    ):
        if ours.pixels.shape != theirs.pixels.shape:
            return replace(
                base,
                status=CameraStatus.SIZE_MISMATCH,
                size=_size(ours),
                candidate_size=_size(theirs),
            )
        if not errors:
            base = replace(base, size=_size(ours), candidate_size=_size(theirs))
        errors.append(frame_error(ours, theirs))
    judged = _judged(base, times[reference_idx], errors, pixel_tolerance)
    if judged.exact and not _same_times(reference, candidate):
        return replace(judged, exact=False)
    return judged


def _judged(
    base: CameraComparison,
    times_s: FloatArray,
    errors: list[FrameError],
    pixel_tolerance: float,
) -> CameraComparison:
    """Return ``base`` with the figures of the compared frames filled in."""
    largest = [error.max_abs for error in errors]
    exceeding = [i for i, value in enumerate(largest) if value > pixel_tolerance]
    first = None
    if exceeding:
        at = exceeding[0]
        first = Divergence(
            channel=base.name,
            time_s=float(times_s[at]),
            error=largest[at],
            kind="camera",
        )
    # Exact needs every frame of both sides compared (frame times: the caller).
    every_frame = len(errors) == base.reference_frames == base.candidate_frames
    return replace(
        base,
        status=CameraStatus.COMPARED,
        frames_compared=len(errors),
        max_abs_error=max(largest),
        mean_abs_error=float(np.mean([error.mean_abs for error in errors])),
        min_psnr_db=min(error.psnr_db for error in errors),
        first_exceed=first,
        exact=every_frame and max(largest) == 0 and base.reference_frames > 0,
        within_tolerance=first is None,
        error_times_s=_frozen(times_s.tolist()),
        errors=_frozen(largest),
        mean_errors=_frozen([error.mean_abs for error in errors]),
    )
