"""A recorded 3D scene (e.g. a MuJoCo run) drawn with QPainter, no simulator needed.

:class:`GeometryCanvas` is the scene view of a recording whose model has
:class:`~fsr_core.recording.SceneGeometry` and no planar arm: every recorded
mesh posed by its body's recorded transform at the play time, seen through a
fixed perspective view fitted once per recording (the bodies' whole motion and
the targets, from the front right and above, the up axis opposite the recorded
gravity), flat shaded and painted back to front. Planes are the floor: drawn
first, with a metre grid. Targets are rings over everything. Like
:class:`~app.canvas.scene_canvas.SceneCanvas`, it paints into any ``QPainter``,
so the window and the export share it.

:class:`GeometryCameraCanvas` is the camera view of such a recording: the
recorded frame, with each body's frame (x red, y green, z blue) and the
targets projected through that frame's own calibration; an axis is cut into
pieces in 3D so it bends with the lens distortion as the image does.

:func:`scene_canvas_for` and :func:`camera_canvas_for` pick the canvas that
fits a recording; views and the export call them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QPolygonF

from app.canvas.camera_canvas import CameraCanvas, CameraOptions, polyline_runs
from app.canvas.drawing import painting_in, palette_cycle, palette_rgb, qcolor
from app.canvas.drawing import rgb_color as _color
from app.canvas.drawing import ui_font as _font
from app.canvas.recording_canvas import RecordingCanvas
from app.canvas.scene_canvas import SceneCanvas, SceneOptions
from app.canvas.scene_marks import (
    TARGET_COLOR,
    TEXT_COLOR,
    cross,
    paint_time_label,
)
from app.canvas.shown_text import LABEL_CHARS, visible_text
from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration, project_points
from fsr_core.recording import RecordingModel, SceneGeometry

__all__ = [
    "GeometryCameraCanvas",
    "GeometryCanvas",
    "camera_canvas_for",
    "scene_canvas_for",
]

BACKGROUND: Final = palette_rgb("geometry.background")
FLOOR_COLOR: Final = palette_rgb("geometry.floor")
GRID_COLOR: Final = palette_rgb("geometry.grid")
#: The x, y and z axes (of the world gizmo and of each body's frame).
AXIS_COLORS: Final = palette_cycle("geometry.axes")
_AXIS_SHADOW: Final = qcolor("geometry.axis_shadow")
_AZIMUTH_DEG: Final = -55.0
_ELEVATION_DEG: Final = 24.0
_FOVY_DEG: Final = 36.0
_MARGIN: Final = 1.15
_POSE_SAMPLES: Final = 64
_AMBIENT: Final = 0.42
#: Shapes whose faces turned away from the eye are hidden by the others.
_CONVEX: Final = frozenset({"box", "sphere", "capsule", "cylinder", "ellipsoid"})


def _rotations(quaternions_xyzw: npt.ArrayLike) -> FloatArray:
    """Rotation matrices of unit quaternions ``(..., 4)`` (x, y, z, w)."""
    q = np.asarray(quaternions_xyzw, dtype=np.float64)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    result: FloatArray = np.stack([np.stack(row, -1) for row in rows], -2)
    return result


def _place(vertices_m: FloatArray, pose: FloatArray) -> FloatArray:
    """Move body-frame points into the world by one pose ``x y z qx qy qz qw``."""
    placed: FloatArray = vertices_m @ _rotations(pose[3:]).T + pose[:3]
    return placed


def _up_axis(model: RecordingModel) -> FloatArray:
    """World up: opposite the recorded gravity, else +z."""
    contract = model.metadata.get("simulation_contract")
    gravity = contract.get("gravity_mps2") if isinstance(contract, dict) else None
    try:
        vector = -np.asarray(gravity, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        vector = np.zeros(3)
    norm = float(np.linalg.norm(vector))
    if not math.isfinite(norm) or norm < 1e-9:
        return np.array([0.0, 0.0, 1.0])
    result: FloatArray = vector / norm
    return result


def _scene_points(geometry: SceneGeometry) -> FloatArray:
    """World points the view must hold: bodies' geometry over time, targets."""
    solid = [mesh for mesh in geometry.meshes if mesh.kind != "plane"]
    samples = np.unique(
        np.linspace(0, len(geometry.poses) - 1, _POSE_SAMPLES).round().astype(int)
    )
    points = [np.asarray(target.position_m)[None] for target in geometry.targets]
    for mesh in solid or geometry.meshes:
        low, high = mesh.vertices_m.min(axis=0), mesh.vertices_m.max(axis=0)
        corners = np.array(
            [[(low, high)[i][0], (low, high)[j][1], (low, high)[k][2]]
             for i in (0, 1) for j in (0, 1) for k in (0, 1)]
        )  # fmt: skip
        for sample in samples:
            points.append(_place(corners, geometry.poses[sample, mesh.body]))
    stacked: FloatArray = np.vstack(points)
    return stacked[np.isfinite(stacked).all(axis=1)]


