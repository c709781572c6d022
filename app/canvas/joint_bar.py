"""A joint's bar: where its value sits within its limits, as both panels draw it.

The track spans the limits; a fill runs from zero to the value and a knob
marks it, in the joint's colour (the link's, as in the scene). A value
beyond a limit pins the knob to that end and draws it in the out-of-limits
colour, so it shows at a glance. A joint without limits has no bar.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from app.canvas.drawing import palette_cycle, qcolor
from app.canvas.panel_rows.base import JointValue

__all__ = ["BAR_HEIGHT_PX", "OUT_OF_LIMITS_COLOR", "joint_color", "paint_joint_bar"]

TRACK_COLOR: Final = qcolor("panel.track")
KNOB_OUTLINE_COLOR: Final = qcolor("panel.knob_outline")
OUT_OF_LIMITS_COLOR: Final = qcolor("panel.out_of_limits")
_LINK_COLORS: Final = palette_cycle("arm.links")
#: Height a bar needs: the knob's diameter and its outline.
BAR_HEIGHT_PX: Final = 16.0
_TRACK_PX: Final = 6.0
_KNOB_RADIUS_PX: Final = 7.0


def joint_color(index: int) -> QColor:
    """Return joint ``index``'s colour: its link's in the scene."""
    red, green, blue = _LINK_COLORS[index % len(_LINK_COLORS)]
    return QColor(red, green, blue)


def paint_joint_bar(
    painter: QPainter, rect: QRectF, joint: JointValue, color: QColor
) -> None:
    """Paint ``joint``'s bar across ``rect``, centred; nothing without limits."""
    if not joint.has_limits:
        return
    inset = _KNOB_RADIUS_PX  # the knob stays inside the rect at either end
    left, right = rect.left() + inset, rect.right() - inset
    middle = rect.center().y()
    top = middle - _TRACK_PX / 2
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(TRACK_COLOR)
    painter.drawRoundedRect(QRectF(left, top, right - left, _TRACK_PX), 3.0, 3.0)
    fraction = joint.fraction
    if fraction is not None:
        knob = OUT_OF_LIMITS_COLOR if joint.outside else color
        x_value = left + fraction * (right - left)
        x_zero = left + joint.zero_fraction * (right - left)
        fill = QColor(knob)
        fill.setAlpha(150)
        painter.setBrush(fill)
        painter.drawRoundedRect(
            QRectF(min(x_zero, x_value), top, abs(x_value - x_zero), _TRACK_PX),
            3.0,
            3.0,
        )
        painter.setPen(QPen(KNOB_OUTLINE_COLOR, 2.0))
        painter.setBrush(knob)
        painter.drawEllipse(QPointF(x_value, middle), _KNOB_RADIUS_PX, _KNOB_RADIUS_PX)
    painter.restore()
