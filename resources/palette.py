"""The named colours of ``palette.toml``, parsed and checked once.

:func:`parse_palette` turns the TOML text into a :class:`Palette`: nested
tables become dotted names (``[arm] tip`` is ``"arm.tip"``), a string is one
colour and a list of strings is a cycle. Every value must be ``#rrggbb`` or
``#rrggbbaa`` (alpha last); anything else is a :class:`ResourceError` naming
the entry, so a broken palette fails when it is loaded, not when some frame
happens to use the entry.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from fsr_core.errors import ResourceError

__all__ = ["PALETTE_FILE", "Palette", "Rgb", "Rgba", "parse_color", "parse_palette"]

Rgb = tuple[int, int, int]
Rgba = tuple[int, int, int, int]

#: The palette's file name inside the ``resources`` package.
PALETTE_FILE: Final = "palette.toml"

_HEX: Final = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def parse_color(text: object, name: str) -> Rgba:
    """Return ``#rrggbb`` or ``#rrggbbaa`` as ``(r, g, b, a)``, each 0..255.

    Parameters
    ----------
    text
        The value read for the entry.
    name
        The entry's dotted name, for the error message.

    Returns
    -------
    tuple of int
        Red, green, blue and alpha; alpha is 255 for ``#rrggbb``.

    Raises
    ------
    ResourceError
        ``text`` is not a string of either form.
    """
    if not isinstance(text, str) or _HEX.fullmatch(text) is None:
        raise ResourceError(
            f"colour {name!r} must be '#rrggbb' or '#rrggbbaa', got {text!r}",
            path=PALETTE_FILE,
        )
    digits = text[1:] if len(text) == 9 else text[1:] + "ff"
    red, green, blue, alpha = (int(digits[i : i + 2], 16) for i in range(0, 8, 2))
    return red, green, blue, alpha


def _entries(table: Mapping[str, object], prefix: str) -> Iterator[tuple[str, object]]:
    """Yield ``(dotted name, value)`` for every leaf below ``table``."""
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _entries(value, f"{name}.")
        else:
            yield name, value


def _colors(name: str, value: object) -> tuple[Rgba, ...]:
    if isinstance(value, list):
        if not value:
            raise ResourceError(f"colour list {name!r} is empty", path=PALETTE_FILE)
        return tuple(parse_color(item, f"{name}[{i}]") for i, item in enumerate(value))
    return (parse_color(value, name),)


@dataclass(frozen=True, eq=False)
class Palette:
    """Named colours: single colours and cycles, each RGBA of ints 0..255.

    Look a colour up with :meth:`rgba` (any alpha) or :meth:`rgb` (opaque
    only), a cycle with :meth:`cycle`. Asking for a name the palette lacks, or
    for a single colour where the entry is a cycle (or the reverse), raises
    :class:`ResourceError`.
    """

    entries: Mapping[str, tuple[Rgba, ...]]
    """Every entry by dotted name; a single colour is a one-element tuple."""
    cycles: frozenset[str] = frozenset()
    """The names written as lists."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every entry's dotted name, in file order."""
        return tuple(self.entries)

    def _entry(self, name: str, *, cycle: bool) -> tuple[Rgba, ...]:
        colors = self.entries.get(name)
        if colors is None:
            raise ResourceError(f"no colour {name!r} in the palette", path=PALETTE_FILE)
        if (name in self.cycles) != cycle:
            kind = "a list of colours" if name in self.cycles else "a single colour"
            raise ResourceError(f"palette entry {name!r} is {kind}", path=PALETTE_FILE)
        return colors

    def rgba(self, name: str) -> Rgba:
        """Return the single colour ``name`` as ``(r, g, b, a)``."""
        return self._entry(name, cycle=False)[0]

    def rgb(self, name: str) -> Rgb:
        """Return the opaque colour ``name`` as ``(r, g, b)``.

        Raises
        ------
        ResourceError
            The entry is missing, a list, or not opaque (use :meth:`rgba`).
        """
        return _opaque(name, self.rgba(name))

    def cycle(self, name: str) -> tuple[Rgb, ...]:
        """Return the list of opaque colours ``name`` as ``(r, g, b)`` tuples."""
        colors = self._entry(name, cycle=True)
        return tuple(_opaque(f"{name}[{i}]", color) for i, color in enumerate(colors))

    def table(self, name: str) -> dict[str, Rgba]:
        """Return the single colours directly in table ``name``, by key.

        ``table("task.named")`` is ``{"purple": (128, 0, 128, 255), ...}``; an
        unknown table is empty, nested tables and lists are left out.
        """
        prefix = f"{name}."
        return {
            key.removeprefix(prefix): colors[0]
            for key, colors in self.entries.items()
            if key.startswith(prefix)
            and "." not in key.removeprefix(prefix)
            and key not in self.cycles
        }

    def hex(self, name: str) -> str:
        """Return the single colour ``name`` as ``#rrggbb`` or ``#rrggbbaa``."""
        red, green, blue, alpha = self.rgba(name)
        text = f"#{red:02x}{green:02x}{blue:02x}"
        return text if alpha == 255 else f"{text}{alpha:02x}"


def _opaque(name: str, color: Rgba) -> Rgb:
    red, green, blue, alpha = color
    if alpha != 255:
        raise ResourceError(
            f"colour {name!r} is translucent (alpha {alpha}); an opaque one is needed",
            path=PALETTE_FILE,
        )
    return red, green, blue


def parse_palette(text: str) -> Palette:
    """Parse the text of ``palette.toml`` and check every colour in it.

    Parameters
    ----------
    text
        The TOML document.

    Returns
    -------
    Palette
        Every entry, by dotted name.

    Raises
    ------
    ResourceError
        The text is not TOML, or a value is not a colour or a non-empty list
        of colours.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ResourceError(f"not valid TOML: {exc}", path=PALETTE_FILE) from exc
    entries: dict[str, tuple[Rgba, ...]] = {}
    cycles: set[str] = set()
    for name, value in _entries(document, ""):
        entries[name] = _colors(name, value)
        if isinstance(value, list):
            cycles.add(name)
    return Palette(MappingProxyType(entries), frozenset(cycles))
