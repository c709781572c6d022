"""Untrusted text made safe to show on one line (docs/robustness.md, U14).

Names and metadata come from the file, so whoever wrote the file chooses them.
The window's one way to show such text: :func:`visible_text` for plain-text
widgets (``Qt.TextFormat.PlainText`` labels, item cells), :func:`markup_text`
for pyqtgraph text (which reads HTML), :func:`tooltip_html` for tooltips,
:func:`fixed_text` for numbers that may be huge. They live in
:mod:`app.canvas.shown_text`, shared with the export's canvases, and are
re-exported here with the inspector's report formatting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.canvas.shown_text import (
    ELLIPSIS,
    LABEL_CHARS,
    LINE_CHARS,
    TOOLTIP_CHARS,
    fixed_text,
    markup_text,
    safe_str,
    tooltip_html,
    tooltip_lines_html,
    visible_text,
)

__all__ = [
    "ELLIPSIS",
    "LABEL_CHARS",
    "LINE_CHARS",
    "TOOLTIP_CHARS",
    "byte_size_text",
    "fixed_text",
    "markup_text",
    "number_text",
    "pairs_text",
    "safe_str",
    "scalar_text",
    "time_span_text",
    "tooltip_html",
    "tooltip_lines_html",
    "visible_text",
]


def scalar_text(value: object) -> str:
    """Return how a leaf value reads: ``str(value)``, or a dash for None."""
    return "—" if value is None else safe_str(value)


def number_text(value: object, fmt: str) -> str | None:
    """Return ``value`` formatted with ``fmt`` when it is a real number, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return format(value, fmt)
        except (OverflowError, ValueError):
            return safe_str(value)
    return None


def byte_size_text(value: object) -> str:
    """Return a byte count as ``46.9 KiB (48000 bytes)`` (small ones as ``72 B``)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return scalar_text(value)
    size, unit = float(value), "B"
    for larger in ("KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024:
            break
        size, unit = size / 1024, larger
    return f"{value} B" if unit == "B" else f"{size:.1f} {unit} ({value} bytes)"


def time_span_text(first: object, last: object) -> str | None:
    """Return ``0.000..0.498 s`` for two times in seconds, None when unknown."""
    start, end = number_text(first, ".3f"), number_text(last, ".3f")
    return None if start is None or end is None else f"{start}..{end} s"


def pairs_text(entry: Mapping[str, Any], skip: Sequence[str] = ()) -> str:
    """Return ``key=value, ...`` for the entries of ``entry`` not in ``skip``."""
    return ", ".join(
        f"{key}={scalar_text(value)}" for key, value in entry.items() if key not in skip
    )
