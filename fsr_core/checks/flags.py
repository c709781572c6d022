"""What a check finds (a :class:`Flag`) and what one recording gives (a result).

A flag is one finding: its :class:`FlagKind`, the channel or camera it is in,
the play-time span, the measured value and the threshold it crossed, and a
sentence saying so. Everything here is a frozen value that turns into JSON
and back (the batch report's lines, the window's overlay of them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from fsr_core.arrays import FloatArray

__all__ = [
    "DATASET_KINDS",
    "ERROR_KINDS",
    "CheckResult",
    "EpisodeMetrics",
    "Flag",
    "FlagKind",
]


class FlagKind(StrEnum):
    """What a flag says is wrong (docs/checks.md says how each is found)."""

    LENGTH_OUTLIER = "length_outlier"
    TIMESTAMP_GAP = "timestamp_gap"
    TIMESTAMP_DISORDER = "timestamp_disorder"
    VIDEO_DESYNC = "video_desync"
    FROZEN_VIDEO = "frozen_video"
    NON_FINITE = "non_finite"
    JERK = "jerk"
    STATIC = "static"
    END_POSE_OUTLIER = "end_pose_outlier"
    ACTION_STATE_OFFSET = "action_state_offset"
    LIMIT_VIOLATION = "limit_violation"


DATASET_KINDS: Final = frozenset(
    {
        FlagKind.LENGTH_OUTLIER,
        FlagKind.JERK,
        FlagKind.STATIC,
        FlagKind.END_POSE_OUTLIER,
    }
)
"""Kinds found by comparing a recording with the others of its dataset."""

ERROR_KINDS: Final = frozenset(
    {
        FlagKind.TIMESTAMP_GAP,
        FlagKind.TIMESTAMP_DISORDER,
        FlagKind.VIDEO_DESYNC,
        FlagKind.NON_FINITE,
    }
)
"""Kinds that make a file invalid (``inspect --verify`` reports them)."""


def _number(value: float | None) -> float | None:
    """Return ``value`` rounded for a report, ``None`` for nothing or non-finite."""
    if value is None or not math.isfinite(value):
        return None
    return float(f"{value:.6g}")


@dataclass(frozen=True)
class Flag:
    """One finding of a check."""

    kind: FlagKind
    channel: str
    """The channel or camera it is in ('' for the recording as a whole)."""
    start_s: float
    """Where it starts, in play time (seconds from the recording's start)."""
    end_s: float
    value: float | None
    """What was measured (its unit is the threshold's, docs/checks.md)."""
    threshold: float | None
    """The limit the value crossed."""
    message: str = ""

    @classmethod
    def over(
        cls,
        kind: FlagKind,
        channel: str,
        times_s: FloatArray,
        first: int,
        last: int,
        value: float | None,
        threshold: float | None,
        message: str,
    ) -> Flag:
        """Return a flag spanning samples ``first`` to ``last`` of ``times_s``."""
        start_s, end_s = float(times_s[first]), float(times_s[last])
        return cls(kind, channel, start_s, end_s, value, threshold, message)

    def to_json(self) -> dict[str, Any]:
        """Return the flag as the report writes it."""
        return {
            "kind": self.kind.value,
            "channel": self.channel,
            "start_s": _number(self.start_s),
            "end_s": _number(self.end_s),
            "value": _number(self.value),
            "threshold": _number(self.threshold),
            "message": self.message,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Flag:
        """Return the flag :meth:`to_json` wrote."""
        return cls(
            FlagKind(data["kind"]),
            str(data.get("channel", "")),
            float(data.get("start_s") or 0.0),
            float(data.get("end_s") or 0.0),
            None if data.get("value") is None else float(data["value"]),
            None if data.get("threshold") is None else float(data["threshold"]),
            str(data.get("message", "")),
        )


@dataclass(frozen=True)
class EpisodeMetrics:
    """What one recording measures, for the dataset-level comparisons.

    A value the recording has nothing for (no joints, too few frames) is
    ``None``.
    """

    duration_s: float
    frames: int
    """Samples of the joint (state) channel, else of the longest channel."""
    jerk_median: float | None = None
    """Median over frames of the joint jerk's norm (rad/s^3 or m/s^3)."""
    jerk_p95: float | None = None
    jerk_peak_s: float | None = None
    """When the jerk is largest (play time)."""
    static_fraction: float | None = None
    """Share of frames where the joints move slower than ``still_speed``."""
    end_state: tuple[float, ...] | None = None
    """The last finite joint positions, in radians and metres."""
    state_channel: str = ""
    """The channel the motion figures come from ('' without joints)."""
    extra: dict[str, float] = field(default_factory=dict)
    """Further figures (per-camera frame counts, decode rates)."""

    def to_json(self) -> dict[str, Any]:
        """Return the metrics as the report writes them."""
        return {
            "duration_s": _number(self.duration_s),
            "frames": self.frames,
            "jerk_median": _number(self.jerk_median),
            "jerk_p95": _number(self.jerk_p95),
            "jerk_peak_s": _number(self.jerk_peak_s),
            "static_fraction": _number(self.static_fraction),
            "state_channel": self.state_channel,
            "end_state": None
            if self.end_state is None
            else [_number(value) for value in self.end_state],
            **{key: _number(value) for key, value in self.extra.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EpisodeMetrics:
        """Return the metrics :meth:`to_json` wrote (``--resume`` reads them)."""
        known = {
            "duration_s",
            "frames",
            "jerk_median",
            "jerk_p95",
            "jerk_peak_s",
            "static_fraction",
            "end_state",
            "state_channel",
        }

        def number(key: str) -> float | None:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else None

        end = data.get("end_state")
        return cls(
            duration_s=number("duration_s") or 0.0,
            frames=int(data.get("frames") or 0),
            jerk_median=number("jerk_median"),
            jerk_p95=number("jerk_p95"),
            jerk_peak_s=number("jerk_peak_s"),
            static_fraction=number("static_fraction"),
            end_state=None
            if not isinstance(end, list)
            else tuple(math.nan if v is None else float(v) for v in end),
            state_channel=str(data.get("state_channel") or ""),
            extra={
                key: float(value)
                for key, value in data.items()
                if key not in known and isinstance(value, int | float)
            },
        )


@dataclass(frozen=True)
class CheckResult:
    """The checks of one recording (or dataset episode)."""

    recording: str
    """Its address (a file, or ``<root>/episode_000003``)."""
    episode: int | None
    """Its episode index where it has one."""
    metrics: EpisodeMetrics
    flags: tuple[Flag, ...] = ()

    def with_flags(self, more: tuple[Flag, ...]) -> CheckResult:
        """Return the result with ``more`` flags after its own."""
        return CheckResult(
            self.recording, self.episode, self.metrics, self.flags + more
        )

    def to_json(self) -> dict[str, Any]:
        """Return ``recording``, ``episode``, ``metrics`` and ``flags``."""
        return {
            "recording": self.recording,
            "episode": self.episode,
            "metrics": self.metrics.to_json(),
            "flags": [flag.to_json() for flag in self.flags],
        }
