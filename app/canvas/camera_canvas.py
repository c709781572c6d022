"""One camera's recorded frame at a play time, with the task drawn over it.

:class:`CameraCanvas` shows the last frame at or before the play time
(:meth:`fsr_core.recording.CameraTrack.index_at`), letterboxed into the rect it
is given, and projects the arm's tip, the targets, the reference or curve and
the centres of mass through *that frame's own* calibration (its profile and
pose), so an overlay stays on the drawn arm across a zoom or a reset. Plane
points ``(x, y)`` are embedded in the world as ``(x, 0, y)``
(:mod:`fsr_core.simulators.planar_arm.model`). A small readout box names the
camera, its calibration epoch and generation, the intrinsics, the pose
translation and the digest prefix.

Pixel coordinates follow OpenCV: the centre of image pixel ``(i, j)`` is at
``(i, j)``, so it is drawn at ``(i + 0.5, j + 0.5)`` image units into the
letterboxed rect. Decoding a frame is the expensive part, so the decoded frame
of the last index is cached; ``fetch`` is synchronous here.

A straight 3D segment (a path between two recorded points, a chord of a
target's ring, an axis of a body's frame) is not a straight line in a
distorted image: :meth:`ImageView.segments` cuts it in 3D into pieces of at most
about 8 display pixels (at most 64 per segment, 4096 per call), so the drawn
line bends as the recorded image does. Pieces behind the camera, or beyond
the radius where the lens model stops being one to one (a distortion
polynomial folds back outside the field of view it was calibrated over), are
left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QPolygonF,
)

from app.canvas.drawing import painting_in, palette_rgb, qcolor
from app.canvas.drawing import rgb_color as _color
from app.canvas.drawing import ui_font as _font
from app.canvas.overlay import TEXT_Z, Surface
from app.canvas.overlay_registry import paint_shown
from app.canvas.recording_canvas import RecordingCanvas
from app.canvas.shown_text import fixed_text, visible_text
from app.canvas.view_model import ViewModel
from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration, CalibrationProfile, project_points
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack, RecordingModel

__all__ = [
    "PLACEHOLDER_COLOR",
    "CameraCanvas",
    "CameraMarks",
    "ImageView",
    "paint_axis_line",
    "plane_to_world",
    "polyline_runs",
]

_READOUT_FILL: Final = qcolor("camera.readout_fill")
#: Letterbox bars and the "no frame yet" placeholder.
PLACEHOLDER_COLOR: Final = palette_rgb("camera.placeholder")
LETTERBOX_COLOR: Final = palette_rgb("camera.letterbox")
PLACEHOLDER_TEXT_COLOR: Final = palette_rgb("camera.placeholder_text")
READOUT_TEXT_COLOR: Final = palette_rgb("camera.readout_text")

_NO_FRAME: Final = "no frame yet"
_NO_CALIBRATION: Final = "no calibration"
_DIGEST_CHARS: Final = 12
#: Image height (pixels) at which an overlay unit is one display pixel.
_UNIT_HEIGHT_PX: Final = 120.0
_OVERLAY_KEYS: Final = ("tip", "targets", "reference", "curve", "coms")
#: Longest drawn piece of a projected straight 3D segment, display pixels.
_PIECE_PX: Final = 8.0
#: Most pieces one segment is cut into; most samples one call projects.
_MAX_PIECES: Final = 64
_MAX_SAMPLES: Final = 4096
#: The lens is searched for a fold up to this angle off the optical axis.
_LENS_ANGLE_RAD: Final = math.radians(89.5)
_LENS_SAMPLES: Final = 2048
_LENS_DIRECTIONS: Final = 8


@dataclass(frozen=True, eq=False)
class _Frame:
    """A decoded frame and what it was recorded under."""

    index: int
    play_time_s: float
    image: QImage
    calibration: Calibration | None
    values: FloatArray | None = None
    """A measuring camera's value per pixel (depth in metres), else None."""


def plane_to_world(points_xy: npt.ArrayLike) -> FloatArray:
    """Embed plane points ``(x, y)`` in the world as ``(x, 0, y)``, shape (N, 3)."""
    points = np.asarray(points_xy, dtype=np.float64).reshape(-1, 2)
    world: FloatArray = np.zeros((len(points), 3))
    world[:, 0] = points[:, 0]
    world[:, 2] = points[:, 1]
    return world


