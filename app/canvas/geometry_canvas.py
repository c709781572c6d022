"""A recorded 3D scene (e.g. a MuJoCo run) drawn with QPainter, no simulator needed.

:class:`GeometryCanvas` is the scene view of a recording whose model has
:class:`~fsr_core.recording.SceneGeometry` and no planar arm: every recorded
mesh posed by its body's recorded transform at the play time, seen through a
perspective :class:`SceneView3d` fitted once per recording (the bodies' whole
motion and the targets, from the front right and above, the up axis opposite
the recorded gravity), flat shaded and painted back to front. Planes are the
floor: drawn first, with a metre grid (from below, the grid alone). Targets
are rings over everything. Like :class:`~app.canvas.scene_canvas.SceneCanvas`,
it paints into any ``QPainter``, so the window and the export share it; the
export paints the fitted view, the window's scene view whatever view the user
orbited to (:attr:`GeometryCanvas.view`). Shapes reaching behind the eye or
far out of the view are cut in 3D, so a view from close or from under the
floor draws what is in front of the eye.

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
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from app.canvas.camera_canvas import CameraCanvas
from app.canvas.drawing import painting_in, palette_cycle, palette_rgb
from app.canvas.drawing import rgb_color as _color
from app.canvas.drawing import ui_font as _font
from app.canvas.gl_solids import GlSolids, gl_solids_for
from app.canvas.mesh_thinning import DRAFT_TRIANGLES, MAX_DRAWN_TRIANGLES, thinned
from app.canvas.overlay import Surface
from app.canvas.overlay_registry import paint_shown
from app.canvas.recording_canvas import RecordingCanvas
from app.canvas.scene_canvas import SceneCanvas
from app.canvas.scene_marks import paint_time_label
from app.canvas.scene_view3d import (
    SceneView3d,
    ViewClip,
    place,
    rotations,
    scene_points,
    screening_meshes,
)
from app.canvas.view_model import ViewModel
from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration, project_points
from fsr_core.recording import GeometryMesh, RecordingModel, SceneGeometry

__all__ = [
    "GeometryCameraCanvas",
    "GeometryCanvas",
    "SceneView3d",
    "SpaceMarks",
    "camera_canvas_for",
    "depth_along_axis",
    "project_world",
    "scene_canvas_for",
]

BACKGROUND: Final = palette_rgb("geometry.background")
FLOOR_COLOR: Final = palette_rgb("geometry.floor")
GRID_COLOR: Final = palette_rgb("geometry.grid")
#: The x, y and z axes (of the world gizmo and of each body's frame).
AXIS_COLORS: Final = palette_cycle("geometry.axes")
_AMBIENT: Final = 0.42
#: Shapes whose faces turned away from the eye are hidden by the others.
_CONVEX: Final = frozenset({"box", "sphere", "capsule", "cylinder", "ellipsoid"})
#: How far the bodies of environments other than the active one are faded
#: toward the background (0: not at all, 1: gone).
_FADE: Final = 0.72
#: Solid triangles longer than this fraction of the scene are split (up to
#: :data:`_SPLITS` times in four): painted back to front, a long one (a box's
#: side) is sorted by its middle and would hide what stands on it.
_PIECE_OF_SCENE: Final = 1.0 / 16.0
_SPLITS: Final = 4
#: A mesh is split into at most this many triangles (or keeps its own count).
_SPLIT_BUDGET: Final = 4096


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


def _split(
    vertices_m: FloatArray, faces: npt.NDArray[Any], longest_m: float
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Split each triangle with an edge over ``longest_m`` in four, again if need be.

    At most :data:`_SPLITS` times, and no further than :data:`_SPLIT_BUDGET`
    triangles in all. A mesh with no such triangle comes back as it is; else
    every triangle gets its own three vertices, and the four pieces of one
    keep its winding (so its side facing out).
    """
    triangles = vertices_m[faces]
    edges = np.linalg.norm(triangles - np.roll(triangles, 1, axis=1), axis=2)
    if not len(triangles) or edges.max() <= longest_m:
        return vertices_m, np.asarray(faces, dtype=np.int64)
    pieces: list[FloatArray] = []
    budget = max(_SPLIT_BUDGET, len(faces))
    for _ in range(_SPLITS):
        edges = np.linalg.norm(triangles - np.roll(triangles, 1, axis=1), axis=2)
        long = (edges.max(axis=1) > longest_m) & np.isfinite(edges).all(axis=1)
        done = sum(len(piece) for piece in pieces)
        if not long.any() or done + len(triangles) + 3 * int(long.sum()) > budget:
            break
        pieces.append(triangles[~long])
        a, b, c = triangles[long, 0], triangles[long, 1], triangles[long, 2]
        ab, bc, ca = 0.5 * (a + b), 0.5 * (b + c), 0.5 * (c + a)
        triangles = np.concatenate(
            [
                np.stack(corners, axis=1)
                for corners in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))
            ]
        )
    pieces.append(triangles)
    split: FloatArray = np.concatenate(pieces).reshape(-1, 3)
    return split, np.arange(len(split), dtype=np.int64).reshape(-1, 3)


