"""The overlays every view, menu, flag and export offers, in their order.

Built-in overlays are named here by module (each module under
:mod:`app.canvas.overlays` holds one ``OVERLAY``); :func:`register` adds one
from elsewhere (a plug-in, a test) for the rest of the process. The order is
the order of the menus, the side-panel boxes and the command-line flags.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from app.canvas.overlay import Overlay, Paint, Surface

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

__all__ = [
    "BUILTIN_OVERLAYS",
    "default_overlays",
    "overlay_named",
    "overlays",
    "paint_shown",
    "paints_on",
    "register",
    "unregister",
]

#: The built-in overlays: module names under ``app.canvas.overlays``.
BUILTIN_OVERLAYS: tuple[str, ...] = (
    "com",
    "force",
    "targets",
    "reference",
    "tip",
    "body_frames",
    "link_frames",
    "tip_trail",
    "calibration",
)

_registered: list[Overlay] = []


@cache
def _builtins() -> tuple[Overlay, ...]:
    loaded = []
    for name in BUILTIN_OVERLAYS:
        module = importlib.import_module(f"app.canvas.overlays.{name}")
        found = module.OVERLAY
        if not isinstance(found, Overlay):
            raise TypeError(f"app.canvas.overlays.{name}.OVERLAY is not an Overlay")
        loaded.append(found)
    return tuple(loaded)


def overlays() -> tuple[Overlay, ...]:
    """Return every overlay: the built-ins, then those registered, in order."""
    return (*_builtins(), *_registered)


def overlay_named(name: str) -> Overlay:
    """Return the overlay called ``name``.

    Raises
    ------
    KeyError
        No overlay has that name.
    """
    for overlay in overlays():
        if overlay.name == name:
            return overlay
    raise KeyError(name)


def default_overlays() -> frozenset[str]:
    """Return the names of the overlays shown by default."""
    return frozenset(overlay.name for overlay in overlays() if overlay.default)


def register(overlay: Overlay) -> None:
    """Add ``overlay`` after the others (its name must be new).

    Raises
    ------
    ValueError
        An overlay of that name is already registered.
    """
    if any(known.name == overlay.name for known in overlays()):
        raise ValueError(f"an overlay named {overlay.name!r} is already registered")
    _registered.append(overlay)


def unregister(name: str) -> None:
    """Remove an overlay added by :func:`register` (built-ins stay)."""
    _registered[:] = [overlay for overlay in _registered if overlay.name != name]


def paints_on(
    surface: Surface, shown: frozenset[str], low: int = -(2**31), high: int = 2**31
) -> list[Paint]:
    """Return the painters of the ``shown`` overlays on ``surface``, by depth.

    Only painters with ``low <= z < high`` are returned; equal depths keep
    the registry's order.
    """
    found = [
        paint
        for overlay in overlays()
        if overlay.name in shown
        for paint in overlay.paints_on(surface)
        if low <= paint.z < high
    ]
    return sorted(found, key=lambda paint: paint.z)


def paint_shown(
    painter: QPainter,
    marks: object,
    surface: Surface,
    shown: frozenset[str],
    low: int = -(2**31),
    high: int = 2**31,
) -> None:
    """Run the painters :func:`paints_on` returns, each on its own painter state.

    ``marks`` is the context of ``surface`` the painters draw from; the
    painter's pen, brush, font and transform are restored after each one.
    """
    for paint in paints_on(surface, shown, low, high):
        painter.save()
        paint.paint(painter, marks)
        painter.restore()
