"""Untrusted text made safe to show on one line (docs/robustness.md, U14).

Names and metadata come from the file, so whoever wrote the file chooses them.
:func:`visible_text` turns any such value into a single line in which nothing
is hidden or reordered: control, bidi and zero-width characters become
visible escapes, and long values are elided with their length noted. The
result is still meant for plain-text widgets only (``Qt.PlainText``, item
text); :func:`tooltip_html` wraps it for tooltips, which Qt may read as HTML.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "ELLIPSIS",
    "byte_size_text",
    "number_text",
    "pairs_text",
    "scalar_text",
    "time_span_text",
    "tooltip_html",
    "visible_text",
]

ELLIPSIS: Final = "…"

_NAMED: Final = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# Unicode categories shown as escapes: controls, format characters (bidi
# embeddings, overrides and isolates, marks, zero-width characters, BOM),
# surrogates and the line and paragraph separators.
_ESCAPED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_TOOLTIP_LINE_CHARS: Final = 100


def _shown(char: str) -> str:
    """Return how one character is shown."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    if unicodedata.category(char) in _ESCAPED_CATEGORIES:
        return f"⟨U+{ord(char):04X}⟩"
    return char


def visible_text(value: object, max_chars: int = 200) -> str:
    r"""Return ``value`` as one line of text that hides and reorders nothing.

    Parameters
    ----------
    value
        Any value; it is converted with ``str`` (strings are used as they are).
    max_chars
        Length of the shown text before it is elided. Past it, the text ends
        with ``…`` and the number of characters left out, ``… (+1234 chars)``.

    Returns
    -------
    str
        Newlines and tabs as ``\n`` and ``\t``; control, format (bidi,
        zero-width) and separator characters as ``⟨U+202E⟩``-style escapes.
    """
    text = value if isinstance(value, str) else str(value)
    pieces: list[str] = []
    length = 0
    for consumed, char in enumerate(text):
        piece = _shown(char)
        if length + len(piece) > max_chars:
            left = len(text) - consumed
            return f"{''.join(pieces)}{ELLIPSIS} (+{left} chars)"
        pieces.append(piece)
        length += len(piece)
    return "".join(pieces)


def tooltip_html(value: object, max_chars: int = 4000) -> str:
    """Return a tooltip showing ``value`` literally, wrapped every 100 characters.

    Qt guesses whether a tooltip is rich text, so the escaped text is
    HTML-escaped inside an explicit ``<qt>`` document: markup in the value is
    shown as written, never interpreted.
    """
    text = visible_text(value, max_chars)
    lines = [
        html.escape(text[start : start + _TOOLTIP_LINE_CHARS])
        for start in range(0, len(text), _TOOLTIP_LINE_CHARS)
    ]
    return "<qt>" + "<br>".join(lines) + "</qt>"


def scalar_text(value: object) -> str:
    """Return how a leaf value reads: ``str(value)``, or a dash for None."""
    return "—" if value is None else str(value)


def number_text(value: object, fmt: str) -> str | None:
    """Return ``value`` formatted with ``fmt`` when it is a real number, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return format(value, fmt)
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