def _empty() -> FloatArray:
    return np.zeros((0, 2), dtype=np.float64)


@lru_cache(maxsize=32)
def _lens_radius(profile: CalibrationProfile) -> float:
    """Return the normalised radius ``hypot(x, y) / z`` up to which the lens is 1:1.

    Beyond it the distortion polynomial folds back and would draw far points
    inside the image; ``inf`` when it does not fold before 89.5 degrees.
    """
    radius = np.tan(np.linspace(0.0, _LENS_ANGLE_RAD, _LENS_SAMPLES))
    limit = math.inf
    for angle in np.linspace(0.0, 2.0 * math.pi, _LENS_DIRECTIONS, endpoint=False):
        rays = np.column_stack(
            [radius * math.cos(angle), radius * math.sin(angle), np.ones_like(radius)]
        )
        pixels, _ = project_points(rays, profile, None)
        reach = np.hypot(pixels[:, 0] - profile.cx, pixels[:, 1] - profile.cy)
        with np.errstate(invalid="ignore"):
            grows = np.diff(reach) > 0.0
        if not grows.all():
            limit = min(limit, float(radius[int(np.argmin(grows))]))
    return limit


def polyline_runs(shown: FloatArray) -> list[QPolygonF]:
    """Split display points into polylines where a point is missing (NaN).

    Parameters
    ----------
    shown
        Display points, shape (N, 2); a row with a non-finite value breaks the
        line there.

    Returns
    -------
    list of QPolygonF
        The runs of two or more finite points, in order.
    """
    finite = np.isfinite(shown).all(axis=1)
    runs = []
    for run in np.split(shown, np.flatnonzero(~finite)):
        kept = run[np.isfinite(run).all(axis=1)]
        if len(kept) >= 2:
            runs.append(QPolygonF([QPointF(x, y) for x, y in kept.tolist()]))
    return runs


def paint_axis_line(
    painter: QPainter, shown: FloatArray, pen: QPen, shadow: QPen
) -> None:
    """Draw an axis's runs (see :func:`polyline_runs`) in ``pen`` over ``shadow``.

    Every run is drawn with the (wider) ``shadow`` first, so it reads over any
    image.
    """
    for run in polyline_runs(shown):
        painter.setPen(shadow)
        painter.drawPolyline(run)
        painter.setPen(pen)
        painter.drawPolyline(run)


def _to_qimage(pixels: npt.NDArray[np.uint8]) -> QImage:
    height, width = int(pixels.shape[0]), int(pixels.shape[1])
    data = np.ascontiguousarray(pixels)
    view = QImage(data.data, width, height, 3 * width, QImage.Format.Format_RGB888)
    return view.copy()  # owns its pixels once ``data`` is gone


def _letterbox(rect: QRectF, width: int, height: int) -> QRectF:
    """Return the largest rect of the image's aspect ratio centred in ``rect``."""
    scale = min(rect.width() / width, rect.height() / height)
    w, h = width * scale, height * scale
    return QRectF(
        rect.left() + 0.5 * (rect.width() - w),
        rect.top() + 0.5 * (rect.height() - h),
        w,
        h,
    )