@dataclass(frozen=True)
class SceneView3d:
    """A fixed perspective view: eye position and camera axes (right, up, forward)."""

    eye_m: FloatArray
    rotation: FloatArray
    """Rows: right, up, forward (unit vectors in the world)."""
    fovy_deg: float = _FOVY_DEG

    @classmethod
    def fitted(cls, geometry: SceneGeometry, up: FloatArray) -> SceneView3d:
        """Look at everything the recording moves, from the front right, above."""
        points = _scene_points(geometry)
        low, high = points.min(axis=0), points.max(axis=0)
        center = 0.5 * (low + high)
        azimuth, elevation = np.radians([_AZIMUTH_DEG, _ELEVATION_DEG])
        side = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0, 1.0, 0])
        side = side - up * float(side @ up)
        side /= np.linalg.norm(side)
        across = np.cross(up, side)
        toward_eye = (
            math.cos(elevation)
            * (math.cos(azimuth) * side + math.sin(azimuth) * across)
            + math.sin(elevation) * up
        )
        forward = -toward_eye
        right = np.cross(forward, up)
        right /= np.linalg.norm(right)
        camera_up = np.cross(right, forward)
        axes = np.stack([right, camera_up, forward])
        # The nearest eye distance at which every point projects inside the
        # field of view (shrunk by the margin): |x| / (z + d) <= tan(fovy / 2).
        offsets = (points - center) @ axes.T
        slope = math.tan(math.radians(_FOVY_DEG) / 2.0) / _MARGIN
        spread = np.abs(offsets[:, :2]).max(axis=1) / slope - offsets[:, 2]
        distance = max(float(spread.max()), 1e-3)
        return cls(center + distance * toward_eye, axes)

    def camera(self, points_m: FloatArray) -> FloatArray:
        """World points in camera axes (x right, y up, z depth ahead)."""
        result: FloatArray = (points_m - self.eye_m) @ self.rotation.T
        return result

    def focal_px(self, rect: QRectF) -> float:
        """Pixels per unit of ``x / z`` for ``rect``."""
        half = 0.5 * min(rect.width(), rect.height())
        return half / math.tan(math.radians(self.fovy_deg) / 2.0)

    def pixels(self, rect: QRectF, camera_points: FloatArray) -> FloatArray:
        """Project camera-axis points into ``rect`` (NaN at or behind the eye)."""
        depth = camera_points[:, 2]
        focal = self.focal_px(rect)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = rect.center().x() + focal * camera_points[:, 0] / depth
            y = rect.center().y() - focal * camera_points[:, 1] / depth
        result: FloatArray = np.column_stack([x, y])
        result[depth <= 1e-6] = np.nan
        return result


