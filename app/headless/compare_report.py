"""A comparison of two recordings as plain text: a table and a verdict.

The ``compare`` command prints it; the window can show the same text in its
inspector.
"""

from __future__ import annotations

import math

from fsr_core.compare import (
    CameraComparison,
    ChannelComparison,
    Comparison,
    RecordingSummary,
)

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


_CAMERA_HEADER = (
    "camera",
    "frames",
    "max px error",
    "mean px error",
    "min PSNR",
    "first exceeds",
    "verdict",
)


_AGREE = ("exact", "within")


def _number(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "0" if value == 0 else f"{value:.3g}"


def _decibels(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.1f} dB"


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


def _camera_row(camera: CameraComparison) -> tuple[str, ...]:
    return (
        camera.paired_name,
        str(camera.frames_compared),
        _number(camera.max_abs_error),
        _number(camera.mean_abs_error),
        _decibels(camera.min_psnr_db),
        _seconds(camera.first_exceed_s),
        camera.verdict,
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


def _largest_errors(comparison: Comparison) -> str:
    """Return the largest channel and pixel errors, for a within-tolerance verdict."""
    parts = []
    if comparison.channels:
        worst = max(c.max_abs_error for c in comparison.channels)
        parts.append(f"largest error {_number(worst)}")
    if comparison.cameras:
        worst = max(c.max_abs_error for c in comparison.cameras)
        parts.append(f"largest pixel error {_number(worst)} levels")
    return ", ".join(parts)


def _within_verdict(comparison: Comparison) -> str:
    if comparison.compared_exact and not comparison.channels:
        return (
            "FRAMES EXACT: every compared camera frame is bit-for-bit identical "
            "(no channel in common: only cameras were compared)"
        )
    limits = []
    if comparison.channels:
        limits.append(f"TOLERANCE {comparison.tolerance:g}")
    if comparison.cameras:
        limits.append(f"PIXEL TOLERANCE {comparison.pixel_tolerance:g}")
    worst = [c.max_abs_error for c in comparison.channels]
    worst += [c.max_abs_error for c in comparison.cameras]
    why = " (equal values, but not bit-for-bit: see above)" if max(worst) == 0 else ""
    return f"WITHIN {' AND '.join(limits)}: {_largest_errors(comparison)}{why}"


def _not_comparable(comparison: Comparison) -> str:
    mismatched = [c.name for c in comparison.channels if c.verdict not in _AGREE]
    mismatched += [c.name for c in comparison.cameras if c.verdict not in _AGREE]
    return f"NOT COMPARABLE: {', '.join(mismatched)} (see the table)"


def format_verdict(comparison: Comparison) -> str:
    """Return the one-line verdict: exact, within tolerance, or where it diverges."""
    if comparison.exact:
        if comparison.cameras:
            return "EXACT: every channel and camera frame is bit-for-bit identical"
        return "EXACT: every channel is bit-for-bit identical"
    if comparison.within_tolerance:
        return _within_verdict(comparison)
    divergence = comparison.first_divergence
    if divergence is None:
        return _not_comparable(comparison)
    if divergence.is_camera:
        return (
            f"DIVERGES: first in camera {divergence.channel} at "
            f"{divergence.time_s:.6g} s, frame differs by up to "
            f"{_number(divergence.error)} levels "
            f"> pixel tolerance {comparison.pixel_tolerance:g}"
        )
    column = f" ({divergence.column})" if divergence.column else ""
    return (
        f"DIVERGES: first in {divergence.channel}{column} at "
        f"{divergence.time_s:.6g} s, error {_number(divergence.error)} "
        f"> tolerance {comparison.tolerance:g}"
    )


def _one_sided(comparison: Comparison) -> list[str]:
    lines = []
    for names, what in (
        (comparison.only_in_reference, "only in the reference"),
        (comparison.only_in_candidate, "only in the candidate"),
        (comparison.cameras_only_in_reference, "cameras only in the reference"),
        (comparison.cameras_only_in_candidate, "cameras only in the candidate"),
    ):
        if names:
            lines.append(f"{what}: {', '.join(names)}")
    return lines


def format_comparison(comparison: Comparison) -> str:
    """Return the whole comparison as text: both files, the tables, notes, verdict."""
    first, last = comparison.overlap_s
    lines = [
        _side("reference", comparison.reference),
        _side("candidate", comparison.candidate),
        f"tolerance  {comparison.tolerance:g} (absolute, in each channel's unit); "
        f"compared over {first:.6g}..{last:.6g} s",
    ]
    if comparison.cameras:
        lines.append(
            f"pixel tolerance  {comparison.pixel_tolerance:g} "
            "(absolute, in 8-bit levels 0..255)"
        )
    lines.append("")
    if comparison.channels:
        rows = [_HEADER, *(_row(channel) for channel in comparison.channels)]
        lines.extend([*_table(rows), ""])
    if comparison.cameras:
        rows = [_CAMERA_HEADER, *(_camera_row(camera) for camera in comparison.cameras)]
        lines.extend([*_table(rows), ""])
    lines.extend(_one_sided(comparison))
    lines.extend(f"note: {note}" for note in comparison.notes)
    lines.append(format_verdict(comparison))
    return "\n".join(lines)
