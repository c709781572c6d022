"""Camera comparisons drawn in the comparison plots: pixel error per frame.

The upper plot shows one camera's largest and mean pixel error per compared
frame (8-bit levels, a dot per frame) with the pixel tolerance dotted; the
lower, log-scaled error plot shows each camera's largest error per frame
beside the channels' errors. The functions take a pyqtgraph ``PlotItem`` and
only push arrays into it.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyqtgraph as pg  # type: ignore[import-untyped]
from PySide6.QtCore import Qt

from app.window.plots.channel_plots import SERIES_COLORS
from app.window.widgets.plain_text import markup_text
from fsr_core.compare import Comparison

__all__ = ["PIXEL_SUFFIX", "camera_error_series", "draw_camera_errors", "frame_dots"]

#: How a camera is named in the error plot's legend.
PIXEL_SUFFIX: Final = " (px)"
_LINE_WIDTH_PX: Final = 1.5
_TOLERANCE_PEN: Final = {"color": "#888888", "width": 1}


def frame_dots(color: str, size: int = 5) -> dict[str, Any]:
    """Return plot options that mark each frame (one error stands alone)."""
    return {"symbol": "o", "symbolSize": size, "symbolBrush": color, "symbolPen": None}


def camera_error_series(
    comparison: Comparison,
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Return ``(legend name, times, largest error per frame)`` per camera."""
    return [
        (f"{camera.name}{PIXEL_SUFFIX}", camera.error_times_s, camera.errors)
        for camera in comparison.cameras
    ]


def draw_camera_errors(plot: Any, comparison: Comparison, name: str) -> None:
    """Draw camera ``name``'s largest and mean pixel error per compared frame."""
    camera = comparison.camera(name)
    plot.setLabel("left", "px error [levels]")
    plot.legend.setColumnCount(3)
    color = SERIES_COLORS[0]
    shown = markup_text(name)  # pyqtgraph reads HTML (U14)
    for values, label, style in (
        (camera.errors, "largest", Qt.PenStyle.SolidLine),
        (camera.mean_errors, "mean", Qt.PenStyle.DashLine),
    ):
        plot.plot(
            camera.error_times_s,
            values,
            pen=pg.mkPen(color, width=_LINE_WIDTH_PX, style=style),
            name=f"{shown} {label}",
            **frame_dots(color, 4),
        )
    if comparison.pixel_tolerance > 0:
        first, last = comparison.overlap_s
        plot.plot(
            [first, last],
            [comparison.pixel_tolerance] * 2,
            pen=pg.mkPen(**_TOLERANCE_PEN, style=Qt.PenStyle.DotLine),
            name=f"pixel tolerance {comparison.pixel_tolerance:g}",
        )
    # Levels start at 0; equal frames get 0..1, not a range around zero.
    highest = np.nanmax([*camera.errors, comparison.pixel_tolerance, 1.0])
    plot.setYRange(0.0, float(highest), padding=0.08)
