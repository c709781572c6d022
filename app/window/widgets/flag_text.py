"""How a check's flag reads in the window: a line, a tooltip, a badge, a colour.

Shared by the timeline's flag marks and the Dataset overview (table,
playlist badges); :class:`Severity` names the badge's and the mark's colour.

A flag's channel and message come from the recording (channel names are the
file's), so these are plain text: the widgets show them through
:func:`~app.window.widgets.plain_text.tooltip_html` or plain-text cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fsr_core.checks import DATASET_KINDS, ERROR_KINDS, Flag

__all__ = [
    "Severity",
    "badge_text",
    "flag_line",
    "flag_tooltip",
    "number",
    "severity_of",
]


class Severity:
    """How bad an entry's worst flag is (the badge's colour)."""

    ERROR = "error"
    """A kind that makes the file invalid (a timestamp gap, NaN...)."""
    OUTLIER = "outlier"
    """A dataset-level kind: the take differs from the others."""
    WARNING = "warning"
    """Any other kind (frozen video, offsets, limits)."""
    MANUAL = "manual"
    """No flag of the checks, flagged by the user."""


def severity_of(flags: Iterable[Flag]) -> str:
    """Return the severity of the worst of ``flags`` ('' for none)."""
    kinds = {flag.kind for flag in flags}
    if not kinds:
        return ""
    if kinds & ERROR_KINDS:
        return Severity.ERROR
    if kinds - DATASET_KINDS:
        return Severity.WARNING
    return Severity.OUTLIER


def number(value: float | None) -> str:
    """Return ``value`` with four significant digits, a dash for none."""
    return "—" if value is None else f"{value:.4g}"


def flag_line(flag: Flag) -> str:
    """Return ``kind (channel) at 1.234 s: value 5.6, threshold 3``."""
    where = f" ({flag.channel})" if flag.channel else ""
    return (
        f"{flag.kind.value}{where} at {flag.start_s:.3f} s: value "
        f"{number(flag.value)}, threshold {number(flag.threshold)}"
    )


def flag_tooltip(flag: Flag) -> tuple[str, ...]:
    """Return the lines a timeline marker's tooltip shows for ``flag``."""
    lines = [
        flag.kind.value.replace("_", " "),
        f"channel: {flag.channel or '(the whole recording)'}",
        f"measured: {number(flag.value)}",
        f"threshold: {number(flag.threshold)}",
        f"from {flag.start_s:.3f} s to {flag.end_s:.3f} s",
    ]
    if flag.message:
        lines.append(flag.message)
    return tuple(lines)


def _rank(flag: Flag) -> int:
    if flag.kind in ERROR_KINDS:
        return 0
    return 2 if flag.kind in DATASET_KINDS else 1


def badge_text(flags: Sequence[Flag], *, flagged_by_user: bool = False) -> str:
    """Return the playlist badge: the worst flag's kind and how many more.

    ``jerk``, ``timestamp_gap +1`` (errors first, then the recording's own
    kinds, then the dataset's); ``flagged`` for an entry only the user
    flagged; '' for none.
    """
    if not flags:
        return "flagged" if flagged_by_user else ""
    worst = min(flags, key=_rank)
    more = len(flags) - 1
    return f"{worst.kind.value} +{more}" if more else worst.kind.value