@dataclass(frozen=True, eq=False)
class SpaceMarks:
    """What an overlay draws on a recorded 3D scene from, for one frame."""

    canvas: GeometryCanvas
    rect: QRectF
    play_time_s: float

    @property
    def view(self) -> SceneView3d:
        """The view painted (fitted, or where the user turned it)."""
        return self.canvas.view

    @property
    def geometry(self) -> SceneGeometry:
        """The recorded scene."""
        return self.canvas.geometry


class GeometryCanvas(RecordingCanvas):
    """Draws a RecordingModel's recorded 3D scene at a play time with QPainter.

    :attr:`view` is the view painted: :attr:`fitted_view` until someone
    (the window's scene view, as the user orbits) sets another.
    """

    def __init__(self, model: RecordingModel, options: ViewModel | None = None) -> None:
        if model.geometry is None:
            raise ValueError(f"{model.path.name} has no recorded scene geometry")
        super().__init__(model, options, BACKGROUND)
        self._geometry: SceneGeometry = model.geometry
        self._up = _up_axis(model)
        self._fitted = SceneView3d.fitted(model.geometry, self._up)
        points = scene_points(model.geometry)
        self._extent_m = float(np.linalg.norm(np.ptp(points, axis=0)))
        self._center_m = 0.5 * (points.min(axis=0) + points.max(axis=0))
        self.view: SceneView3d = self._fitted
        groups = model.geometry.body_groups
        active = self._options.environment
        self._faded = frozenset(
            body
            for body, group in enumerate(groups)
            if active in model.geometry.groups and group != active
        )
        # An arena's walls between the fitted eye and the robot would hide it.
        screening = screening_meshes(model.geometry, self._fitted)
        solids = [
            m
            for index, m in enumerate(model.geometry.meshes)
            if m.kind != "plane" and len(m.faces) and index not in screening
        ]
        self._gl: GlSolids | None = gl_solids_for(
            solids, len(model.geometry.bodies), dict.fromkeys(self._faded, _FADE)
        )
        self._meshes = solids
        self.draft = False
        """Whether a paint may use a thinned copy of big meshes (the window, while
        the picture changes); stills and exports always draw them whole."""
        self._gl_draft: GlSolids | bool | None = False  # False: not made yet
        self._painted: (
            list[tuple[GeometryMesh, FloatArray, npt.NDArray[np.int64]]] | None
        ) = None

    def _painted_solids(
        self, solids: list[GeometryMesh]
    ) -> list[tuple[GeometryMesh, FloatArray, npt.NDArray[np.int64]]]:
        """Return the meshes as QPainter paints them: thinned, long triangles split."""
        longest = max(_PIECE_OF_SCENE * self._extent_m, 1e-9)
        return [
            (mesh, *_split(mesh.vertices_m, mesh.faces, longest))
            for mesh in thinned(solids, MAX_DRAWN_TRIANGLES)
        ]

    @property
    def geometry(self) -> SceneGeometry:
        """The recorded scene drawn."""
        return self._geometry

    @property
    def draws_with_opengl(self) -> bool:
        """Whether OpenGL rasterises the meshes (else QPainter paints them)."""
        return self._gl is not None

    @property
    def fitted_view(self) -> SceneView3d:
        """The view fitted to the recording: everything it moves, in sight."""
        return self._fitted

    def body_positions(self, rect: QRectF, play_time_s: float) -> FloatArray:
        """Return every body's origin at ``play_time_s`` in ``rect`` pixels."""
        poses = self._geometry.poses_at(play_time_s)
        return self.view.pixels(rect, self.view.camera(poses[:, :3]))

    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the scene at ``play_time_s`` into ``rect`` (fills it)."""
        with painting_in(painter, rect):
            painter.fillRect(rect, _color(BACKGROUND))
            poses = self._geometry.poses_at(play_time_s)
            clip = ViewClip.of(self.view, rect)
            self._paint_floors(painter, clip, poses)
            if not self._paint_gl(painter, rect, poses):
                self._paint_solids(painter, clip, poses)
            marks = SpaceMarks(self, rect, play_time_s)
            paint_shown(painter, marks, Surface.SPACE, self._options.overlays)
            self._paint_axes(painter, rect)
            paint_time_label(painter, rect, play_time_s, QPen(_color(GRID_COLOR), 1.0))

    def _paint_floors(
        self, painter: QPainter, clip: ViewClip, poses: FloatArray
    ) -> None:
        """Fill each plane seen from its top side; draw its grid from either side."""
        for mesh in self._geometry.meshes:
            if mesh.kind != "plane" or not len(mesh.faces):
                continue
            world = place(mesh.vertices_m, poses[mesh.body])
            if self._faces_eye(world[mesh.faces[0]]):
                camera = self.view.camera(world)
                painter.setPen(Qt.PenStyle.NoPen)
                faded = mesh.body in self._faded
                painter.setBrush(
                    _color(_toward_background(FLOOR_COLOR) if faded else FLOOR_COLOR)
                )
                for face in mesh.faces:
                    shown = clip.polygon(camera[face])
                    if len(shown):
                        painter.drawPolygon(_polygon(clip.pixels(shown)))
            self._paint_grid(painter, clip, mesh.vertices_m, poses[mesh.body])

    def _faces_eye(self, triangle: FloatArray) -> bool:
        """Whether the eye is on the front side (counter-clockwise) of a triangle."""
        normal = np.cross(triangle[1] - triangle[0], triangle[2] - triangle[0])
        return float(normal @ (self.view.eye_m - triangle[0])) >= 0.0

    def _paint_grid(
        self,
        painter: QPainter,
        clip: ViewClip,
        vertices_m: FloatArray,
        pose: FloatArray,
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
            ends = self.view.camera(place(np.array([start, end]), pose))
            shown = clip.segment(ends[0], ends[1])
            if shown is not None:
                pixels = clip.pixels(shown)
                painter.drawLine(_point(pixels[0]), _point(pixels[1]))

    def _light(self) -> FloatArray:
        """Return a light over the eye's right shoulder, whichever way it looks."""
        axes = self.view.rotation
        light: FloatArray = -axes[2] + 0.8 * self.view.up + 0.4 * axes[0]
        return light / np.linalg.norm(light)

    def _draft_solids(self) -> GlSolids | None:
        """Return the thinned copy for drafts (made once), or None when not worth it."""
        if self._gl_draft is False:
            triangles = sum(len(mesh.faces) for mesh in self._meshes)
            self._gl_draft = None
            if triangles > 2 * DRAFT_TRIANGLES and self._geometry.bodies:
                self._gl_draft = gl_solids_for(
                    thinned(self._meshes, DRAFT_TRIANGLES),
                    len(self._geometry.bodies),
                    dict.fromkeys(self._faded, _FADE),
                )
        return self._gl_draft if isinstance(self._gl_draft, GlSolids) else None

    def _paint_gl(self, painter: QPainter, rect: QRectF, poses: FloatArray) -> bool:
        """Draw the solids through OpenGL; False when it is not available."""
        if self._gl is None:
            return False
        solids = (self._draft_solids() if self.draft else None) or self._gl
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        size = (round(rect.width() * ratio), round(rect.height() * ratio))
        reach = float(np.linalg.norm(self.view.eye_m - self._center_m))
        image = solids.render(
            self.view,
            size,
            poses,
            self._light(),
            _AMBIENT,
            reach + 2.0 * self._extent_m,
            (BACKGROUND[0] / 255.0, BACKGROUND[1] / 255.0, BACKGROUND[2] / 255.0),
        )
        if image is None:
            return False
        image.setDevicePixelRatio(ratio)
        painter.drawImage(rect, image)
        return True

    def _paint_solids(
        self, painter: QPainter, clip: ViewClip, poses: FloatArray
    ) -> None:
        """Flat-shaded triangles of every non-plane mesh, far to near.

        A triangle wholly inside the clip is drawn as it is; one partly
        inside, cut to the clip (a triangle reaching behind the eye, or far
        past the view's edges).
        """
        light = self._light()
        depths: list[FloatArray] = []
        colors: list[npt.NDArray[np.int64]] = []
        polygons: list[list[list[float]]] = []
        if self._painted is None:  # without OpenGL: thinned once, on first need
            self._painted = self._painted_solids(self._meshes)
        for mesh, vertices_m, mesh_faces in self._painted:
            world = place(vertices_m, poses[mesh.body])
            camera = self.view.camera(world)
            triangles = world[mesh_faces]
            normals = np.cross(
                triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
            )
            outside = clip.distances(camera)[mesh_faces] < 0.0  # (M, 3, planes)
            keep = ~np.any(np.all(outside, axis=1), axis=1)  # not all past one plane
            if mesh.kind in _CONVEX:  # only faces turned to the eye can show
                centers = triangles.mean(axis=1)
                outward = np.sign(
                    np.einsum("ij,ij->i", normals, centers - world.mean(0))
                )
                toward = np.einsum("ij,ij->i", normals, self.view.eye_m - centers)
                keep &= outward * toward > 0.0
            lengths = np.linalg.norm(normals[keep], axis=1)
            lengths[lengths == 0.0] = 1.0
            facing = np.abs(normals[keep] @ light) / lengths
            shade = _AMBIENT + (1.0 - _AMBIENT) * facing
            rgb = np.clip(255.0 * np.outer(shade, mesh.rgba[:3]), 0, 255).astype(int)
            alpha = np.full((len(rgb), 1), round(255 * mesh.rgba[3]))
            if mesh.body in self._faded:  # another environment than the active one
                rgb = np.round(
                    _FADE * np.asarray(BACKGROUND) + (1.0 - _FADE) * rgb
                ).astype(int)
            rgba = np.hstack([rgb, alpha])
            faces = mesh_faces[keep]
            whole = ~outside[keep].any(axis=(1, 2))
            pixels = clip.pixels(camera)
            depths.append(camera[faces[whole]][:, :, 2].mean(axis=1))
            colors.append(rgba[whole])
            polygons.extend(pixels[faces[whole]].tolist())
            for face, color in zip(faces[~whole], rgba[~whole], strict=True):
                shown = clip.polygon(camera[face])
                if len(shown):
                    depths.append(shown[:, 2].mean(keepdims=True))
                    colors.append(color[None])
                    polygons.append(clip.pixels(shown).tolist())
        if not polygons:
            return
        order = np.argsort(-np.concatenate(depths), kind="stable")
        color_rows = np.concatenate(colors).tolist()
        for index in order.tolist():
            r, g, b, a = color_rows[index]
            color = QColor(r, g, b, a)
            painter.setPen(QPen(color, 1.2))
            painter.setBrush(color)
            painter.drawConvexPolygon([QPointF(x, y) for x, y in polygons[index]])

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


