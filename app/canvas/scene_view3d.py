"""The 3D scene view's camera: a perspective view turning around a centre.

:class:`SceneView3d` is an immutable view (eye, camera axes, centre, world
up, field of view) fitted to a recorded scene and turned by the user: orbit,
zoom and pan each return a new view. :class:`ViewClip` cuts world shapes at
the near plane and a guard band around the view, so a floor reaching behind
the eye still projects to sane pixels. No painting here (see
:mod:`app.canvas.geometry_canvas`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QRectF

from fsr_core.arrays import FloatArray
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.recording import GeometryMesh, SceneGeometry

__all__ = [
    "SceneView3d",
    "ViewClip",
    "place",
    "rotations",
    "scene_points",
    "screening_meshes",
]

_AZIMUTH_DEG: Final = -55.0
_ELEVATION_DEG: Final = 24.0
_FOVY_DEG: Final = 36.0
_MARGIN: Final = 1.15
_POSE_SAMPLES: Final = 64
#: Orbiting stops this short of looking straight down or up.
_MAX_ELEVATION_DEG: Final = 89.0
#: The near plane, as a fraction of the eye's distance from the centre.
_NEAR_FRACTION: Final = 1e-3
_NEAREST_M: Final = 1e-6
#: Shapes are cut this many half-views out of the view, so that a shape
#: reaching far past the edges (a floor seen from close) stays a shape of
#: moderate pixel coordinates.
_GUARD: Final = 3.0
#: A still mesh this many times larger than what moves is the world (walls).
_WORLD_FACTOR: Final = 2.0
#: A body whose pose changes less than this (m, quaternion units) stands still.
_STILL: Final = 1e-6


def rotations(quaternions_xyzw: npt.ArrayLike) -> FloatArray:
    """Rotation matrices of recorded unit quaternions ``(..., 4)`` (x, y, z, w)."""
    return matrices_from_quaternions(quaternions_xyzw, normalise=False)


def place(vertices_m: FloatArray, pose: FloatArray) -> FloatArray:
    """Move body-frame points into the world by one pose ``x y z qx qy qz qw``."""
    placed: FloatArray = vertices_m @ rotations(pose[3:]).T + pose[:3]
    return placed


def _level_axes(up: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Two level unit axes: the azimuth's zero (world x, or y) and 90 degrees on."""
    side = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0, 1.0, 0])
    side = side - up * float(side @ up)
    side /= np.linalg.norm(side)
    across: FloatArray = np.cross(up, side)
    return side, across


def _clamped_elevation(elevation_deg: float) -> float:
    if not math.isfinite(elevation_deg):
        raise ValueError(f"an elevation is finite, not {elevation_deg}")
    return min(max(elevation_deg, -_MAX_ELEVATION_DEG), _MAX_ELEVATION_DEG)


def _corners(mesh: GeometryMesh) -> FloatArray:
    low, high = mesh.vertices_m.min(axis=0), mesh.vertices_m.max(axis=0)
    return np.array(
        [[(low, high)[i][0], (low, high)[j][1], (low, high)[k][2]]
         for i in (0, 1) for j in (0, 1) for k in (0, 1)]
    )  # fmt: skip


def _largest_side(points: FloatArray) -> float:
    return float(np.ptp(points, axis=0).max()) if len(points) else 0.0


