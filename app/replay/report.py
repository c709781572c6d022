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

from app.widgets.plain_text import visible_text
from fsr_core.compare import ChannelComparison, Comparison
from fsr_core.recording import RecordingModel
from fsr_core.replay.protocol import ReplayResult

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


def _number(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


def verdict_text(report: ComparisonReport) -> str:
    """Return the verdict in a few words.

    "reproduces exactly", "within tolerance …", "diverges at t s in channel (column)",
    or why nothing was compared.
    """
    comparison = report.comparison
    if comparison is None:
        return f"not compared: {report.problem}"
    if comparison.exact:
        return "reproduces exactly (every channel bit for bit)"
    if comparison.within_tolerance:
        worst = max(channel.max_abs_error for channel in comparison.channels)
        return (
            f"within tolerance {comparison.tolerance:g} "
            f"(largest error {_number(worst)})"
        )
    divergence = comparison.first_divergence
    if divergence is None:
        mismatched = [
            c.name for c in comparison.channels if c.verdict not in ("exact", "within")
        ]
        names = visible_text(", ".join(mismatched))
        return f"not comparable: {names} (units or columns differ)"
    column = f" ({visible_text(divergence.column)})" if divergence.column else ""
    return (
        f"diverges at {divergence.time_s:.3f} s in "
        f"{visible_text(divergence.channel)}{column}, "
        f"error {_number(divergence.error)} > {comparison.tolerance:g}"
    )


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
    first, last = comparison.overlap_s
    lines.append(("tolerance", f"{comparison.tolerance:g} (absolute, channel units)"))
    lines.append(("compared over", f"{first:.3f} .. {last:.3f} s"))
    lines.extend(
        (f"channel {channel.name}", _channel_text(channel))
        for channel in comparison.channels
    )
    lines.extend(("only in reference", name) for name in comparison.only_in_reference)
    lines.extend(
        (f"only in {report.candidate_label}", name)
        for name in comparison.only_in_candidate
    )
    lines.extend(("note", note) for note in comparison.notes)
    return lines