@dataclass(frozen=True, eq=False)
class ImageView:
    """Where a frame is shown: image pixels to display pixels, through a calibration."""

    target: QRectF
    width: int
    height: int
    calibration: Calibration

    @property
    def unit(self) -> float:
        """Overlay size unit, display pixels: grows with the shown image."""
        return max(1.0, self.target.height() / _UNIT_HEIGHT_PX)

    @property
    def scale(self) -> float:
        """Display pixels per image pixel."""
        return self.target.width() / self.width

    def project(self, points_xy: npt.ArrayLike) -> FloatArray:
        """Project plane points to image pixels (NaN behind the camera)."""
        pixels, _ = project_points(
            plane_to_world(points_xy), self.calibration.profile, self.calibration.pose
        )
        return pixels

    def display(self, pixels: FloatArray) -> FloatArray:
        """Map image pixels (pixel centres at integers) into ``target``."""
        scale = self.scale
        shown: FloatArray = np.empty_like(pixels)
        shown[:, 0] = self.target.left() + (pixels[:, 0] + 0.5) * scale
        shown[:, 1] = self.target.top() + (pixels[:, 1] + 0.5) * scale
        return shown

    def _lens_pixels(self, points_world: FloatArray) -> FloatArray:
        """Image pixels of world points: NaN behind the camera or past the lens."""
        profile, pose = self.calibration.profile, self.calibration.pose
        camera = points_world if pose is None else pose.world_to_camera(points_world)
        pixels, _ = project_points(camera, profile, None)
        limit = _lens_radius(profile)
        if math.isfinite(limit):
            with np.errstate(divide="ignore", invalid="ignore"):
                radius = np.hypot(camera[:, 0], camera[:, 1]) / camera[:, 2]
            pixels[~(radius <= limit)] = np.nan  # behind the camera: NaN already
        return pixels

    def segments(self, starts: FloatArray, ends: FloatArray) -> list[FloatArray]:
        """Display points along straight 3D segments, cut to bend with the lens.

        Segment ``i`` runs from ``starts[i]`` to ``ends[i]`` (world, shape
        (S, 3)) and becomes ``k + 1`` evenly spaced points, ``k`` chosen from
        its projected length so a piece spans about ``_PIECE_PX`` display
        pixels (1 to ``_MAX_PIECES``; fewer when all of them would exceed
        ``_MAX_SAMPLES``). A point behind the camera or past the lens is NaN.
        """
        if not len(starts):
            return []
        shown, counts = self._cut(starts, ends)
        return np.split(shown, np.cumsum(counts)[:-1])

    def _cut(
        self, starts: FloatArray, ends: FloatArray
    ) -> tuple[FloatArray, npt.NDArray[np.int64]]:
        """Return :meth:`segments` as one array and each segment's point count."""
        count = len(starts)
        middles = 0.5 * (starts + ends)
        coarse = self.display(self._lens_pixels(np.vstack([starts, middles, ends])))
        first, middle, last = coarse.reshape(3, count, 2)
        length = np.hypot(*(middle - first).T) + np.hypot(*(last - middle).T)
        with np.errstate(invalid="ignore"):
            wanted = np.where(
                np.isfinite(length), np.ceil(length / _PIECE_PX), _MAX_PIECES
            )
        pieces = np.clip(wanted, 1, _MAX_PIECES).astype(np.int64)
        total = int(pieces.sum())
        if total > _MAX_SAMPLES:
            pieces = np.maximum(1, pieces * _MAX_SAMPLES // total)
        counts = pieces + 1
        owner = np.repeat(np.arange(count), counts)
        offsets = np.cumsum(counts) - counts
        t = (np.arange(int(counts.sum())) - offsets[owner]) / pieces[owner]
        samples = starts[owner] + t[:, np.newaxis] * (ends - starts)[owner]
        return self.display(self._lens_pixels(samples)), counts

    def path(self, points_world: FloatArray, *, closed: bool = False) -> FloatArray:
        """Display points of a 3D polyline, each segment cut as :meth:`segments`.

        ``closed`` joins the last point back to the first. NaN rows break the
        line where it is behind the camera or past the lens.
        """
        points = points_world
        if closed and len(points):
            points = np.vstack([points, points[:1]])
        if len(points) < 2:
            return self.display(self._lens_pixels(points))
        shown, counts = self._cut(points[:-1], points[1:])
        repeated = np.cumsum(counts)[:-1]  # a segment's first point ends the last
        keep = np.ones(len(shown), dtype=bool)
        keep[repeated] = False
        return shown[keep]

    def visible(self, points_xy: npt.ArrayLike) -> list[QPointF]:
        """Display points of the plane points in front and inside the image."""
        pixels = self.project(points_xy)
        u, v = pixels[:, 0], pixels[:, 1]
        with np.errstate(invalid="ignore"):
            keep = (
                np.isfinite(pixels).all(axis=1)
                & (u >= -0.5)
                & (u <= self.width - 0.5)
                & (v >= -0.5)
                & (v <= self.height - 0.5)
            )
        return [QPointF(x, y) for x, y in self.display(pixels[keep]).tolist()]


@dataclass(frozen=True, eq=False)
class CameraMarks:
    """What an overlay draws over a camera frame from.

    ``view`` maps the frame's image to the display through its calibration;
    it is None on a frame without one, where only text painters
    (``z >= TEXT_Z``) run. ``points`` are the recording's points at the
    frame's time that the canvas projects (see
    :meth:`CameraCanvas.overlay_pixels`): plane points of a planar recording,
    world points of a 3D scene.
    """

    canvas: CameraCanvas
    target: QRectF
    frame_time_s: float
    play_time_s: float
    view: ImageView | None
    points: Mapping[str, FloatArray] = field(default_factory=dict)

    @property
    def model(self) -> RecordingModel:
        """The recording drawn."""
        return self.canvas.model

    def visible(self, key: str) -> list[QPointF]:
        """Return where ``points[key]`` (plane points) show inside the frame.

        Empty on a frame without calibration or when the recording has none.
        """
        points = self.points.get(key)
        if self.view is None or points is None:
            return []
        return self.view.visible(points)


class CameraCanvas(RecordingCanvas):
    """Draws one camera's recorded frame at a play time.

    Overlays are projected through the frame's own calibration. No widgets:
    :meth:`paint` serves the window's view and the export alike.

    """

    #: Which overlay painters draw over this canvas's frames.
    surface: Surface = Surface.CAMERA

    def __init__(
        self,
        model: RecordingModel,
        camera: str,
        options: ViewModel | None = None,
        *,
        fetch_on_paint: bool = True,
    ) -> None:
        tracks = {track.name: track for track in model.cameras}
        if camera not in tracks:
            known = ", ".join(repr(name) for name in tracks) or "none"
            raise ValueError(
                f"no camera {camera!r} in {model.path.name}; known cameras: {known}"
            )
        super().__init__(model, options, LETTERBOX_COLOR)
        self._track: CameraTrack = tracks[camera]
        self._cached: _Frame | None = None
        self._fetch_on_paint = fetch_on_paint
        self._error: tuple[int, str] | None = None
        self._probe: tuple[int, int] | None = None

    @property
    def camera(self) -> str:
        """The camera's name."""
        return self._track.name

    # -- frames -----------------------------------------------------------

    def wanted_index(self, play_time_s: float) -> int | None:
        """Return the index of the frame recorded for ``play_time_s`` (None before)."""
        return self._track.index_at(play_time_s)

    @property
    def shown_index(self) -> int | None:
        """Index of the decoded frame the canvas holds (None before the first)."""
        return None if self._cached is None else self._cached.index

    @property
    def error_index(self) -> int | None:
        """Index of the frame that failed to decode (its error tile is drawn)."""
        return None if self._error is None else self._error[0]

    def store(
        self,
        index: int,
        frame: RGBFrame,
        calibration: Calibration | None,
        values: FloatArray | None = None,
    ) -> None:
        """Keep a frame decoded elsewhere (a worker) as the one to draw.

        ``values`` are a measuring camera's per-pixel values (its track's
        ``values``), read out under the probe.
        """
        self._cached = _Frame(
            index,
            float(self._track.times_s[index]),
            _to_qimage(frame.pixels),
            calibration,
            values,
        )
        self._error = None

    # -- probe ------------------------------------------------------------

    def probe_pixel(self, rect: QRectF, point: QPointF) -> tuple[int, int] | None:
        """Return the image pixel ``(x, y)`` under ``point`` (None: off the image)."""
        cached = self._cached
        if cached is None:
            return None
        width, height = cached.image.width(), cached.image.height()
        target = _letterbox(rect, width, height)
        if not target.contains(point):
            return None
        x = int((point.x() - target.left()) / target.width() * width)
        y = int((point.y() - target.top()) / target.height() * height)
        return min(max(x, 0), width - 1), min(max(y, 0), height - 1)

    def set_probe(self, pixel: tuple[int, int] | None) -> None:
        """Read out the value at image pixel ``pixel`` (None: no probe)."""
        self._probe = pixel

    def _value_lines(self, frame: _Frame) -> list[str]:
        """Return a measuring camera's scale and the value under the probe."""
        track = self._track
        lines = []
        if track.value_range is not None:
            low, high = track.value_range
            unit = track.value_unit
            lines.append(f"scale {fixed_text(low, 3)} to {fixed_text(high, 3)} {unit}")
        values, probe = frame.values, self._probe
        if values is not None and probe is not None:
            x, y = probe
            if 0 <= y < values.shape[0] and 0 <= x < values.shape[1]:
                value = float(values[y, x])
                lines.append(
                    f"({x}, {y}): {fixed_text(value, 3)} {track.value_unit}".rstrip()
                )
        return lines

    def store_error(self, index: int, message: str) -> None:
        """Show an error tile for frame ``index`` until another frame is stored."""
        self._error = (index, message)

    def _frame(self, play_time_s: float) -> _Frame | None:
        """Return the frame shown at ``play_time_s`` (decoded once per index).

        Without ``fetch_on_paint`` nothing is decoded here: the last stored
        frame is shown until a worker stores the wanted one.
        """
        index = self._track.index_at(play_time_s)
        if index is None:
            return None
        cached = self._cached
        if not self._fetch_on_paint or (cached is not None and cached.index == index):
            return cached
        frame, calibration = self._track.fetch(index)
        values = None if self._track.values is None else self._track.values(index)
        self.store(index, frame, calibration, values)
        return self._cached

    # -- overlays ---------------------------------------------------------

    def overlay_pixels(self, play_time_s: float) -> dict[str, FloatArray]:
        """Return the overlays of the frame shown at ``play_time_s``, in image pixels.

        Keys ``"tip"`` (shape (1, 2)), ``"targets"``, ``"reference"``,
        ``"curve"`` and ``"coms"`` (shape (N, 2)), in the frame's pixel
        coordinates before letterboxing (OpenCV: pixel ``(i, j)`` centred at
        ``(i, j)``). A point behind the camera is NaN; an overlay the recording
        lacks, or any before the first frame, is an empty (0, 2) array. Drawing
        options do not change what is returned.
        """
        result = {key: _empty() for key in _OVERLAY_KEYS}
        frame = self._frame(play_time_s)
        if frame is None or frame.calibration is None:
            return result
        plane = self._plane_points(frame.play_time_s)
        for key, points in plane.items():
            if len(points):
                result[key] = self._project(frame.calibration, points)
        return result

    def marked_points(self, frame_time_s: float) -> dict[str, FloatArray]:
        """Return the points the overlays mark at ``frame_time_s`` (plane points)."""
        return self._plane_points(frame_time_s)

    def _plane_points(self, frame_time_s: float) -> dict[str, FloatArray]:
        points: dict[str, FloatArray] = {}
        kinematics = self._model.kinematics
        q = self._model.joint_angles_at(frame_time_s)
        if (
            kinematics is not None
            and q is not None
            and len(q) == len(kinematics.lengths_m)
            and np.isfinite(q).all()
        ):
            points["tip"] = kinematics.joint_positions(q)[-1:]
            coms = kinematics.com_positions(q)
            if coms is not None:
                points["coms"] = coms
        overlay = self._model.overlay_at(frame_time_s)
        if overlay is not None:
            points["targets"] = np.asarray(overlay.targets_xy, dtype=np.float64)
            points["reference"] = np.asarray(overlay.reference_xy, dtype=np.float64)
            points["curve"] = np.asarray(overlay.curve_xy, dtype=np.float64)
        return points

    @staticmethod
    def _project(calibration: Calibration, points_xy: npt.ArrayLike) -> FloatArray:
        pixels, _ = project_points(
            plane_to_world(points_xy), calibration.profile, calibration.pose
        )
        return pixels

    # -- readout ----------------------------------------------------------

    def readout_lines(self, play_time_s: float) -> list[str]:
        """Return the readout box's lines for the frame shown at ``play_time_s``.

        Camera name and frame, ``"epoch E, generation G"``, ``"fx .. fy .. cx ..
        cy .."``, the pose translation and the digest's first 12 hex characters;
        ``[name, "no frame yet"]`` before the first frame. A measuring camera
        (depth) adds its colour scale and the value under the probe, calibrated
        or not.
        """
        frame = self._frame(play_time_s)
        if frame is None:
            return [self.camera, _NO_FRAME]
        head = f"{self.camera}  frame {frame.index}"
        calibration = frame.calibration
        if calibration is None:
            measured = self._value_lines(frame)
            return [head, *measured] if measured else [head, _NO_CALIBRATION]
        k = calibration.profile
        lines = [
            head,
            f"epoch {calibration.epoch}, generation {calibration.generation}",
            f"fx {fixed_text(k.fx, 1)}  fy {fixed_text(k.fy, 1)}  "
            f"cx {fixed_text(k.cx, 1)}  cy {fixed_text(k.cy, 1)}",
        ]
        if calibration.pose is None:
            lines.append("pose unknown")
        else:
            x, y, z = (float(v) for v in calibration.pose.translation_m)
            shown = ", ".join(fixed_text(value, 3) for value in (x, y, z))
            lines.append(f"t ({shown}) m")
        hex_digest = calibration.digest.rpartition(":")[2]  # "sha256:<hex>"
        lines.append(f"digest {hex_digest[:_DIGEST_CHARS]}")
        return [*lines, *self._value_lines(frame)]

    # -- painting ---------------------------------------------------------

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the frame shown at ``play_time_s``, letterboxed into ``rect``."""
        with painting_in(painter, rect, smooth_images=True):
            painter.fillRect(rect, _color(LETTERBOX_COLOR))
            frame = self._frame(play_time_s)
            error = self._error
            if error is not None and error[0] == self.wanted_index(play_time_s):
                self._paint_placeholder(painter, rect, f"frame {error[0]}: {error[1]}")
            elif frame is None:
                self._paint_placeholder(painter, rect)
            else:
                image = frame.image
                target = _letterbox(rect, image.width(), image.height())
                painter.drawImage(target, image)
                painter.setClipRect(target.intersected(rect))
                self._paint_overlays(painter, target, frame, play_time_s)

    def _paint_placeholder(
        self, painter: QPainter, rect: QRectF, message: str = _NO_FRAME
    ) -> None:
        size = self._track_size()
        target = rect if size is None else _letterbox(rect, *size)
        painter.fillRect(target, _color(PLACEHOLDER_COLOR))
        painter.setFont(_font(max(10.0, 0.06 * min(target.height(), target.width()))))
        painter.setPen(_color(PLACEHOLDER_TEXT_COLOR))
        painter.drawText(
            target,
            Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
            visible_text(f"{self.camera}: {message}"),
        )

    def _track_size(self) -> tuple[int, int] | None:
        """Return the image size to letterbox the placeholder to, once known."""
        cached = self._cached
        if cached is None:
            return None
        return cached.image.width(), cached.image.height()

    def _paint_overlays(
        self, painter: QPainter, target: QRectF, frame: _Frame, play_time_s: float
    ) -> None:
        """Paint the shown overlays: all on a calibrated frame, else the text."""
        calibration = frame.calibration
        view = None
        low = TEXT_Z
        if calibration is not None:
            view = ImageView(
                target, frame.image.width(), frame.image.height(), calibration
            )
            low = -(2**31)
        points = self.marked_points(frame.play_time_s) if view is not None else {}
        marks = CameraMarks(self, target, frame.play_time_s, play_time_s, view, points)
        paint_shown(painter, marks, self.surface, self._options.overlays, low)

    def paint_readout(
        self, painter: QPainter, target: QRectF, play_time_s: float
    ) -> None:
        """Draw the readout box (:meth:`readout_lines`) at ``target``'s top left."""
        self._paint_readout(painter, target, play_time_s)

    def _paint_readout(
        self, painter: QPainter, target: QRectF, play_time_s: float
    ) -> None:
        lines = self.readout_lines(play_time_s)
        size = max(8.0, 0.032 * target.height())
        painter.setFont(_font(size))
        metrics = QFontMetricsF(painter.font())
        pad = 0.45 * size
        line_height = metrics.lineSpacing()
        width = max(metrics.horizontalAdvance(line) for line in lines)
        box = QRectF(
            target.left() + pad,
            target.top() + pad,
            width + 2.0 * pad,
            line_height * len(lines) + 1.2 * pad,
        )
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(_READOUT_FILL))
        painter.drawRoundedRect(box, 0.4 * pad, 0.4 * pad)
        painter.setPen(_color(READOUT_TEXT_COLOR))
        baseline = box.top() + 0.6 * pad + metrics.ascent()
        for line in lines:
            painter.drawText(QPointF(box.left() + pad, baseline), line)
            baseline += line_height