def _fit(geometry: SceneGeometry) -> tuple[FloatArray, dict[int, FloatArray]]:
    """Return the points a fit holds and the world meshes it leaves out.

    The world meshes, by index into ``geometry.meshes``, with their corners
    in the world (they stand still).
    """
    shown = [
        index for index, mesh in enumerate(geometry.meshes) if mesh.kind != "plane"
    ] or list(range(len(geometry.meshes)))
    samples = np.unique(
        np.linspace(0, len(geometry.poses) - 1, _POSE_SAMPLES).round().astype(int)
    )
    moves = np.ptp(geometry.poses[samples], axis=0).max(axis=1) > _STILL
    swept: dict[int, FloatArray] = {}
    for index in shown:
        mesh = geometry.meshes[index]
        corners = _corners(mesh)
        swept[index] = np.vstack(
            [place(corners, geometry.poses[sample, mesh.body]) for sample in samples]
        )
    moving = [index for index in shown if moves[geometry.meshes[index].body]]
    world: dict[int, FloatArray] = {}
    if moving:
        reach = _WORLD_FACTOR * _largest_side(np.vstack([swept[k] for k in moving]))
        world = {k: v for k, v in swept.items() if _largest_side(v) > reach}
    points = [np.asarray(target.position_m)[None] for target in geometry.targets]
    points += [v for k, v in swept.items() if k not in world]
    if not points:  # bodies without shapes (a robot without visuals): their origins
        points = [geometry.poses[sample, :, :3] for sample in samples]
        points.append(np.zeros((1, 3)))
    stacked: FloatArray = np.vstack(points)
    return stacked[np.isfinite(stacked).all(axis=1)], world


def scene_points(geometry: SceneGeometry) -> FloatArray:
    """World points the view must hold: what moves and what is near its size.

    Every mesh's box at each sampled pose, and the targets. A mesh whose
    body never moves and which is over :data:`_WORLD_FACTOR` times larger
    than the box the moving meshes sweep (an arena's walls, a floor slab)
    is the world around the scene and left out, so the fit frames the robot
    and the objects at hand; a robot's fixed base, a table and objects at
    rest stay. Planes are left out whenever there is another shape; a scene
    where nothing moves keeps all its meshes.
    """
    return _fit(geometry)[0]


def _crosses(start: FloatArray, end: FloatArray, corners: FloatArray) -> bool:
    """Whether the segment from ``start`` to ``end`` passes the box of ``corners``."""
    low, high = corners.min(axis=0), corners.max(axis=0)
    step = end - start
    enter, leave = 0.0, 1.0
    for axis in range(3):
        if abs(step[axis]) < 1e-12:
            if not low[axis] <= start[axis] <= high[axis]:
                return False
            continue
        near = (low[axis] - start[axis]) / step[axis]
        far = (high[axis] - start[axis]) / step[axis]
        enter = max(enter, min(near, far))
        leave = min(leave, max(near, far))
    return enter <= leave


def screening_meshes(geometry: SceneGeometry, view: SceneView3d) -> frozenset[int]:
    """Return the world meshes (left out of the fit) that hide its centre from ``view``.

    An arena's front walls, between the eye and the robot: the scene view
    leaves them out so that the robot it frames is seen (by index into
    ``geometry.meshes``). Walls behind the robot, a floor slab under it and
    every mesh of a scene whose fit leaves nothing out are drawn.
    """
    _, world = _fit(geometry)
    return frozenset(
        index
        for index, corners in world.items()
        if _crosses(view.eye_m, view.center_m, corners)
    )


