"""What a replay (or Compare with…) hands to the window, and how it is said.

:class:`ComparisonReport` holds both recordings as the window opens them, the
comparison of the candidate with the reference, and, after a replay, the
engine's result. The texts here are plain strings: a short verdict for the
status bar and the comparison dock, and key/value rows for the inspector.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from app.window.widgets.plain_text import visible_text
from fsr_core.compare import (
    CameraComparison,
    CameraStatus,
    ChannelComparison,
    Comparison,
    Divergence,
)
from fsr_core.recording import RecordingModel
from fsr_core.simulation.protocol import ReplayMode, ReplayResult

__all__ = ["ComparisonReport", "inspector_lines", "status_text", "verdict_text"]


@dataclass(frozen=True, eq=False)
class ComparisonReport:
    """A reference recording, a candidate, and how far the candidate strays."""

    reference: RecordingModel
    """The recorded file (the time base of the comparison)."""
    candidate: RecordingModel
    """The replayed file (or the one picked with Compare with…)."""
    comparison: Comparison | None
    """``None`` when the two could not be compared (see ``problem``)."""
    problem: str = ""
    """Why there is no comparison (e.g. a render replay has no channels)."""
    replay: ReplayResult | None = None
    """The engine's result when the candidate is a replay."""

    @property
    def paths(self) -> tuple[Path, Path]:
        """The reference's and the candidate's files."""
        return self.reference.path, self.candidate.path

    def involves(self, path: Path) -> bool:
        """Whether ``path`` is one side of this comparison."""
        resolved = path.resolve()
        return any(side.resolve() == resolved for side in self.paths)

    @property
    def candidate_label(self) -> str:
        """What the candidate is called in legends: replayed, or its file name."""
        return "replayed" if self.replay is not None else self.candidate.path.name

    @property
    def is_rerender(self) -> bool:
        """Whether the candidate is a re-render of the reference."""
        return self.replay is not None and self.replay.mode is ReplayMode.RENDER


