"""A software pinhole camera for the built-in simulator (numpy and Pillow only).

:func:`render_rgb` draws an :class:`ArmScene` (world coordinates, metres)
as a camera with a :class:`~fsr_core.calibration.CalibrationProfile` at a
:class:`~fsr_core.calibration.CameraPose` would see it: a sky gradient, a floor
patch with a grid, the arm's links as perspective-width ribbons with discs at
the joints and the tip, centres of mass, targets with tolerance rings, a curve
and the tip force as an arrow. Every pixel position comes from
:func:`~fsr_core.calibration.project_points`, so lens distortion applies and an
overlay drawn from the same calibration lines up with the frame. Colours are
the project palette's (:func:`resources.palette`): the arm and the task as the
viewer's scene draws them, and the ``render`` entries for what only recorded
frames show.
Clipping, lens tracing and sampling live in
:mod:`~fsr_core.simulators.planar_arm.render_geometry`. The floor is drawn first
as a backdrop; everything else is painted far to near. Output is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from fsr_core.arrays import BoolArray, FloatArray
from fsr_core.calibration import CalibrationProfile, CameraPose, project_points
from fsr_core.simulators.planar_arm.render_geometry import (
    Lens,
    Run,
    clip_polygon,
    lens_for,
    to_pillow,
    trace,
    visible_points,
)
from resources import palette

__all__ = ["ArmScene", "project", "render_rgb"]

Color = tuple[int, int, int]

_PALETTE: Final = palette()
BACKGROUND_TOP: Final[Color] = _PALETTE.rgb("render.sky_top")
BACKGROUND_BOTTOM: Final[Color] = _PALETTE.rgb("render.sky_bottom")
FLOOR_COLOR: Final[Color] = _PALETTE.rgb("render.floor")
GRID_COLOR: Final[Color] = _PALETTE.rgb("render.grid")
#: Links cycle through these, so neighbouring links are told apart.
LINK_COLORS: Final[tuple[Color, ...]] = _PALETTE.cycle("arm.links")
BASE_COLOR: Final[Color] = _PALETTE.rgb("arm.base")
JOINT_COLOR: Final[Color] = _PALETTE.rgb("arm.joint")
TIP_COLOR: Final[Color] = _PALETTE.rgb("arm.tip")
COM_COLOR: Final[Color] = _PALETTE.rgb("render.com")
TARGET_COLOR: Final[Color] = _PALETTE.rgb("task.target")
ACTIVE_TARGET_COLOR: Final[Color] = _PALETTE.rgb("task.active_target")
CURVE_COLOR: Final[Color] = _PALETTE.rgb("render.curve")
FORCE_COLOR: Final[Color] = _PALETTE.rgb("task.force")

_CHUNK: Final = 8  # polyline samples per depth-sorted piece
_RING_SEGMENTS: Final = 64
# Disc radii as multiples of the link radius.
_BASE_SCALE: Final = 1.8
_JOINT_SCALE: Final = 1.35
_TIP_SCALE: Final = 1.5
_COM_SCALE: Final = 0.55
_TARGET_SCALE: Final = 1.6


def _points(value: npt.ArrayLike, name: str, rows: int | None) -> FloatArray:
    array = np.array(value, dtype=np.float64)
    if (
        array.ndim != 2
        or array.shape[1] != 3
        or (rows is not None and len(array) != rows)
    ):
        wanted = f"({'N' if rows is None else rows}, 3)"
        raise ValueError(f"{name} must have shape {wanted}, got {array.shape}")
    array.setflags(write=False)
    return array


def _positive(value: float, name: str) -> None:
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


@dataclass(frozen=True, eq=False)
class ArmScene:
    """Everything :func:`render_rgb` draws, in world coordinates (metres, z up).

    Parameters
    ----------
    joints_m
        Shape (n + 1, 3): the base, the joints and the tip (at least one link).
    link_radius_m
        Link radius; sets link widths and disc sizes.
    coms_m
        Shape (n, 3): link centres of mass, drawn as small dots.
    targets_m
        Shape (k, 3): targets, drawn as hollow rings.
    active_target
        Index into ``targets_m`` of the target drawn filled.
    target_tolerance_m
        Radius of a ring around each target, in the arm plane (world x-z).
    curve_m
        Shape (m, 3): a polyline (periodic curve or reference path).
    tip_force_n
        Shape (3,): external force at the tip, drawn as an arrow.
    force_scale_m_per_n
        Arrow length per newton.
    floor_z_m, grid_spacing_m, grid_half_extent_m
        The floor patch (a square on the plane ``z = floor_z_m``) and its grid.

    Raises
    ------
    ValueError
        An array has the wrong shape, a size is not positive, or
        ``active_target`` is out of range.
    """

    joints_m: FloatArray
    link_radius_m: float = 0.02
    coms_m: FloatArray | None = None
    targets_m: FloatArray | None = None
    active_target: int | None = None
    target_tolerance_m: float | None = None
    curve_m: FloatArray | None = None
    tip_force_n: FloatArray | None = None
    floor_z_m: float = 0.0
    grid_spacing_m: float = 0.25
    grid_half_extent_m: float = 2.0
    force_scale_m_per_n: float = 0.02

    def __post_init__(self) -> None:
        """Copy the arrays read-only and check shapes and sizes."""
        joints = _points(self.joints_m, "joints_m", None)
        if len(joints) < 2:
            raise ValueError("joints_m needs at least two rows (one link)")
        object.__setattr__(self, "joints_m", joints)
        for name, rows in (
            ("coms_m", len(joints) - 1),
            ("targets_m", None),
            ("curve_m", None),
        ):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _points(value, name, rows))
        if self.tip_force_n is not None:
            force = _points(np.reshape(self.tip_force_n, (1, -1)), "tip_force_n", 1)
            object.__setattr__(self, "tip_force_n", force[0])
        count = 0 if self.targets_m is None else len(self.targets_m)
        if self.active_target is not None and not 0 <= self.active_target < count:
            raise ValueError(
                f"active_target {self.active_target} is not in [0, {count})"
            )
        _positive(self.link_radius_m, "link_radius_m")
        _positive(self.grid_spacing_m, "grid_spacing_m")
        _positive(self.force_scale_m_per_n, "force_scale_m_per_n")
        if self.target_tolerance_m is not None:
            _positive(self.target_tolerance_m, "target_tolerance_m")
        if not 0.0 <= self.grid_half_extent_m <= 400 * self.grid_spacing_m:
            raise ValueError("grid_half_extent_m must be in [0, 400 * grid_spacing_m]")


def project(
    points_world: npt.ArrayLike, profile: CalibrationProfile, pose: CameraPose
) -> tuple[FloatArray, BoolArray]:
    """Project world points to pixels exactly as :func:`render_rgb` places them.

    Parameters
    ----------
    points_world
        Shape (N, 3), metres.
    profile, pose
        The camera.

    Returns
    -------
    pixels, in_front
        As :func:`fsr_core.calibration.project_points`.
    """
    return project_points(points_world, profile, pose)


# ---------------------------------------------------------------------------
# Painting
# ---------------------------------------------------------------------------


class _Item(NamedTuple):
    key_m: float  # painted far (large) to near (small)
    layer: int  # breaks ties: things on a link are painted after it
    shape: str  # "polygon", "disc", "ring" or "line"
    xy: list[float]
    color: Color
    width: int = 1


def _paint(draw: ImageDraw.ImageDraw, item: _Item) -> None:
    if item.shape == "polygon":
        draw.polygon(item.xy, fill=item.color, outline=item.color)
    elif item.shape == "disc":
        draw.ellipse(item.xy, fill=item.color)
    elif item.shape == "ring":
        draw.ellipse(item.xy, outline=item.color, width=item.width)
    else:
        draw.line(item.xy, fill=item.color, width=item.width, joint="curve")


def _box(u: float, v: float, radius_px: float) -> list[float]:
    """Pillow box of a disc: Pillow fills both edge pixels, hence the -0.5."""
    inner = radius_px - 0.5
    return [u - inner, v - inner, u + inner, v + inner]


@lru_cache(maxsize=8)
def _background(width: int, height: int) -> Image.Image:
    """Return a vertical sky gradient (integer arithmetic: identical everywhere)."""
    rows = np.arange(height, dtype=np.int64)[:, None]
    top, bottom = np.array(BACKGROUND_TOP), np.array(BACKGROUND_BOTTOM)
    column = top + (bottom - top) * rows // max(height - 1, 1)
    pixels = np.broadcast_to(column[:, None, :], (height, width, 3)).astype(np.uint8)
    return Image.fromarray(pixels, "RGB")


def _floor_outline(
    corners_cam: FloatArray, lens: Lens, profile: CalibrationProfile
) -> list[float]:
    """Pixel outline of the visible part of the floor patch (empty if none)."""
    polygon = clip_polygon(corners_cam, lens.planes)
    if len(polygon) < 3:
        return []
    if lens.curved:
        runs = trace(np.vstack([polygon, polygon[:1]]), lens, profile)
        pixels = np.vstack([run.pixels for run in runs]) if runs else polygon[:0, :2]
    else:
        pixels = to_pillow(polygon, profile)
    result: list[float] = pixels.ravel().tolist() if len(pixels) >= 3 else []
    return result


def _draw_floor(
    draw: ImageDraw.ImageDraw,
    scene: ArmScene,
    pose: CameraPose,
    lens: Lens,
    profile: CalibrationProfile,
) -> None:
    extent, z = scene.grid_half_extent_m, scene.floor_z_m
    if extent == 0.0:
        return
    corners = np.array(
        [
            [-extent, -extent, z],
            [extent, -extent, z],
            [extent, extent, z],
            [-extent, extent, z],
        ]
    )
    outline = _floor_outline(pose.world_to_camera(corners), lens, profile)
    if outline:
        draw.polygon(outline, fill=FLOOR_COLOR)
    count = math.floor(extent / scene.grid_spacing_m + 1e-9)
    offsets = scene.grid_spacing_m * np.arange(-count, count + 1, dtype=np.float64)
    ends = np.full_like(offsets, extent)
    lines = np.concatenate(
        [
            np.stack([np.stack([offsets, -ends], 1), np.stack([offsets, ends], 1)], 1),
            np.stack([np.stack([-ends, offsets], 1), np.stack([ends, offsets], 1)], 1),
        ]
    ).reshape(-1, 2)
    world = np.column_stack([lines, np.full(len(lines), z)])
    keep = np.arange(len(world) - 1) % 2 == 0  # no segment from one line to the next
    for run in trace(
        pose.world_to_camera(world), lens, profile, keep=keep, connect=False
    ):
        draw.line(run.pixels.ravel().tolist(), fill=GRID_COLOR, width=1)


def _ribbon(run: Run, radius_m: float, fx: float) -> list[float]:
    """Outline of a thick line whose width follows the depth of each sample."""
    half = np.maximum(radius_m * fx / run.depth_m, 0.5) - 0.5  # fills both edges
    tangent = np.gradient(run.pixels, axis=0)
    length = np.hypot(tangent[:, 0], tangent[:, 1])
    safe = length > 1e-9
    tangent = np.where(
        safe[:, None], tangent / np.where(safe, length, 1.0)[:, None], [1.0, 0.0]
    )
    normal = np.column_stack([-tangent[:, 1], tangent[:, 0]]) * half[:, None]
    outline = np.vstack([run.pixels + normal, (run.pixels - normal)[::-1]])
    result: list[float] = outline.ravel().tolist()
    return result


def _polyline_items(runs: list[Run], color: Color, width: int) -> list[_Item]:
    """Thin lines, cut into short pieces so each is depth-sorted on its own."""
    items = []
    for run in runs:
        for lo in range(0, len(run.pixels) - 1, _CHUNK - 1):
            part = slice(lo, lo + _CHUNK)
            key = float(run.depth_m[part].mean())
            xy = run.pixels[part].ravel().tolist()
            items.append(_Item(key, 0, "line", xy, color, width))
    return items


def _arm_items(
    scene: ArmScene, pose: CameraPose, lens: Lens, profile: CalibrationProfile
) -> list[_Item]:
    radius, fx = scene.link_radius_m, profile.fx
    joints = pose.world_to_camera(scene.joints_m)
    links = len(joints) - 1
    keys = np.full(links, np.inf)
    items = []
    for run in trace(joints, lens, profile, connect=False):
        key = 0.5 * float(run.depth_m.min() + run.depth_m.max()) - radius
        keys[run.segment] = min(keys[run.segment], key)
        color = LINK_COLORS[run.segment % len(LINK_COLORS)]
        items.append(_Item(key, 1, "polygon", _ribbon(run, radius, fx), color))
    scales = [_BASE_SCALE] + [_JOINT_SCALE] * (links - 1) + [_TIP_SCALE]
    colors = [BASE_COLOR] + [JOINT_COLOR] * (links - 1) + [TIP_COLOR]
    layers = [3] * links + [4]
    # A joint is painted on top of the nearer of its two links.
    neighbours = np.minimum(np.append(keys, np.inf), np.insert(keys, 0, np.inf))
    radii = np.array(scales) * radius
    items += _discs(joints, radii, neighbours, colors, layers, lens, profile)
    if scene.coms_m is not None:
        coms = pose.world_to_camera(scene.coms_m)
        radii = np.full(links, _COM_SCALE * radius)
        items += _discs(
            coms, radii, keys, [COM_COLOR] * links, [2] * links, lens, profile
        )
    return items


def _discs(
    points_cam: FloatArray,
    radii_m: FloatArray,
    keys: FloatArray,
    colors: list[Color],
    layers: list[int],
    lens: Lens,
    profile: CalibrationProfile,
) -> list[_Item]:
    pixels, inside = visible_points(points_cam, lens, profile)
    items = []
    for i in np.flatnonzero(inside).tolist():
        depth = float(points_cam[i, 2])
        radius_px = max(float(radii_m[i]) * profile.fx / depth, 1.0)
        key = min(float(keys[i]), depth - float(radii_m[i]))
        xy = _box(float(pixels[i, 0]), float(pixels[i, 1]), radius_px)
        items.append(_Item(key, layers[i], "disc", xy, colors[i]))
    return items


def _target_items(
    scene: ArmScene, pose: CameraPose, lens: Lens, profile: CalibrationProfile
) -> list[_Item]:
    targets_m, tolerance_m = scene.targets_m, scene.target_tolerance_m
    if targets_m is None or len(targets_m) == 0:
        return []
    targets = pose.world_to_camera(targets_m)
    pixels, inside = visible_points(targets, lens, profile)
    radius_m = _TARGET_SCALE * scene.link_radius_m
    items = []
    for i in np.flatnonzero(inside).tolist():
        depth = float(targets[i, 2])
        xy = _box(
            float(pixels[i, 0]),
            float(pixels[i, 1]),
            max(radius_m * profile.fx / depth, 3.0),
        )
        if i == scene.active_target:
            items.append(_Item(depth - radius_m, 0, "disc", xy, ACTIVE_TARGET_COLOR))
        else:
            items.append(_Item(depth - radius_m, 0, "ring", xy, TARGET_COLOR, 2))
    if tolerance_m is not None:
        active = scene.active_target
        items += _tolerance_items(targets_m, tolerance_m, active, pose, lens, profile)
    return items


def _tolerance_items(
    targets_m: FloatArray,
    tolerance_m: float,
    active: int | None,
    pose: CameraPose,
    lens: Lens,
    profile: CalibrationProfile,
) -> list[_Item]:
    """Circles of radius ``tolerance_m`` around each target, in the arm plane."""
    angles = np.linspace(0.0, 2.0 * math.pi, _RING_SEGMENTS + 1)
    circle = np.column_stack([np.cos(angles), np.zeros_like(angles), np.sin(angles)])
    circle *= tolerance_m
    points = (targets_m[:, None, :] + circle[None, :, :]).reshape(-1, 3)
    per_ring = _RING_SEGMENTS + 1
    keep = (np.arange(len(points) - 1) + 1) % per_ring != 0
    items = []
    for run in trace(pose.world_to_camera(points), lens, profile, keep=keep):
        width = 2 if run.segment // per_ring == active else 1
        items += _polyline_items([run], TARGET_COLOR, width)
    return items


def _force_items(
    scene: ArmScene, pose: CameraPose, lens: Lens, profile: CalibrationProfile
) -> list[_Item]:
    force = scene.tip_force_n
    if force is None or not float(np.linalg.norm(force)) > 1e-12:
        return []
    tip = scene.joints_m[-1]
    ends = pose.world_to_camera(
        np.stack([tip, tip + force * scene.force_scale_m_per_n])
    )
    runs = trace(ends, lens, profile)
    items = _polyline_items(runs, FORCE_COLOR, 3)
    pixels, inside = visible_points(ends[1:], lens, profile)
    if not (runs and inside[0]):
        return items
    shaft = runs[-1].pixels
    direction = shaft[-1] - shaft[-2]
    step_px = float(np.hypot(*direction))
    if step_px < 1e-9:
        return items
    total_px = float(
        sum(np.hypot(*np.diff(run.pixels, axis=0).T).sum() for run in runs)
    )
    length_px = min(max(0.3 * total_px, 5.0), 14.0)
    along = direction / step_px * length_px
    across = np.array([-along[1], along[0]]) * 0.5
    end = pixels[0]
    head = np.stack([end, end - along + across, end - along - across])
    items.append(
        _Item(float(ends[1, 2]), 0, "polygon", head.ravel().tolist(), FORCE_COLOR)
    )
    return items


def render_rgb(
    scene: ArmScene, profile: CalibrationProfile, pose: CameraPose
) -> npt.NDArray[np.uint8]:
    """Draw ``scene`` as seen by the camera ``profile`` at ``pose``.

    Parameters
    ----------
    scene
        What to draw, in world coordinates.
    profile
        The camera's intrinsics, including lens distortion.
    pose
        The camera's pose (camera to world).

    Returns
    -------
    numpy.ndarray
        Shape ``(profile.height, profile.width, 3)``, uint8 RGB. Identical
        inputs give identical pixels.
    """
    lens = lens_for(profile)
    image = _background(profile.width, profile.height).copy()
    draw = ImageDraw.Draw(image)
    _draw_floor(draw, scene, pose, lens, profile)
    items = _arm_items(scene, pose, lens, profile)
    items += _target_items(scene, pose, lens, profile)
    if scene.curve_m is not None:
        curve = trace(pose.world_to_camera(scene.curve_m), lens, profile)
        items += _polyline_items(curve, CURVE_COLOR, 2)
    items += _force_items(scene, pose, lens, profile)
    for item in sorted(items, key=lambda item: (-item.key_m, item.layer)):
        _paint(draw, item)
    return np.array(image, dtype=np.uint8)