@dataclass(frozen=True, eq=False)
class SceneView3d:
    """A perspective view turning around a centre: eye, camera axes, centre, up.

    An immutable value: :meth:`orbited`, :meth:`zoomed` and :meth:`panned`
    return new views. The camera never rolls: its right axis stays level
    (perpendicular to ``up``) and it always looks at ``center_m``.
    """

    eye_m: FloatArray
    rotation: FloatArray
    """Rows: right, up, forward (unit vectors in the world)."""
    center_m: FloatArray
    """The point looked at, which orbiting turns around and zooming keeps."""
    up: FloatArray
    """World up (unit): the axis of the azimuth."""
    fovy_deg: float = _FOVY_DEG

    @classmethod
    def looking(
        cls,
        center_m: npt.ArrayLike,
        up: npt.ArrayLike,
        azimuth_deg: float,
        elevation_deg: float,
        distance_m: float,
        fovy_deg: float = _FOVY_DEG,
    ) -> SceneView3d:
        """Look at ``center_m`` from ``distance_m`` away, in a direction.

        The azimuth turns around ``up`` from a level reference axis (world x,
        or y when ``up`` is nearly x); the elevation is clamped to
        ``±89°`` so the camera never looks straight along ``up``.
        """
        if not math.isfinite(azimuth_deg):
            raise ValueError(f"an azimuth is finite, not {azimuth_deg}")
        center = np.asarray(center_m, dtype=np.float64).reshape(3)
        up_axis = np.asarray(up, dtype=np.float64).reshape(3)
        side, across = _level_axes(up_axis)
        elevation = _clamped_elevation(elevation_deg)
        azimuth, elevation = math.radians(azimuth_deg), math.radians(elevation)
        toward_eye = (
            math.cos(elevation)
            * (math.cos(azimuth) * side + math.sin(azimuth) * across)
            + math.sin(elevation) * up_axis
        )
        forward = -toward_eye
        right = np.cross(forward, up_axis)
        right /= np.linalg.norm(right)
        camera_up = np.cross(right, forward)
        axes = np.stack([right, camera_up, forward])
        eye = center + max(float(distance_m), _NEAREST_M) * toward_eye
        return cls(eye, axes, center, up_axis, fovy_deg)

    @classmethod
    def fitted(cls, geometry: SceneGeometry, up: FloatArray) -> SceneView3d:
        """Look at everything the recording moves, from the front right, above."""
        points = scene_points(geometry)
        low, high = points.min(axis=0), points.max(axis=0)
        center = 0.5 * (low + high)
        axes = cls.looking(center, up, _AZIMUTH_DEG, _ELEVATION_DEG, 1.0).rotation
        # The nearest eye distance at which every point projects inside the
        # field of view (shrunk by the margin): |x| / (z + d) <= tan(fovy / 2).
        offsets = (points - center) @ axes.T
        slope = math.tan(math.radians(_FOVY_DEG) / 2.0) / _MARGIN
        spread = np.abs(offsets[:, :2]).max(axis=1) / slope - offsets[:, 2]
        distance = max(float(spread.max()), 1e-3)
        return cls.looking(center, up, _AZIMUTH_DEG, _ELEVATION_DEG, distance)

    @property
    def distance_m(self) -> float:
        """How far the eye is from the centre."""
        return float(np.linalg.norm(self.eye_m - self.center_m))

    @property
    def near_m(self) -> float:
        """Depth of the near plane: nearer points are not drawn."""
        return max(_NEAR_FRACTION * self.distance_m, _NEAREST_M)

    @property
    def azimuth_deg(self) -> float:
        """Direction of the eye around ``up``, from the level reference axis."""
        side, across = _level_axes(self.up)
        toward = self.eye_m - self.center_m
        return math.degrees(math.atan2(float(toward @ across), float(toward @ side)))

    @property
    def elevation_deg(self) -> float:
        """Height of the eye over the centre, as an angle (negative: below)."""
        toward = (self.eye_m - self.center_m) / self.distance_m
        return math.degrees(math.asin(min(max(float(toward @ self.up), -1.0), 1.0)))

    def orbited(self, d_azimuth_deg: float, d_elevation_deg: float) -> SceneView3d:
        """Return this view turned around the centre (elevation clamped to ±89°)."""
        return SceneView3d.looking(
            self.center_m,
            self.up,
            self.azimuth_deg + d_azimuth_deg,
            self.elevation_deg + d_elevation_deg,
            self.distance_m,
            self.fovy_deg,
        )

    def zoomed(self, factor: float) -> SceneView3d:
        """Return this view ``factor`` times closer to the centre (> 1: bigger)."""
        if not math.isfinite(factor) or factor <= 0.0:
            raise ValueError(f"a zoom factor is positive and finite, not {factor}")
        distance = max(self.distance_m / factor, _NEAREST_M)
        eye = self.center_m - distance * self.rotation[2]
        return replace(self, eye_m=eye)

    def panned(self, right_m: float, up_m: float) -> SceneView3d:
        """Return this view moved (eye and centre) along its right and up axes."""
        shift = right_m * self.rotation[0] + up_m * self.rotation[1]
        return replace(self, eye_m=self.eye_m + shift, center_m=self.center_m + shift)

    def camera(self, points_m: FloatArray) -> FloatArray:
        """World points in camera axes (x right, y up, z depth ahead)."""
        result: FloatArray = (points_m - self.eye_m) @ self.rotation.T
        return result

    def focal_px(self, rect: QRectF) -> float:
        """Pixels per unit of ``x / z`` for ``rect``."""
        half = 0.5 * min(rect.width(), rect.height())
        return half / math.tan(math.radians(self.fovy_deg) / 2.0)

    def metres_per_px(self, rect: QRectF) -> float:
        """How far one pixel of ``rect`` spans at the centre's depth."""
        return self.distance_m / self.focal_px(rect)

    def pixels(self, rect: QRectF, camera_points: FloatArray) -> FloatArray:
        """Project camera-axis points into ``rect`` (NaN nearer than the near plane)."""
        depth = camera_points[:, 2]
        focal = self.focal_px(rect)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = rect.center().x() + focal * camera_points[:, 0] / depth
            y = rect.center().y() - focal * camera_points[:, 1] / depth
        result: FloatArray = np.column_stack([x, y])
        result[~(depth >= self.near_m)] = np.nan
        return result