def _number(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


def _frames_identical(report: ComparisonReport, comparison: Comparison) -> str:
    frames = sum(camera.frames_compared for camera in comparison.cameras)
    what = "re-rendered frames" if report.is_rerender else "camera frames"
    return f"{what} are identical ({frames} frames, bit for bit)"


def _within_text(report: ComparisonReport, comparison: Comparison) -> str:
    if not comparison.channels and comparison.compared_exact:
        return _frames_identical(report, comparison)
    parts = []
    if comparison.channels:
        worst = max(channel.max_abs_error for channel in comparison.channels)
        parts.append(
            f"within tolerance {comparison.tolerance:g} "
            f"(largest error {_number(worst)})"
        )
    if comparison.cameras:
        worst = max(camera.max_abs_error for camera in comparison.cameras)
        parts.append(
            f"frames within {comparison.pixel_tolerance:g} levels "
            f"(largest pixel error {_number(worst)})"
        )
    return "; ".join(parts)


def _not_comparable_text(comparison: Comparison) -> str:
    agreeing = ("exact", "within")
    mismatched = [c.name for c in comparison.channels if c.verdict not in agreeing]
    mismatched += [c.name for c in comparison.cameras if c.verdict not in agreeing]
    names = visible_text(", ".join(mismatched))
    what = "units or columns" if not comparison.cameras else "units, columns or sizes"
    return f"not comparable: {names} ({what} differ)"


def _divergence_text(divergence: Divergence, comparison: Comparison) -> str:
    if divergence.is_camera:
        return (
            f"frame differs from t={divergence.time_s:.3f} s in camera "
            f"{visible_text(divergence.channel)} "
            f"(max {_number(divergence.error)} levels)"
        )
    column = f" ({visible_text(divergence.column)})" if divergence.column else ""
    return (
        f"diverges at {divergence.time_s:.3f} s in "
        f"{visible_text(divergence.channel)}{column}, "
        f"error {_number(divergence.error)} > {comparison.tolerance:g}"
    )


def verdict_text(report: ComparisonReport) -> str:
    """Return the verdict in a few words.

    "reproduces exactly", "re-rendered frames are identical", "within
    tolerance …", "diverges at t s in channel (column)", "frame differs from
    t=… s in camera … (max N levels)", or why nothing was compared.
    """
    comparison = report.comparison
    if comparison is None:
        return f"not compared: {report.problem}"
    if comparison.exact:
        if comparison.cameras:
            return "reproduces exactly (every channel and camera frame bit for bit)"
        return "reproduces exactly (every channel bit for bit)"
    if comparison.within_tolerance:
        return _within_text(report, comparison)
    divergence = comparison.first_divergence
    if divergence is None:
        return _not_comparable_text(comparison)
    return _divergence_text(divergence, comparison)


def status_text(report: ComparisonReport) -> str:
    """Return the status bar line: which file against which, and the verdict."""
    candidate = visible_text(report.candidate.path.name)
    reference = visible_text(report.reference.path.name)
    return f"{candidate} vs {reference}: {verdict_text(report)}"


def _channel_text(channel: ChannelComparison) -> str:
    unit = f" {channel.unit}" if channel.unit else ""
    if channel.verdict in ("exact", "within", "diverges"):
        text = (
            f"{channel.verdict}: max {_number(channel.max_abs_error)}{unit}, "
            f"RMS {_number(channel.rms_error)}{unit}"
        )
        if channel.first_exceed is not None:
            column = channel.first_exceed.column
            where = f" ({column})" if column else ""
            text += f", first exceeds at {channel.first_exceed.time_s:.3f} s{where}"
        return text
    return channel.verdict


def _decibels(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.1f} dB"


def _camera_text(camera: CameraComparison) -> str:
    if camera.status is CameraStatus.SIZE_MISMATCH:
        (width, height), (other_w, other_h) = camera.size, camera.candidate_size
        return f"size mismatch: {width}x{height} vs {other_w}x{other_h}"
    if camera.status is not CameraStatus.COMPARED:
        return camera.verdict
    text = (
        f"{camera.verdict}: {camera.frames_compared} frames, "
        f"max {_number(camera.max_abs_error)} levels, "
        f"mean {_number(camera.mean_abs_error)}, "
        f"min PSNR {_decibels(camera.min_psnr_db)}"
    )
    if camera.first_exceed is not None:
        text += f", first differs at {camera.first_exceed.time_s:.3f} s"
    return text


def _replay_lines(result: ReplayResult) -> list[tuple[str, str]]:
    lines = [
        ("replay", f"{result.mode.value} on {result.simulator}"),
        ("replay steps", f"{result.steps} in {result.wall_s:.2f} s"),
        ("source SHA-256", result.source_sha256),
    ]
    lines.extend(("replay note", note) for note in result.notes)
    return lines


def inspector_lines(report: ComparisonReport) -> list[tuple[str, str]]:
    """Return the inspector's "Comparison" rows: verdict, files, each channel."""
    lines = [
        ("verdict", verdict_text(report)),
        ("reference", str(report.reference.path)),
        (report.candidate_label, str(report.candidate.path)),
    ]
    if report.replay is not None:
        lines.extend(_replay_lines(report.replay))
    comparison = report.comparison
    if comparison is None:
        return lines
    lines.extend(_compared_lines(report, comparison))
    lines.extend(("note", note) for note in comparison.notes)
    return lines


def _compared_lines(
    report: ComparisonReport, comparison: Comparison
) -> list[tuple[str, str]]:
    """Return the tolerances, then a row per channel, camera and one-sided name."""
    first, last = comparison.overlap_s
    lines = []
    if comparison.channels:
        lines.append(
            ("tolerance", f"{comparison.tolerance:g} (absolute, channel units)")
        )
    if comparison.cameras:
        lines.append(
            ("pixel tolerance", f"{comparison.pixel_tolerance:g} levels (of 255)")
        )
    lines.append(("compared over", f"{first:.3f} .. {last:.3f} s"))
    lines.extend(
        (f"channel {channel.name}", _channel_text(channel))
        for channel in comparison.channels
    )
    lines.extend(
        (f"camera {camera.paired_name}", _camera_text(camera))
        for camera in comparison.cameras
    )
    candidate = report.candidate_label
    for names, where in (
        (comparison.only_in_reference, "only in reference"),
        (comparison.only_in_candidate, f"only in {candidate}"),
        (comparison.cameras_only_in_reference, "camera only in reference"),
        (comparison.cameras_only_in_candidate, f"camera only in {candidate}"),
    ):
        lines.extend((where, name) for name in names)
    return lines