def _toward_background(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Return ``rgb`` faded toward the background by :data:`_FADE`."""
    red, green, blue = (
        round(_FADE * back + (1.0 - _FADE) * own)
        for back, own in zip(BACKGROUND, rgb, strict=True)
    )
    return red, green, blue


def _point(xy: FloatArray) -> QPointF:
    return QPointF(float(xy[0]), float(xy[1]))


def _polygon(points_px: FloatArray) -> QPolygonF:
    return QPolygonF([QPointF(float(x), float(y)) for x, y in points_px])


class GeometryCameraCanvas(CameraCanvas):
    """A camera's recorded frames with body frames and targets projected on them."""

    surface = Surface.SPACE_CAMERA

    def __init__(
        self, model: RecordingModel, camera: str, *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(model, camera, *args, **kwargs)
        if model.geometry is None:
            raise ValueError(f"{model.path.name} has no recorded scene geometry")
        self._geometry: SceneGeometry = model.geometry
        points = scene_points(model.geometry)
        extent = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
        self._axis_m = max(0.06 * extent, 1e-3)

    def marked_points(self, frame_time_s: float) -> dict[str, FloatArray]:
        """Return the world points the overlays mark at ``frame_time_s``.

        ``"bodies"``: each body's origin (not the fixed world's); ``"axes"``:
        the ends of each body's x, y and z axes, three rows per body, each
        :attr:`axis_m` long; ``"targets"``: the recorded targets' centres.
        """
        return self._world_points(frame_time_s)

    @property
    def axis_m(self) -> float:
        """Length of a body's drawn axes, metres (a fraction of the scene)."""
        return self._axis_m

    def _world_points(self, frame_time_s: float) -> dict[str, FloatArray]:
        poses = self._geometry.poses_at(frame_time_s)[1:]  # not the fixed world
        columns = rotations(poses[:, 3:]).transpose(0, 2, 1)  # (B, axis, xyz)
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
            result[key] = project_world(frame.calibration, points[key])
        return result


def project_world(calibration: Calibration, points_m: FloatArray) -> FloatArray:
    """Return world points ``(N, 3)`` as pixels of ``calibration`` (NaN behind)."""
    if not len(points_m):
        return np.zeros((0, 2))
    pixels, _ = project_points(points_m, calibration.profile, calibration.pose)
    return pixels


def depth_along_axis(
    calibration: Calibration, point_m: tuple[float, float, float]
) -> float:
    """Return how far ``point_m`` lies along the camera's optical axis (> 0)."""
    pose = calibration.pose
    if pose is None:
        return max(point_m[2], 1e-6)
    offset = np.asarray(point_m) - pose.translation_m
    return max(float(offset @ pose.rotation_matrix()[:, 2]), 1e-6)


def _uses_geometry(model: RecordingModel) -> bool:
    return model.kinematics is None and model.geometry is not None


def scene_canvas_for(
    model: RecordingModel, options: ViewModel | None = None
) -> SceneCanvas | GeometryCanvas:
    """Return the scene canvas of ``model``: its planar arm, else its 3D geometry."""
    if _uses_geometry(model):
        return GeometryCanvas(model, options)
    return SceneCanvas(model, options)


def camera_canvas_for(
    model: RecordingModel,
    camera: str,
    options: ViewModel | None = None,
    **kwargs: Any,
) -> CameraCanvas:
    """Return the camera canvas of ``model`` (3D overlays when it has geometry)."""
    if _uses_geometry(model):
        return GeometryCameraCanvas(model, camera, options, **kwargs)
    return CameraCanvas(model, camera, options, **kwargs)
