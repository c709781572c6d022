"""What a comparison of two recordings finds: per channel, and overall.

All times are on the *reference's* play-time axis (seconds), the axis the
viewer's timeline shows, so a divergence can be marked on it directly.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray

__all__ = [
    "CameraComparison",
    "CameraStatus",
    "ChannelComparison",
    "ChannelStatus",
    "Comparison",
    "Divergence",
    "RecordingSummary",
]


def _no_series() -> FloatArray:
    empty: FloatArray = np.zeros(0)
    empty.setflags(write=False)
    return empty


class ChannelStatus(enum.Enum):
    """Whether a channel present on both sides could be compared."""

    COMPARED = "compared"
    UNIT_MISMATCH = "unit_mismatch"
    """The units differ: the values are not compared."""
    COLUMN_MISMATCH = "column_mismatch"
    """The number or names of the columns differ: the values are not compared."""
    NO_OVERLAP = "no_overlap"
    """No reference sample falls where the candidate has data."""


class CameraStatus(enum.Enum):
    """Whether a camera present on both sides could be compared."""

    COMPARED = "compared"
    SIZE_MISMATCH = "size_mismatch"
    """The frames differ in width or height: the pixels are not compared."""
    NO_OVERLAP = "no_overlap"
    """No reference frame falls where the candidate has frames."""


@dataclass(frozen=True)
class Divergence:
    """Where a channel's error (or a camera's pixel error) first exceeds its tolerance.

    ``kind`` says what ``channel`` names: ``"channel"``, or ``"camera"`` when
    the divergence is a frame whose largest pixel error, in 8-bit levels
    (``error``), exceeds the pixel tolerance.
    """

    channel: str
    time_s: float
    error: float
    column: str = ""
    kind: str = "channel"

    @property
    def is_camera(self) -> bool:
        """Whether a camera frame diverges (else a channel's sample)."""
        return self.kind == "camera"

    def to_json(self) -> dict[str, Any]:
        """Return the divergence as JSON-ready values."""
        return {
            "channel": self.channel,
            "column": self.column,
            "time_s": self.time_s,
            "error": _number(self.error),
            "kind": self.kind,
        }


class _Verdict:
    """What a channel and a camera comparison say alike: the first divergence.

    Subclasses are dataclasses with these four fields.
    """

    status: ChannelStatus | CameraStatus
    exact: bool
    within_tolerance: bool
    first_exceed: Divergence | None

    @property
    def first_exceed_s(self) -> float | None:
        """Play time at which the error first exceeds the tolerance, if it does.

        For a camera, the time of the first frame whose error exceeds it.
        """
        return None if self.first_exceed is None else self.first_exceed.time_s

    @property
    def verdict(self) -> str:
        """One word for a table: exact, within, diverges, or why not compared."""
        if self.status.value != "compared":
            return str(self.status.value).replace("_", " ")
        if self.exact:
            return "exact"
        return "within" if self.within_tolerance else "diverges"


@dataclass(frozen=True, eq=False)
class ChannelComparison(_Verdict):
    """One channel of the reference against the same-named channel of the candidate.

    ``max_abs_error`` and ``rms_error`` are taken over every column of every
    compared sample (``nan`` when nothing was compared; ``inf`` where one side
    holds NaN and the other a number). ``error_times_s`` / ``errors`` give the
    error series: per compared sample, the largest absolute error of its columns.
    """

    name: str
    unit: str
    candidate_unit: str
    status: ChannelStatus
    reference_samples: int
    candidate_samples: int
    columns: tuple[str, ...] = ()
    candidate_columns: tuple[str, ...] = ()
    samples_compared: int = 0
    max_abs_error: float = math.nan
    rms_error: float = math.nan
    worst_column: str = ""
    first_exceed: Divergence | None = None
    exact: bool = False
    within_tolerance: bool = False
    error_times_s: FloatArray = field(default_factory=_no_series, repr=False)
    errors: FloatArray = field(default_factory=_no_series, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Return the channel's figures as JSON-ready values (no series)."""
        return {
            "name": self.name,
            "unit": self.unit,
            "candidate_unit": self.candidate_unit,
            "status": self.status.value,
            "columns": list(self.columns),
            "candidate_columns": list(self.candidate_columns),
            "reference_samples": self.reference_samples,
            "candidate_samples": self.candidate_samples,
            "samples_compared": self.samples_compared,
            "max_abs_error": _number(self.max_abs_error),
            "rms_error": _number(self.rms_error),
            "worst_column": self.worst_column,
            "first_exceed_s": self.first_exceed_s,
            "first_exceed_column": (
                None if self.first_exceed is None else self.first_exceed.column
            ),
            "exact": self.exact,
            "within_tolerance": self.within_tolerance,
        }


@dataclass(frozen=True, eq=False)
class CameraComparison(_Verdict):
    """One camera of the reference against its camera in the candidate.

    The candidate's camera has the same name, or is the one a replay says
    renders this camera again (:attr:`candidate_name`; see
    :func:`~fsr_core.compare.selection.camera_pairs`).

    Frames are compared at the reference's frame times; the candidate's frame
    is the one shown then. Errors are absolute differences of 8-bit channel
    values ("levels", 0 to 255). ``max_abs_error`` is the largest over every
    compared frame, ``mean_abs_error`` the mean over every compared pixel and
    colour, ``min_psnr_db`` the worst frame's peak signal-to-noise ratio
    (``inf`` when every frame is equal; all ``nan`` when nothing was
    compared). ``error_times_s`` / ``errors`` / ``mean_errors`` give, per
    compared frame, its largest and its mean error, for plotting.
    """

    name: str
    """The reference's name of the camera."""
    status: CameraStatus
    reference_frames: int
    candidate_frames: int
    size: tuple[int, int] = (0, 0)
    """Width and height of the reference's frames (0, 0 when none was decoded)."""
    candidate_size: tuple[int, int] = (0, 0)
    frames_compared: int = 0
    max_abs_error: float = math.nan
    mean_abs_error: float = math.nan
    min_psnr_db: float = math.nan
    first_exceed: Divergence | None = None
    exact: bool = False
    within_tolerance: bool = False
    error_times_s: FloatArray = field(default_factory=_no_series, repr=False)
    errors: FloatArray = field(default_factory=_no_series, repr=False)
    mean_errors: FloatArray = field(default_factory=_no_series, repr=False)
    candidate_name: str = ""
    """The candidate's name of the camera ('' or :attr:`name`: the same)."""

    @property
    def paired_name(self) -> str:
        """Say which cameras met: ``name``, or ``name ~ candidate name``."""
        other = self.candidate_name
        return self.name if other in ("", self.name) else f"{self.name} ~ {other}"

    def to_json(self) -> dict[str, Any]:
        """Return the camera's figures as JSON-ready values (no series).

        A camera paired under another name in the candidate also gives that
        name, ``candidate_name``.
        """
        paired = self.candidate_name not in ("", self.name)
        return {
            "name": self.name,
            **({"candidate_name": self.candidate_name} if paired else {}),
            "status": self.status.value,
            "size": list(self.size),
            "candidate_size": list(self.candidate_size),
            "reference_frames": self.reference_frames,
            "candidate_frames": self.candidate_frames,
            "frames_compared": self.frames_compared,
            "max_abs_error": _number(self.max_abs_error),
            "mean_abs_error": _number(self.mean_abs_error),
            "min_psnr_db": _number(self.min_psnr_db),
            "first_exceed_s": self.first_exceed_s,
            "exact": self.exact,
            "within_tolerance": self.within_tolerance,
        }


@dataclass(frozen=True)
class RecordingSummary:
    """The size of one side of a comparison."""

    path: str
    duration_s: float
    generations: int

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready values."""
        return {
            "path": self.path,
            "duration_s": self.duration_s,
            "generations": self.generations,
        }


@dataclass(frozen=True, eq=False)
class Comparison:
    """The verdict of :func:`~fsr_core.compare.compare_recordings`.

    ``within_tolerance`` holds when every channel present on both sides was
    compared (no unit or column mismatch, some overlap) and stayed within the
    tolerance, and every camera present on both sides was compared (same
    frame size, some overlap) and stayed within the pixel tolerance.
    ``exact`` holds when, in addition, both recordings have the same channels
    and cameras, every channel has bit-for-bit the same sample times and
    values, and every camera the same frame times and pixels. Durations,
    generation counts, sample and frame counts that differ are listed in
    ``notes`` (a shorter candidate is judged on the overlap only).
    ``first_divergence`` is the earliest over channels and cameras (at equal
    times, a channel before a camera).
    """

    reference: RecordingSummary
    candidate: RecordingSummary
    tolerance: float
    channels: tuple[ChannelComparison, ...]
    only_in_reference: tuple[str, ...]
    only_in_candidate: tuple[str, ...]
    within_tolerance: bool
    exact: bool
    first_divergence: Divergence | None
    overlap_s: tuple[float, float]
    notes: tuple[str, ...] = ()
    cameras: tuple[CameraComparison, ...] = ()
    cameras_only_in_reference: tuple[str, ...] = ()
    cameras_only_in_candidate: tuple[str, ...] = ()
    pixel_tolerance: float = 0.0

    @property
    def compared_exact(self) -> bool:
        """Whether every compared channel and camera is bit-for-bit the same.

        Unlike ``exact``, names on one side only and notes do not count: a
        re-render, which writes cameras and no channels, has identical frames
        when this holds and no channel was compared.
        """
        if not self.channels and not self.cameras:
            return False
        return all(c.exact for c in self.channels) and all(
            c.exact for c in self.cameras
        )

    def camera(self, name: str) -> CameraComparison:
        """Return the comparison of camera ``name`` (KeyError when not compared)."""
        for camera in self.cameras:
            if camera.name == name:
                return camera
        raise KeyError(name)

    def channel(self, name: str) -> ChannelComparison:
        """Return the comparison of channel ``name`` (KeyError when not compared)."""
        for channel in self.channels:
            if channel.name == name:
                return channel
        raise KeyError(name)

    def error_series(self, name: str) -> tuple[FloatArray, FloatArray]:
        """Return ``(times_s, errors)`` of channel ``name`` for an error plot.

        Times are reference play times; each error is the largest absolute
        error of the sample's columns. Empty when the channel was not compared.
        """
        channel = self.channel(name)
        return channel.error_times_s, channel.errors

    def to_json(self) -> dict[str, Any]:
        """Return the whole comparison with stable keys (``compare --json``)."""
        return {
            "reference": self.reference.to_json(),
            "candidate": self.candidate.to_json(),
            "tolerance": self.tolerance,
            "within_tolerance": self.within_tolerance,
            "exact": self.exact,
            "first_divergence": (
                None
                if self.first_divergence is None
                else self.first_divergence.to_json()
            ),
            "overlap_s": list(self.overlap_s),
            "channels": [channel.to_json() for channel in self.channels],
            "only_in_reference": list(self.only_in_reference),
            "only_in_candidate": list(self.only_in_candidate),
            "notes": list(self.notes),
            "pixel_tolerance": self.pixel_tolerance,
            "cameras": [camera.to_json() for camera in self.cameras],
            "cameras_only_in_reference": list(self.cameras_only_in_reference),
            "cameras_only_in_candidate": list(self.cameras_only_in_candidate),
        }


def _number(value: float) -> float | str | None:
    """JSON has no inf or nan: infinity is written ``"inf"``, nothing as null."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value
