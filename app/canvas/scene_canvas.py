"""The planar scene: the arm, its task overlays and the tip force, at a play time.

:class:`SceneCanvas` paints with ``QPainter`` only (no widgets), so the same
code draws the window's view and every export frame. The view is fitted once
per recording (the arm's whole reach around its base plus every overlay point,
with a margin), so the picture never rescales while it plays. The plane's y
axis points up. The arm's colours are the palette's ``arm`` entries, which the
core's camera renderer draws with too, so a link has the same colour in the
camera frames and here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QImage,
    QPainter,
    QPainterPath,
)

from app.canvas.drawing import painting_in, palette_cycle, palette_rgb
from app.canvas.drawing import rgb_color as _color
from app.canvas.drawing import ui_font as _font
from app.canvas.overlay import Surface
from app.canvas.overlay_registry import paint_shown
from app.canvas.recording_canvas import RecordingCanvas
from app.canvas.scene_marks import (
    MUTED_TEXT_COLOR,
    WORKSPACE_COLOR,
    darker,
    disc,
    paint_disc,
    paint_time_label,
    pen,
)
from app.canvas.shown_text import fixed_text
from app.canvas.view_model import ViewModel
from fsr_core.arrays import FloatArray
from fsr_core.recording import PlanarKinematics, RecordingModel, TaskOverlay

__all__ = ["PlaneMarks", "SceneCanvas"]


Rgb = tuple[int, int, int]

#: Links cycle through these, so neighbouring links are told apart.
LINK_COLORS: Final = palette_cycle("arm.links")
BASE_COLOR: Final = palette_rgb("arm.base")
JOINT_COLOR: Final = palette_rgb("arm.joint")
TIP_COLOR: Final = palette_rgb("arm.tip")
BACKGROUND: Final = palette_rgb("scene.background")
WORKSPACE_FILL: Final = palette_rgb("scene.workspace_fill")
GROUND_COLOR: Final = palette_rgb("scene.ground")
#: A fixed base link between the mount and the first joint (skelarm's grey).
BASE_LINK_COLOR: Final = palette_rgb("scene.base_link")
#: The centre of each joint, and the rim of joint, tip and centre-of-mass discs.
PIN_COLOR: Final = palette_rgb("scene.pin")
OUTLINE_COLOR: Final = palette_rgb("scene.outline")

#: Empty space around the fitted scene, as a fraction of its larger side.
_MARGIN: Final = 0.07
_NO_KINEMATICS: Final = "no scene recorded: no joint angles or 3D geometry"
_NOT_DRAWABLE: Final = "joint angles too large to draw at this time (see the panel)"
#: Largest plane coordinate (metres) the scene is fitted to; a bigger reach is
#: said in words, and overlay points farther out are left out of the fit.
MAX_SCENE_M: Final = 1e9
#: Pixel coordinates are clamped this far outside the view, so a far point
#: draws as a line leaving the view, never a number the rasteriser chokes on.
MAX_OFF_VIEW_PX: Final = 1e5
#: Overlay depths (:class:`~app.canvas.overlay.Paint`): below 0 the
#: still backdrop, from 0 under the arm, from 50 over it.
_ARM_Z: Final = 50


@dataclass(frozen=True, eq=False)
class PlaneMarks:
    """What an overlay draws on the planar scene from, for one frame.

    ``q`` and ``joints_m`` (the joint angles and the joints' plane positions,
    base to tip) are given to the painters over the arm only (``z >= 50``),
    which run only when the arm could be drawn; ``task`` is the task overlay
    in force (None without one).
    """

    canvas: SceneCanvas
    rect: QRectF
    play_time_s: float
    kinematics: PlanarKinematics
    link_width: float
    task: TaskOverlay | None
    q: FloatArray | None = None
    joints_m: FloatArray | None = None

    @property
    def model(self) -> RecordingModel:
        """The recording drawn."""
        return self.canvas.model

    @property
    def px_per_m(self) -> float:
        """Pixels per metre of the plane in :attr:`rect`."""
        return self.canvas.scale(self.rect)

    def pixels(self, xy_plane: npt.ArrayLike) -> FloatArray:
        """Map plane points (metres, y up), shape ``(..., 2)``, to pixels."""
        return self.canvas.to_pixel(self.rect, xy_plane)


@dataclass(frozen=True)
class _Fit:
    """The plane rectangle (metres) that the view shows, fitted once."""

    center_x_m: float
    center_y_m: float
    width_m: float
    height_m: float


@dataclass(frozen=True, eq=False)
class _Backdrop:
    """What the still part of a frame is drawn from (see ``_paint_backdrop``)."""

    kinematics: PlanarKinematics
    link_width: float
    overlay: TaskOverlay | None


def _overlay_points(overlay: TaskOverlay) -> list[tuple[float, float]]:
    """Every plane point an overlay draws, tolerance rings included."""
    points = list(overlay.curve_xy) + list(overlay.reference_xy)
    pad = overlay.tolerance_m or 0.0
    for x, y in overlay.targets_xy:
        points += [(x - pad, y - pad), (x + pad, y + pad)]
    return points


def too_large_reason(kinematics: PlanarKinematics) -> str | None:
    """Return why the arm cannot be drawn to scale (None when it can).

    A link length, base or mount beyond :data:`MAX_SCENE_M` (``1e308`` in a
    file is a finite number) leaves no scale at which the arm fits a view.
    """
    with np.errstate(all="ignore"):
        reach = kinematics.reach_m
        corners = np.asarray(
            [kinematics.base_m, kinematics.support_m], dtype=np.float64
        )
    if not math.isfinite(reach) or reach > MAX_SCENE_M:
        shown = fixed_text(float(np.abs(kinematics.lengths_m).max()), 3)
        return f"arm too large to draw (a link of {shown} m)"
    if not np.isfinite(corners).all() or np.abs(corners).max() > MAX_SCENE_M:
        return "arm too far from the origin to draw"
    return None


def _fit(model: RecordingModel, kinematics: PlanarKinematics) -> _Fit:
    reach = max(kinematics.reach_m, 1e-6)
    base_x, base_y = kinematics.base_m
    points = [
        (base_x - reach, base_y - reach),
        (base_x + reach, base_y + reach),
        kinematics.support_m,
    ]
    for overlay in model.overlays.values():
        points += _overlay_points(overlay)
    array = np.asarray(points, dtype=np.float64)
    with np.errstate(all="ignore"):
        inside = np.isfinite(array).all(axis=1) & (np.abs(array) <= MAX_SCENE_M).all(
            axis=1
        )
    array = array[inside]
    low, high = array.min(axis=0), array.max(axis=0)
    span = float((high - low).max())
    size = high - low + 2.0 * _MARGIN * span
    center = 0.5 * (low + high)
    return _Fit(float(center[0]), float(center[1]), float(size[0]), float(size[1]))


def _paint_link(
    painter: QPainter, start: QPointF, end: QPointF, rgb: Rgb, width: float
) -> None:
    """Draw a link from ``start`` to ``end`` in ``rgb``, outlined a shade darker."""
    painter.setPen(pen(darker(rgb), width + 2.0))
    painter.drawLine(start, end)
    painter.setPen(pen(_color(rgb), width))
    painter.drawLine(start, end)


def _whole_pixel_ratio(painter: QPainter, rect: QRectF) -> float | None:
    """Return the device pixel ratio if ``rect`` is on whole device pixels.

    That is: the painter only scales by the device's pixel ratio and
    translates, and ``rect`` lands on integer device pixels, so an image of
    ``rect`` at that ratio is copied without resampling.
    """
    device = painter.device()
    ratio = device.devicePixelRatioF() if device is not None else 1.0
    transform = painter.deviceTransform()
    if (
        transform.m12() != 0.0
        or transform.m21() != 0.0
        or transform.m13() != 0.0
        or transform.m23() != 0.0
        or not math.isclose(transform.m11(), ratio)
        or not math.isclose(transform.m22(), ratio)
    ):
        return None
    corner = transform.map(rect.topLeft())
    for value in (corner.x(), corner.y(), rect.width() * ratio, rect.height() * ratio):
        if abs(value - round(value)) > 1e-6:
            return None
    return ratio


class SceneCanvas(RecordingCanvas):
    """Draws a RecordingModel's planar scene at a play time with QPainter.

    No widgets: :meth:`paint` serves the window's view and the export alike.
    """

    def __init__(self, model: RecordingModel, options: ViewModel | None = None) -> None:
        super().__init__(model, options, BACKGROUND)
        self._backdrop_cache: (
            tuple[tuple[float, ...], QImage, TaskOverlay | None] | None
        ) = None
        kinematics = model.kinematics
        self._too_large = None if kinematics is None else too_large_reason(kinematics)
        if self._too_large is not None:
            kinematics = None
        self._kinematics = kinematics
        self._fit = None if kinematics is None else _fit(model, kinematics)

    # -- geometry ---------------------------------------------------------

    def scale(self, rect: QRectF) -> float:
        """Pixels per metre for ``rect``."""
        if self._fit is None:
            return 1.0
        return min(rect.width() / self._fit.width_m, rect.height() / self._fit.height_m)

    def to_pixel(self, rect: QRectF, xy_plane: npt.ArrayLike) -> FloatArray:
        """Map plane points (metres, y up), shape ``(..., 2)``, to pixels."""
        points = np.asarray(xy_plane, dtype=np.float64)
        center_x = self._fit.center_x_m if self._fit else 0.0
        center_y = self._fit.center_y_m if self._fit else 0.0
        scale = self.scale(rect)
        result: FloatArray = np.empty_like(points)
        with np.errstate(all="ignore"):
            result[..., 0] = rect.center().x() + (points[..., 0] - center_x) * scale
            result[..., 1] = rect.center().y() - (points[..., 1] - center_y) * scale
        reach = MAX_OFF_VIEW_PX + max(rect.width(), rect.height())
        np.clip(result, -reach, reach, out=result)
        return result

    def _point(self, rect: QRectF, xy_plane: npt.ArrayLike) -> QPointF:
        x, y = self.to_pixel(rect, xy_plane)
        return QPointF(float(x), float(y))

    # -- painting ---------------------------------------------------------

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the scene at ``play_time_s`` into ``rect`` (fills it)."""
        with painting_in(painter, rect):
            kinematics = self._kinematics
            q = None if kinematics is None else self._model.joint_angles_at(play_time_s)
            if kinematics is None or q is None:
                painter.fillRect(rect, _color(BACKGROUND))
                self._paint_message(painter, rect, self._too_large or _NO_KINEMATICS)
            else:
                self._paint_scene(painter, rect, kinematics, q, play_time_s)
            paint_time_label(painter, rect, play_time_s)

    def _link_width(self, rect: QRectF, kinematics: PlanarKinematics) -> float:
        reach_px = kinematics.reach_m * self.scale(rect)
        return float(np.clip(0.038 * reach_px, 3.0, 30.0))

    def _paint_scene(
        self,
        painter: QPainter,
        rect: QRectF,
        kinematics: PlanarKinematics,
        q: FloatArray,
        play_time_s: float,
    ) -> None:
        width = self._link_width(rect, kinematics)
        task = self._model.overlay_at(play_time_s)
        marks = PlaneMarks(self, rect, play_time_s, kinematics, width, task)
        self._paint_backdrop(painter, rect, _Backdrop(kinematics, width, task))
        self._paint_marks(painter, marks, 0, _ARM_Z)
        if len(q) != len(kinematics.lengths_m) or not np.isfinite(q).all():
            return
        with np.errstate(all="ignore"):
            joints = kinematics.joint_positions(q)
        if not np.isfinite(joints).all():
            self._paint_message(painter, rect, _NOT_DRAWABLE)
            return
        self._paint_arm(
            painter,
            rect,
            self.to_pixel(rect, joints),
            width,
            mounted_here=kinematics.mount_m is None,
        )
        over = PlaneMarks(
            self, rect, play_time_s, kinematics, width, task, q=q, joints_m=joints
        )
        self._paint_marks(painter, over, _ARM_Z, 2**31)
        self._paint_tip(painter, self._point(rect, joints[-1]), width)

    def _paint_marks(
        self, painter: QPainter, marks: PlaneMarks, low: int, high: int
    ) -> None:
        """Paint the shown overlays of depth ``low <= z < high``."""
        paint_shown(painter, marks, Surface.PLANE, self._options.overlays, low, high)

    def _paint_backdrop(
        self, painter: QPainter, rect: QRectF, backdrop: _Backdrop
    ) -> None:
        """Draw what does not move: background, reach disc, support, task paths.

        They are the same in every frame of a task, and drawing them (the
        antialiased reference curve above all) was about half of a frame's
        drawing time; so they are painted once per view and task into an
        opaque image that every frame copies pixel for pixel. A view that is
        not on whole device pixels (a scaled or fractional painter) is drawn
        directly, so the picture is the same either way.
        """
        ratio = _whole_pixel_ratio(painter, rect)
        if ratio is None:
            self._paint_backdrop_layers(painter, rect, backdrop)
            return
        overlay = backdrop.overlay
        key = (ratio, rect.width(), rect.height(), id(overlay))
        cached = self._backdrop_cache
        if cached is None or cached[0] != key or cached[2] is not overlay:
            image = QImage(
                round(rect.width() * ratio),
                round(rect.height() * ratio),
                QImage.Format.Format_ARGB32_Premultiplied,
            )
            image.setDevicePixelRatio(ratio)
            layer = QPainter(image)
            layer.setRenderHints(painter.renderHints())
            local = QRectF(0.0, 0.0, rect.width(), rect.height())
            self._paint_backdrop_layers(layer, local, backdrop)
            layer.end()
            cached = self._backdrop_cache = (key, image, overlay)
        painter.save()
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        painter.drawImage(rect.topLeft(), cached[1])
        painter.restore()

    def _paint_backdrop_layers(
        self, painter: QPainter, rect: QRectF, backdrop: _Backdrop
    ) -> None:
        painter.fillRect(rect, _color(BACKGROUND))
        self._paint_workspace(painter, rect, backdrop.kinematics, backdrop.link_width)
        marks = PlaneMarks(
            self,
            rect,
            math.nan,
            backdrop.kinematics,
            backdrop.link_width,
            backdrop.overlay,
        )
        self._paint_marks(painter, marks, -(2**31), 0)

    def _paint_workspace(
        self,
        painter: QPainter,
        rect: QRectF,
        kinematics: PlanarKinematics,
        width: float,
    ) -> None:
        """Draw the reach disc (faint) and a fixed-support symbol under the mount.

        An arm mounted away from its first joint (skelarm's ``base_length``)
        also gets its fixed base link, grey as skelarm draws it, and the base
        disc at the mount.
        """
        reach_px = kinematics.reach_m * self.scale(rect)
        rim = pen(_color(WORKSPACE_COLOR), 1.2, Qt.PenStyle.DashLine)
        center = self._point(rect, kinematics.base_m)
        paint_disc(painter, center, reach_px, _color(WORKSPACE_FILL), rim)
        base = self._point(rect, kinematics.support_m)
        half = 2.1 * width
        plate_y = base.y() + 1.35 * width
        hatch = 0.6 * width
        painter.setPen(pen(_color(GROUND_COLOR), 1.3))
        steps = 7
        for i in range(1, steps + 1):
            x = base.x() - half + 2.0 * half * i / steps
            painter.drawLine(QPointF(x, plate_y), QPointF(x - hatch, plate_y + hatch))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_color(GROUND_COLOR))
        stem = QPainterPath()
        stem.moveTo(base.x() - 0.9 * width, plate_y)
        stem.lineTo(base.x() + 0.9 * width, plate_y)
        stem.lineTo(base.x(), base.y())
        stem.closeSubpath()
        painter.drawPath(stem)
        painter.setPen(pen(_color(GROUND_COLOR), max(2.0, 0.25 * width)))
        painter.drawLine(
            QPointF(base.x() - half, plate_y), QPointF(base.x() + half, plate_y)
        )
        if kinematics.mount_m is not None:
            joint = self._point(rect, kinematics.base_m)
            _paint_link(painter, base, joint, BASE_LINK_COLOR, width)
            rim = pen(_color(OUTLINE_COLOR), 1.5)
            paint_disc(painter, base, 0.85 * width, _color(BASE_COLOR), rim)
            pin_px = max(1.2, 0.2 * width)
            paint_disc(painter, base, pin_px, _color(PIN_COLOR), Qt.PenStyle.NoPen)

    def _paint_arm(
        self,
        painter: QPainter,
        rect: QRectF,
        joints_px: FloatArray,
        width: float,
        mounted_here: bool,
    ) -> None:
        points = [QPointF(float(x), float(y)) for x, y in joints_px]
        links = len(points) - 1
        for i in range(links):
            rgb = LINK_COLORS[i % len(LINK_COLORS)]
            _paint_link(painter, points[i], points[i + 1], rgb, width)
        pin = _color(PIN_COLOR)
        painter.setPen(pen(_color(OUTLINE_COLOR), 1.5))
        if mounted_here:
            painter.setBrush(_color(BASE_COLOR))
            disc(painter, points[0], 0.85 * width)
        painter.setBrush(_color(JOINT_COLOR))
        for point in points[int(mounted_here) : -1]:
            disc(painter, point, 0.62 * width)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(pin)
        for point in points[:-1]:
            disc(painter, point, max(1.2, 0.2 * width))

    def _paint_tip(self, painter: QPainter, tip: QPointF, width: float) -> None:
        rim = pen(_color(OUTLINE_COLOR), 1.8)
        paint_disc(painter, tip, max(3.0, 0.58 * width), _color(TIP_COLOR), rim)

    def _paint_message(self, painter: QPainter, rect: QRectF, message: str) -> None:
        painter.setFont(_font(max(12.0, 0.025 * min(rect.height(), rect.width()))))
        painter.setPen(_color(MUTED_TEXT_COLOR))
        painter.drawText(
            rect,
            Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
            message,
        )
