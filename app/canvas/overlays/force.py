"""External force: an arrow at the tip, scaled to the recording's peak force."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import numpy as np

from app.canvas.overlay import Overlay, Paint, Surface
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

    from app.canvas.scene_canvas import PlaneMarks

__all__ = ["OVERLAY", "peak_force_n"]

#: The peak force of the recording is drawn this long, as a fraction of the reach.
_FORCE_SPAN: Final = 0.4


def _applies(model: RecordingModel) -> bool:
    """Whether a force was recorded, and it was ever more than zero."""
    return peak_force_n(model) > 0.0


def peak_force_n(model: RecordingModel) -> float:
    """Return the largest planar force magnitude recorded (0 without one)."""
    name = model.external_force_channel
    if name is None or name not in model.channels:
        return 0.0
    values = model.channels[name].values
    if values.ndim != 2 or values.shape[1] < 2:
        return 0.0
    with np.errstate(all="ignore"):
        norms = np.hypot(values[:, 0], values[:, 1])
    norms = norms[np.isfinite(norms)]
    return float(norms.max()) if norms.size else 0.0


def _metres_per_newton(marks: PlaneMarks) -> float:
    """Return the arrow's length per newton, so the peak force is 40% of the reach."""
    peak = peak_force_n(marks.model)
    with np.errstate(all="ignore"):
        reach = marks.kinematics.reach_m
        ratio = _FORCE_SPAN * reach / peak if 0.0 < peak < math.inf else 0.0
    return ratio if math.isfinite(ratio) else 0.0


def _force_at(marks: PlaneMarks, scale: float) -> FloatArray | None:
    name = marks.model.external_force_channel
    channel = None if name is None else marks.model.channels.get(name)
    if channel is None or scale <= 0.0:
        return None
    force = channel.value_at(marks.play_time_s)
    if len(force) < 2 or not np.isfinite(force[:2]).all():
        return None
    result: FloatArray = force[:2]
    return result


def _paint_plane(painter: QPainter, marks: PlaneMarks) -> None:
    from app.canvas.scene_marks import paint_force_arrow

    if marks.joints_m is None:
        return
    scale = marks.canvas.memo("force.m_per_n", lambda: _metres_per_newton(marks))
    force = _force_at(marks, scale)
    if force is None:
        return
    magnitude = float(np.hypot(force[0], force[1]))
    if magnitude <= 1e-9:
        return
    tip = marks.joints_m[-1]
    start = marks.pixels(tip)
    end = marks.pixels(tip + force * scale)
    paint_force_arrow(painter, start, end, magnitude, marks.link_width)


OVERLAY = Overlay(
    name="force",
    label="Show external force",
    help="the arrow of the external force at the tip",
    default=True,
    applies=_applies,
    paints=(Paint(Surface.PLANE, 70, _paint_plane),),
)
