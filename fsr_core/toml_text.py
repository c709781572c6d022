"""Bounded TOML: size and nesting checked by a cheap scan *before* ``tomllib`` parses.

``tomllib`` recurses once per nesting level of arrays and inline tables, so a
document such as ``v = [[[...]]]`` 3000 deep ends in ``RecursionError`` deep
inside the parser, and thousands of dotted-key levels build as many nested
tables. :func:`parse_bounded_toml` first scans the text in one linear pass
(strings and comments skipped, no recursion) and refuses a document whose
nesting (table headers, dotted keys, arrays and inline tables together) goes
past ``max_depth``; only then does it parse. Every failure is an
:class:`~fsr_core.errors.FsrError` subclass naming the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import LimitExceededError, SchemaError

__all__ = ["DEFAULT_TOML_DEPTH", "parse_bounded_toml", "toml_depth_exceeds"]

DEFAULT_TOML_DEPTH: Final = 32
"""Nesting (tables, arrays, inline tables, dotted keys) a TOML document may use."""

_QUOTES: Final = "\"'"


class _Scan:
    """The scanner's state: one pass over the text, nothing recursive."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        # Open arrays and inline tables, each with the key dots in force when it
        # opened; never deeper than the limit, as the scan stops there.
        self.brackets: list[tuple[str, int]] = []
        self.header_depth = 0  # levels of the last ``[table]`` header
        self.key_dots = 0  # dotted levels of the key being read (and outer keys)
        self.at_key = True  # the next word is a key
        self.in_header = False

    def depth(self) -> int:
        # The key itself is one level below its table, hence the 1.
        return self.header_depth + self.key_dots + len(self.brackets) + 1

    def skip_string(self, quote: str) -> None:
        """Move past the string starting at ``pos`` (basic, literal, multi-line)."""
        text = self.text
        triple = text.startswith(quote * 3, self.pos)
        delimiter = quote * 3 if triple else quote
        index = self.pos + len(delimiter)
        while True:
            end = text.find(delimiter, index)
            if end < 0:
                self.pos = len(text)  # unterminated: tomllib will say so
                return
            if quote == '"' and _escaped(text, end):
                index = end + 1
                continue
            while triple and text.startswith(quote, end + 3):
                end += 1  # a multi-line string may end with up to two quotes
            self.pos = end + len(delimiter)
            return

    def newline(self) -> None:
        if self.in_header:
            # Each level may be an array of tables (its last element): two.
            self.header_depth = 2 * (self.key_dots + 1)
            self.brackets.clear()
            self.in_header = False
        if not self.brackets:
            self.key_dots = 0
            self.at_key = True

    def open_bracket(self, char: str) -> None:
        if char == "[" and not self.brackets and self.at_key:
            self.in_header = True  # ``[table]`` or ``[[array.of.tables]]``
            self.header_depth = 0
            self.key_dots = 0
        self.brackets.append((char, self.key_dots))
        if not self.in_header:
            self.at_key = char == "{"

    def close_bracket(self) -> None:
        if self.brackets:
            _, outer_dots = self.brackets.pop()
            if not self.in_header:
                self.key_dots = outer_dots
        if self.brackets and self.brackets[-1][0] == "{":
            self.at_key = False

    def step(self, char: str) -> None:
        """Take one character outside strings and comments."""
        if char == "\n":
            self.newline()
        elif char in "[{":
            self.open_bracket(char)
        elif char in "]}":
            self.close_bracket()
        elif char == "=":
            self.at_key = False
        elif char == ",":
            self.separator()
        elif char == "." and (self.at_key or self.in_header):
            self.key_dots += 1

    def separator(self) -> None:
        if self.brackets and self.brackets[-1][0] == "{":
            self.at_key = True
            self.key_dots = self.brackets[-1][1]


def _escaped(text: str, index: int) -> bool:
    """Whether the character at ``index`` follows an odd run of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def toml_depth_exceeds(text: str, limit: int = DEFAULT_TOML_DEPTH) -> bool:
    """Whether the TOML ``text`` nests deeper than ``limit`` (a linear scan).

    The count errs high, never low: a table header's levels, a key's dotted
    levels and the open arrays and inline tables add up.
    """
    scan = _Scan(text)
    length = len(text)
    while scan.pos < length:
        char = text[scan.pos]
        if char in _QUOTES:
            scan.skip_string(char)
            continue
        if char == "#":
            end = text.find("\n", scan.pos)
            scan.pos = length if end < 0 else end
            continue
        scan.step(char)
        if scan.depth() > limit:
            return True
        scan.pos += 1
    return False


def parse_bounded_toml(
    text: str,
    *,
    what: str,
    path: str | Path | None,
    max_depth: int = DEFAULT_TOML_DEPTH,
) -> dict[str, Any]:
    """Parse the TOML ``text`` (``what``: ``scenario``, ``__meta__``) within bounds.

    Raises
    ------
    LimitExceededError
        The document nests deeper than ``max_depth`` (found before parsing).
    SchemaError
        Not valid TOML.
    """
    if toml_depth_exceeds(text, max_depth):
        raise LimitExceededError(
            f"{what} nests deeper than {max_depth} levels "
            "(tables, dotted keys, arrays and inline tables together)",
            path=path,
        )
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SchemaError(f"{what} is not valid TOML: {exc}", path=path) from exc
