"""Text and numbers from a file, made safe to show (docs/robustness.md).

Whoever wrote a file chose its names, units, labels and values. This module is
the one way such text reaches the screen, in the window and in exports:

* :func:`visible_text` turns any value into one line in which nothing is
  hidden or reordered (control, bidi and zero-width characters become visible
  escapes) and elides it past a budget, noting how much was left out. The
  result is for plain-text surfaces only: ``QLabel`` with
  ``Qt.TextFormat.PlainText``, item-view cells, ``QPainter.drawText``.
* :func:`markup_text` is the same, HTML-escaped, for surfaces that read HTML
  whatever they are given: pyqtgraph's ``LabelItem``, ``AxisItem`` labels,
  ``LegendItem`` entries and ``TextItem`` (they render through
  ``QGraphicsTextItem.setHtml``).
* :func:`tooltip_html` wraps it for tooltips, which Qt reads as rich text
  whenever the text looks like markup.
* :func:`fixed_text` shows a number with fixed decimals while that stays
  short, and in scientific notation when it would not (``1e308`` is
  ``1.000e+308``, not 309 digits), so extreme values are still shown as text.

The length budgets are :data:`LINE_CHARS`, :data:`LABEL_CHARS` and
:data:`TOOLTIP_CHARS` (docs/robustness.md, Budgets and limits). No Qt here.
"""

from __future__ import annotations

import html
import math
import unicodedata
from collections.abc import Iterable
from typing import Final

__all__ = [
    "ELLIPSIS",
    "FIXED_LIMIT",
    "LABEL_CHARS",
    "LINE_CHARS",
    "TOOLTIP_CHARS",
    "fixed_text",
    "markup_text",
    "safe_str",
    "tooltip_html",
    "tooltip_lines_html",
    "visible_text",
]

ELLIPSIS: Final = "…"
#: Characters of file text shown on one line (labels, cells, messages).
LINE_CHARS: Final = 200
#: Characters of file text in a plot's axis label, legend entry or title.
LABEL_CHARS: Final = 80
#: Characters of file text in a tooltip (wrapped every 100 characters).
TOOLTIP_CHARS: Final = 4000
#: Magnitude from which :func:`fixed_text` switches to scientific notation.
FIXED_LIMIT: Final = 1e9

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


def visible_text(value: object, max_chars: int = LINE_CHARS) -> str:
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
        Only the first ``max_chars`` characters are looked at, so a value of
        any length costs the same.
    """
    text = value if isinstance(value, str) else safe_str(value)
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


def safe_str(value: object) -> str:
    """Return ``str(value)``, or a short note when ``str`` refuses the value.

    Python refuses to turn an integer of more than 4,300 digits into text
    (``ValueError``); a TOML or JSON number in a file can be that long.
    """
    try:
        return str(value)
    except (ValueError, OverflowError, RecursionError):
        if isinstance(value, int):
            return f"(integer of {value.bit_length()} bits)"
        return f"({type(value).__name__} too large to show)"


def markup_text(value: object, max_chars: int = LABEL_CHARS) -> str:
    """Return ``value`` for a surface that reads HTML: shown as written, elided.

    pyqtgraph's labels, axis labels, legends and text items render their
    text as HTML; the escaped text shows ``<img src=...>`` as those
    characters, never as an element.
    """
    return html.escape(visible_text(value, max_chars), quote=False)


def tooltip_html(value: object, max_chars: int = TOOLTIP_CHARS) -> str:
    """Return a tooltip showing ``value`` literally, wrapped every 100 characters.

    Qt guesses whether a tooltip is rich text, so the escaped text is
    HTML-escaped inside an explicit ``<qt>`` document: markup in the value is
    shown as written, never interpreted.
    """
    return tooltip_lines_html((value,), max_chars)


def tooltip_lines_html(values: Iterable[object], max_chars: int = TOOLTIP_CHARS) -> str:
    """Return a tooltip of several lines, each shown as :func:`tooltip_html` does."""
    lines: list[str] = []
    for value in values:
        text = visible_text(value, max_chars)
        lines.extend(
            html.escape(text[start : start + _TOOLTIP_LINE_CHARS], quote=False)
            for start in range(0, len(text), _TOOLTIP_LINE_CHARS)
        )
    return "<qt>" + "<br>".join(lines) + "</qt>"


def fixed_text(value: float, decimals: int) -> str:
    """Return ``value`` with ``decimals`` decimals, or ``1.234e+15`` when huge.

    Parameters
    ----------
    value
        Any float, including infinities and NaN (shown as ``inf``, ``nan``).
    decimals
        Decimals shown while ``|value|`` is below :data:`FIXED_LIMIT`.

    Returns
    -------
    str
        At most about 20 characters for any float.
    """
    if not math.isfinite(value):
        return str(float(value))
    if abs(value) < FIXED_LIMIT:
        return f"{value:.{decimals}f}"
    return f"{value:.3e}"