class GeometryCanvas(RecordingCanvas[SceneOptions]):
    """Draws a RecordingModel's recorded 3D scene at a play time with QPainter."""

    def __init__(
        self, model: RecordingModel, options: SceneOptions | None = None
    ) -> None:
        if model.geometry is None:
            raise ValueError(f"{model.path.name} has no recorded scene geometry")
        super().__init__(
            model, SceneOptions() if options is None else options, BACKGROUND
        )
        self._geometry: SceneGeometry = model.geometry
        self._up = _up_axis(model)
        self.view = SceneView3d.fitted(model.geometry, self._up)
        light = -self.view.rotation[2] + 0.8 * self._up + 0.4 * self.view.rotation[0]
        self._light = light / np.linalg.norm(light)

    def body_positions(self, rect: QRectF, play_time_s: float) -> FloatArray:
        """Return every body's origin at ``play_time_s`` in ``rect`` pixels."""
        poses = self._geometry.poses_at(play_time_s)
        return self.view.pixels(rect, self.view.camera(poses[:, :3]))

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the scene at ``play_time_s`` into ``rect`` (fills it)."""
        with painting_in(painter, rect):
            painter.fillRect(rect, _color(BACKGROUND))
            poses = self._geometry.poses_at(play_time_s)
            self._paint_floors(painter, rect, poses)
            self._paint_solids(painter, rect, poses)
            if self._options.show_targets:
                self._paint_targets(painter, rect)
            self._paint_axes(painter, rect)
            paint_time_label(painter, rect, play_time_s, QPen(_color(GRID_COLOR), 1.0))

    def _paint_floors(self, painter: QPainter, rect: QRectF, poses: FloatArray) -> None:
        for mesh in self._geometry.meshes:
            if mesh.kind != "plane":
                continue
            world = _place(mesh.vertices_m, poses[mesh.body])
            pixels = self.view.pixels(rect, self.view.camera(world))
            if not np.isfinite(pixels).all():
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_color(FLOOR_COLOR))
            for face in mesh.faces:
                painter.drawPolygon(_polygon(pixels[face]))
            self._paint_grid(painter, rect, mesh.vertices_m, poses[mesh.body])

    def _paint_grid(
        self, painter: QPainter, rect: QRectF, vertices_m: FloatArray, pose: FloatArray
    ) -> None:
        low, high = vertices_m.min(axis=0), vertices_m.max(axis=0)
        span = float(max(high[0] - low[0], high[1] - low[1]))
        step = 10.0 ** math.floor(math.log10(max(span, 1e-6) / 4.0))
        if span / step > 24:
            step *= 5.0 if span / (5.0 * step) <= 24 else 10.0
        lines = []
        for axis in (0, 1):
            for value in np.arange(
                math.ceil(low[axis] / step), high[axis] / step + 1e-9
            ):
                start, end = low.copy(), high.copy()
                start[axis] = end[axis] = value * step
                lines.append((start, end))
        painter.setPen(QPen(_color(GRID_COLOR), 1.0))
        for start, end in lines:
            ends = _place(np.array([start, end]), pose)
            pixels = self.view.pixels(rect, self.view.camera(ends))
            if np.isfinite(pixels).all():
                painter.drawLine(_point(pixels[0]), _point(pixels[1]))

    def _paint_solids(self, painter: QPainter, rect: QRectF, poses: FloatArray) -> None:
        """Flat-shaded triangles of every non-plane mesh, far to near."""
        depths, corners, colors = [], [], []
        for mesh in self._geometry.meshes:
            if mesh.kind == "plane" or not len(mesh.faces):
                continue
            world = _place(mesh.vertices_m, poses[mesh.body])
            camera = self.view.camera(world)
            triangles = world[mesh.faces]
            normals = np.cross(
                triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
            )
            keep = np.isfinite(self.view.pixels(rect, camera)[mesh.faces]).all(
                axis=(1, 2)
            )
            if mesh.kind in _CONVEX:  # only faces turned to the eye can show
                centers = triangles.mean(axis=1)
                outward = np.sign(
                    np.einsum("ij,ij->i", normals, centers - world.mean(0))
                )
                toward = np.einsum("ij,ij->i", normals, self.view.eye_m - centers)
                keep &= outward * toward > 0.0
            lengths = np.linalg.norm(normals[keep], axis=1)
            lengths[lengths == 0.0] = 1.0
            facing = np.abs(normals[keep] @ self._light) / lengths
            shade = _AMBIENT + (1.0 - _AMBIENT) * facing
            rgb = np.clip(255.0 * np.outer(shade, mesh.rgba[:3]), 0, 255).astype(int)
            alpha = np.full((len(rgb), 1), round(255 * mesh.rgba[3]))
            colors.append(np.hstack([rgb, alpha]))
            depths.append(camera[mesh.faces[keep]][:, :, 2].mean(axis=1))
            corners.append(self.view.pixels(rect, camera)[mesh.faces[keep]])
        if not corners:
            return
        order = np.argsort(-np.concatenate(depths), kind="stable")
        points = np.concatenate(corners)[order].tolist()
        for (r, g, b, a), triangle in zip(
            np.concatenate(colors)[order].tolist(), points, strict=True
        ):
            color = QColor(r, g, b, a)
            painter.setPen(QPen(color, 0.8))
            painter.setBrush(color)
            painter.drawConvexPolygon([QPointF(x, y) for x, y in triangle])

    def _paint_targets(self, painter: QPainter, rect: QRectF) -> None:
        focal = self.view.focal_px(rect)
        for target in self._geometry.targets:
            camera = self.view.camera(np.asarray([target.position_m]))
            pixel = self.view.pixels(rect, camera)[0]
            if not np.isfinite(pixel).all():
                continue
            center = _point(pixel)
            ring = max(4.0, focal * target.radius_m / float(camera[0, 2]))
            pen = QPen(_color(TARGET_COLOR), 2.0)
            pen.setDashPattern([3.0, 2.0])
            painter.setPen(pen)
            painter.setBrush(_color(TARGET_COLOR, 40))
            painter.drawEllipse(center, ring, ring)
            painter.setPen(QPen(_color(TARGET_COLOR), 1.6))
            cross(painter, center, 0.6 * ring)
            if target.name:
                painter.setFont(_font(max(11.0, 0.022 * rect.height())))
                painter.setPen(_color(TEXT_COLOR))
                width = QFontMetricsF(painter.font()).horizontalAdvance(target.name)
                shift = ring + 4.0
                if center.x() + shift + width > rect.right():  # keep it inside
                    shift = -shift - width
                painter.drawText(
                    center + QPointF(shift, -ring),
                    visible_text(target.name, LABEL_CHARS),
                )

    def _paint_axes(self, painter: QPainter, rect: QRectF) -> None:
        """Draw a small world-axes gizmo in the lower left corner."""
        size = max(18.0, 0.06 * min(rect.width(), rect.height()))
        origin = QPointF(rect.left() + 1.6 * size, rect.bottom() - 1.6 * size)
        painter.setFont(_font(max(10.0, 0.45 * size), bold=True))
        for axis, (label, rgb) in enumerate(zip("xyz", AXIS_COLORS, strict=True)):
            direction = self.view.rotation @ np.eye(3)[axis]
            end = origin + QPointF(size * direction[0], -size * direction[1])
            painter.setPen(QPen(_color(rgb), 2.2))
            painter.drawLine(origin, end)
            painter.drawText(end + QPointF(3.0, 4.0), label)


def _point(xy: FloatArray) -> QPointF:
    return QPointF(float(xy[0]), float(xy[1]))


def _polygon(points_px: FloatArray) -> QPolygonF:
    return QPolygonF([QPointF(float(x), float(y)) for x, y in points_px])


class GeometryCameraCanvas(CameraCanvas):
    """A camera's recorded frames with body frames and targets projected on them."""

    def __init__(
        self, model: RecordingModel, camera: str, *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(model, camera, *args, **kwargs)
        if model.geometry is None:
            raise ValueError(f"{model.path.name} has no recorded scene geometry")
        self._geometry: SceneGeometry = model.geometry
        points = _scene_points(model.geometry)
        extent = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
        self._axis_m = max(0.06 * extent, 1e-3)

    def _world_points(self, frame_time_s: float) -> dict[str, FloatArray]:
        poses = self._geometry.poses_at(frame_time_s)[1:]  # not the fixed world
        columns = _rotations(poses[:, 3:]).transpose(0, 2, 1)  # (B, axis, xyz)
        axes = poses[:, None, :3] + self._axis_m * columns
        targets = np.array([t.position_m for t in self._geometry.targets]).reshape(
            -1, 3
        )
        return {"bodies": poses[:, :3], "axes": axes.reshape(-1, 3), "targets": targets}

    def overlay_pixels(self, play_time_s: float) -> dict[str, FloatArray]:
        """Return body origins (``"bodies"``) and ``"targets"`` in image pixels.

        Like :meth:`CameraCanvas.overlay_pixels`: projected through the shown
        frame's calibration, NaN behind the camera, empty before the first
        frame; the planar keys stay empty.
        """
        result = super().overlay_pixels(play_time_s)
        result["bodies"] = np.zeros((0, 2))
        frame = self._frame(play_time_s)
        if frame is None or frame.calibration is None:
            return result
        points = self._world_points(frame.play_time_s)
        for key in ("bodies", "targets"):
            result[key] = _project(frame.calibration, points[key])
        return result

    def _paint_overlays(self, painter: QPainter, target: QRectF, frame: Any) -> None:
        view = self._view(target, frame)
        calibration, unit = view.calibration, view.unit
        points = self._world_points(frame.play_time_s)
        if self.options.show_tip:
            origins = np.repeat(points["bodies"], 3, axis=0)
            axes = view.segments(origins, points["axes"])
            for index, shown in enumerate(axes):
                rgb = AXIS_COLORS[index % 3]
                for run in polyline_runs(shown):
                    painter.setPen(QPen(_AXIS_SHADOW, 2.6 * unit))
                    painter.drawPolyline(run)
                    painter.setPen(QPen(_color(rgb), 1.3 * unit))
                    painter.drawPolyline(run)
        if self.options.show_targets and len(points["targets"]):
            centers = view.display(_project(calibration, points["targets"]))
            for center, spec in zip(centers, self._geometry.targets, strict=True):
                if not np.isfinite(center).all():
                    continue
                depth = _depth(calibration, spec.position_m)
                ring = max(
                    3.0 * unit,
                    view.scale * calibration.profile.fy * spec.radius_m / depth,
                )
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.setPen(QPen(_color(TARGET_COLOR), 1.4 * unit))
                painter.drawEllipse(_point(center), ring, ring)
                cross(painter, _point(center), 0.5 * ring)


def _project(calibration: Calibration, points_m: FloatArray) -> FloatArray:
    if not len(points_m):
        return np.zeros((0, 2))
    pixels, _ = project_points(points_m, calibration.profile, calibration.pose)
    return pixels


def _depth(calibration: Calibration, point_m: tuple[float, float, float]) -> float:
    pose = calibration.pose
    if pose is None:
        return max(point_m[2], 1e-6)
    offset = np.asarray(point_m) - pose.translation_m
    return max(float(offset @ pose.rotation_matrix()[:, 2]), 1e-6)


def _uses_geometry(model: RecordingModel) -> bool:
    return model.kinematics is None and model.geometry is not None


def scene_canvas_for(
    model: RecordingModel, options: SceneOptions | None = None
) -> SceneCanvas | GeometryCanvas:
    """Return the scene canvas of ``model``: its planar arm, else its 3D geometry."""
    options = SceneOptions() if options is None else options
    if _uses_geometry(model):
        return GeometryCanvas(model, options)
    return SceneCanvas(model, options)


def camera_canvas_for(
    model: RecordingModel,
    camera: str,
    options: CameraOptions | None = None,
    **kwargs: Any,
) -> CameraCanvas:
    """Return the camera canvas of ``model`` (3D overlays when it has geometry)."""
    options = CameraOptions() if options is None else options
    if _uses_geometry(model):
        return GeometryCameraCanvas(model, camera, options, **kwargs)
    return CameraCanvas(model, camera, options, **kwargs)
