"""The Qt style sheet built from ``style.qss`` and the palette.

``style.qss`` names palette colours as ``@table.key``; :func:`build_style_sheet`
writes each one as Qt reads it and drops the comments. What remains is empty
when the file has no rule, and an empty style sheet keeps Qt from drawing
every widget through its style-sheet style (which alone changes some widgets'
metrics).
"""

from __future__ import annotations

import re
from typing import Final

from fsr_core.errors import ResourceError
from resources.palette import PALETTE_FILE, Palette

__all__ = ["STYLE_FILE", "build_style_sheet"]

#: The style sheet's file name inside the ``resources`` package.
STYLE_FILE: Final = "style.qss"

_COMMENT: Final = re.compile(r"/\*.*?\*/", re.DOTALL)
_COLOR_NAME: Final = re.compile(r"@([A-Za-z_]\w*(?:\.\w+)+)")


def _qss_color(colors: Palette, name: str) -> str:
    try:
        red, green, blue, alpha = colors.rgba(name)
    except ResourceError as exc:
        raise ResourceError(
            f"names {name!r}, which is not a single colour of {PALETTE_FILE}",
            path=STYLE_FILE,
        ) from exc
    if alpha == 255:
        return f"#{red:02x}{green:02x}{blue:02x}"
    return f"rgba({red}, {green}, {blue}, {alpha})"  # Qt reads "#aarrggbb", not ours


def build_style_sheet(template: str, colors: Palette) -> str:
    """Return the rules of ``template`` with each ``@table.key`` colour filled in.

    Parameters
    ----------
    template
        The text of a style sheet that names palette colours.
    colors
        The palette the names refer to.

    Returns
    -------
    str
        The style sheet without comments, stripped: empty when ``template``
        has no rule. Opaque colours are written ``#rrggbb``, translucent ones
        ``rgba(r, g, b, a)``.

    Raises
    ------
    ResourceError
        A name is not a single colour of ``colors``.
    """
    rules = _COMMENT.sub("", template).strip()
    return _COLOR_NAME.sub(lambda match: _qss_color(colors, match[1]), rules)
