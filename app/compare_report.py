"""A comparison of two recordings as plain text: a table and a verdict.

The ``compare`` command prints it; the window can show the same text in its
inspector.
"""

from __future__ import annotations

import math

from fsr_core.compare import ChannelComparison, Comparison, RecordingSummary

__all__ = ["format_comparison", "format_verdict"]

_HEADER = (
    "channel",
    "unit",
    "samples",
    "max error",
    "RMS error",
    "first exceeds",
    "worst column",
    "verdict",
)


def _number(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g} s"


def _row(channel: ChannelComparison) -> tuple[str, ...]:
    return (
        channel.name,
        channel.unit or "-",
        str(channel.samples_compared),
        _number(channel.max_abs_error),
        _number(channel.rms_error),
        _seconds(channel.first_exceed_s),
        channel.worst_column or "-",
        channel.verdict,
    )


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
        for row in rows
    ]


def _side(label: str, summary: RecordingSummary) -> str:
    plural = "" if summary.generations == 1 else "s"
    return (
        f"{label}  {summary.path}  "
        f"({summary.duration_s:.6g} s, {summary.generations} generation{plural})"
    )


def format_verdict(comparison: Comparison) -> str:
    """Return the one-line verdict: exact, within tolerance, or where it diverges."""
    if comparison.exact:
        return "EXACT: every channel is bit-for-bit identical"
    if comparison.within_tolerance:
        worst = max(c.max_abs_error for c in comparison.channels)
        why = " (equal values, but not bit-for-bit: see above)" if worst == 0 else ""
        return (
            f"WITHIN TOLERANCE {comparison.tolerance:g}: "
            f"largest error {_number(worst)}{why}"
        )
    divergence = comparison.first_divergence
    if divergence is None:
        mismatched = [
            c.name for c in comparison.channels if c.verdict not in ("exact", "within")
        ]
        return f"NOT COMPARABLE: {', '.join(mismatched)} (see the table)"
    column = f" ({divergence.column})" if divergence.column else ""
    return (
        f"DIVERGES: first in {divergence.channel}{column} at "
        f"{divergence.time_s:.6g} s, error {_number(divergence.error)} "
        f"> tolerance {comparison.tolerance:g}"
    )


def format_comparison(comparison: Comparison) -> str:
    """Return the whole comparison as text: both files, the table, notes, verdict."""
    lines = [
        _side("reference", comparison.reference),
        _side("candidate", comparison.candidate),
        f"tolerance  {comparison.tolerance:g} (absolute, in each channel's unit); "
        f"compared over {comparison.overlap_s[0]:.6g}..{comparison.overlap_s[1]:.6g} s",
        "",
        *_table([_HEADER, *(_row(channel) for channel in comparison.channels)]),
        "",
    ]
    if comparison.only_in_reference:
        lines.append(
            f"only in the reference: {', '.join(comparison.only_in_reference)}"
        )
    if comparison.only_in_candidate:
        lines.append(
            f"only in the candidate: {', '.join(comparison.only_in_candidate)}"
        )
    lines.extend(f"note: {note}" for note in comparison.notes)
    lines.append(format_verdict(comparison))
    return "\n".join(lines)