@dataclass(frozen=True)
class ViewClip:
    """The camera space a paint draws: past the near plane, inside a guard band.

    A shape partly outside is cut to it (in 3D, so what is left projects
    exactly), a segment likewise; the guard band spans :data:`_GUARD` times
    the view each way, so nothing drawn gets huge pixel coordinates.
    """

    near_m: float
    slope_x: float
    slope_y: float
    focal_px: float
    center_px: tuple[float, float]

    @classmethod
    def of(cls, view: SceneView3d, rect: QRectF) -> ViewClip:
        """Return the clip of ``view`` painted into ``rect``."""
        focal = max(view.focal_px(rect), 1e-9)
        return cls(
            near_m=view.near_m,
            slope_x=_GUARD * 0.5 * rect.width() / focal,
            slope_y=_GUARD * 0.5 * rect.height() / focal,
            focal_px=focal,
            center_px=(rect.center().x(), rect.center().y()),
        )

    def distances(self, points: FloatArray) -> FloatArray:
        """How far each camera point ``(..., 3)`` is inside each of the 5 planes."""
        x, y, z = points[..., 0], points[..., 1], points[..., 2]
        result: FloatArray = np.stack(
            [
                z - self.near_m,
                self.slope_x * z - x,
                self.slope_x * z + x,
                self.slope_y * z - y,
                self.slope_y * z + y,
            ],
            axis=-1,
        )
        return result

    def polygon(self, points: FloatArray) -> FloatArray:
        """Return the part drawn of a convex camera-space polygon ``(N, 3)``."""
        for plane in range(5):
            if len(points) < 3:
                break
            inside = self.distances(points)[:, plane]
            kept = []
            for index, (point, here) in enumerate(zip(points, inside, strict=True)):
                following = (index + 1) % len(points)
                if here >= 0.0:
                    kept.append(point)
                if (here >= 0.0) != (inside[following] >= 0.0):
                    step = here / (here - inside[following])
                    kept.append(point + step * (points[following] - point))
            points = np.array(kept, dtype=np.float64).reshape(-1, 3)
        return points if len(points) >= 3 else np.zeros((0, 3))

    def segment(self, start: FloatArray, end: FloatArray) -> FloatArray | None:
        """Return the part drawn of a camera-space segment (two points, or None)."""
        first, last = 0.0, 1.0
        for inside_start, inside_end in zip(
            self.distances(start), self.distances(end), strict=True
        ):
            if inside_start < 0.0 and inside_end < 0.0:
                return None
            if inside_start < 0.0:
                first = max(first, inside_start / (inside_start - inside_end))
            elif inside_end < 0.0:
                last = min(last, inside_start / (inside_start - inside_end))
        if first > last:
            return None
        result: FloatArray = start + np.array([[first], [last]]) * (end - start)
        return result

    def pixels(self, points: FloatArray) -> FloatArray:
        """Project camera points (past the near plane) into pixels."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            scale = self.focal_px / points[:, 2]
            result: FloatArray = np.column_stack(
                [
                    self.center_px[0] + scale * points[:, 0],
                    self.center_px[1] - scale * points[:, 1],
                ]
            )
        return result
