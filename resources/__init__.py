"""The assets FSR Viewer ships: its colour palette, Qt style sheet and icon.

The files sit next to this module and are read through
:mod:`importlib.resources`, so an installed wheel carries them. Nothing here
imports Qt: the core's camera renderer takes its colours from :func:`palette`
as the application's canvases do.

- :func:`palette`: every named colour (``palette.toml``), checked when loaded.
- :func:`style_sheet`: the window's style sheet (``style.qss``), its
  ``@table.key`` colour names replaced by the palette's colours
  (:func:`~resources.style.build_style_sheet`).
- :func:`icon_bytes`: the application icon (``icon.svg``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources as _files
from typing import Final

from fsr_core.errors import ResourceError
from resources.palette import PALETTE_FILE, Palette, Rgb, Rgba, parse_palette
from resources.style import STYLE_FILE, build_style_sheet

__all__ = [
    "ICON_FILE",
    "PALETTE_FILE",
    "STYLE_FILE",
    "Palette",
    "Rgb",
    "Rgba",
    "build_style_sheet",
    "icon_bytes",
    "palette",
    "read_asset",
    "style_sheet",
]

#: The application icon's file name inside the package.
ICON_FILE: Final = "icon.svg"


def read_asset(name: str) -> bytes:
    """Return the bytes of the asset ``name`` shipped in this package.

    Raises
    ------
    ResourceError
        The asset is missing or cannot be read.
    """
    try:
        return _files.files(__name__).joinpath(name).read_bytes()
    except OSError as exc:
        raise ResourceError(f"cannot read the asset: {exc}", path=name) from exc


def _text(name: str) -> str:
    try:
        return read_asset(name).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResourceError(f"not UTF-8 text: {exc}", path=name) from exc


@cache
def palette() -> Palette:
    """Return the palette, read from ``palette.toml`` once.

    Raises
    ------
    ResourceError
        The file is missing, not TOML, or holds a malformed colour.
    """
    return parse_palette(_text(PALETTE_FILE))


@cache
def style_sheet() -> str:
    """Return the Qt style sheet's rules, with the palette's colours filled in.

    Empty when ``style.qss`` holds no rule (then the application sets none).

    Raises
    ------
    ResourceError
        The file is missing or names a colour the palette lacks.
    """
    return build_style_sheet(_text(STYLE_FILE), palette())


def icon_bytes() -> bytes:
    """Return the application icon, an SVG document."""
    return read_asset(ICON_FILE)
