"""Clipping, lens tracing and sampling for the software camera of :mod:`render`.

Lines are clipped in camera coordinates against the near plane and a frustum a
little wider than the image before projecting, so geometry behind or beside the
camera never produces wild lines; with lens distortion, segments are sampled
every few pixels (they project as curves) and samples beyond the radius where
the distortion polynomial folds back are dropped. Pixel positions come from
:func:`~fsr_core.calibration.project_points`, shifted to Pillow's convention.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import BoolArray, FloatArray
from fsr_core.calibration import CalibrationProfile, project_points

__all__ = [
    "NEAR_M",
    "Lens",
    "Run",
    "clip_polygon",
    "lens_for",
    "to_pillow",
    "trace",
    "visible_points",
]


#: Near clipping plane, metres in front of the camera.
NEAR_M: Final = 0.01
_FRUSTUM_MARGIN: Final = 0.5  # frustum reaches this fraction of the image beyond it
_STEP_PX: Final = 3.0  # sample spacing of distorted lines
_MAX_SUBDIVISIONS: Final = 128
_RADIUS_CAP: Final = 20.0  # largest normalised radius considered (about 87 degrees)


@dataclass(frozen=True)
class Lens:
    """A camera's clip volume in camera coordinates and how its lens bends lines."""

    planes: FloatArray  # (5, 4): n . p + d >= 0 inside (near plane, four sides)
    r_valid: float  # normalised radius where the distortion stops increasing
    curved: bool


def _radial(profile: CalibrationProfile, r: FloatArray) -> FloatArray:
    """Distorted normalised radius of undistorted radius ``r`` (radial terms)."""
    if profile.distortion_model == "plumb_bob":
        k1, k2, _, _, k3 = profile.distortion
        r2 = r * r
        result: FloatArray = r * (1.0 + r2 * (k1 + r2 * (k2 + r2 * k3)))
        return result
    if profile.distortion_model == "equidistant":
        k1, k2, k3, k4 = profile.distortion
        theta = np.arctan(r)
        t2 = theta * theta
        return theta * (1.0 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))
    return r


def _reach(profile: CalibrationProfile, extent: float) -> tuple[float, float]:
    """Return the radius where the distortion folds back and the one to clip at.

    Barrel and fisheye lenses see beyond the pinhole field of view: the clip
    radius is where the distorted radius reaches ``extent`` (the image plus its
    margin), or where the polynomial folds back, whichever is smaller.
    """
    radii = np.linspace(0.0, _RADIUS_CAP, 20001)
    distorted = _radial(profile, radii)
    folds = np.flatnonzero(np.diff(distorted) <= 0.0)
    r_valid = float(radii[folds[0]]) if folds.size else math.inf
    reached = np.flatnonzero(distorted >= extent)
    needed = float(radii[reached[0]]) if reached.size else _RADIUS_CAP
    return r_valid, min(r_valid, needed)


@lru_cache(maxsize=32)
def lens_for(profile: CalibrationProfile) -> Lens:
    """Return the clip planes and distortion reach of ``profile`` (cached)."""
    width, height, m = profile.width, profile.height, _FRUSTUM_MARGIN
    u = np.array([-m * width, (1 + m) * width])
    v = np.array([-m * height, (1 + m) * height])
    y = (v - profile.cy) / profile.fy
    x = (u[:, None] - profile.cx - profile.skew * y[None, :]) / profile.fx
    x_lo, x_hi, y_lo, y_hi = float(x.min()), float(x.max()), float(y[0]), float(y[1])
    r_valid = math.inf
    if profile.distortion_model != "none":
        extent = float(np.hypot(np.abs(x).max(), np.abs(y).max()))
        r_valid, reach = _reach(profile, extent)
        x_lo, x_hi = min(x_lo, -reach), max(x_hi, reach)
        y_lo, y_hi = min(y_lo, -reach), max(y_hi, reach)
    planes = np.array(
        [
            [0.0, 0.0, 1.0, -NEAR_M],
            [1.0, 0.0, -x_lo, 0.0],
            [-1.0, 0.0, x_hi, 0.0],
            [0.0, 1.0, -y_lo, 0.0],
            [0.0, -1.0, y_hi, 0.0],
        ]
    )
    return Lens(planes, r_valid, curved=profile.distortion_model != "none")


def _clip(
    a: FloatArray, b: FloatArray, planes: FloatArray
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Liang-Barsky: the visible parameter range ``[t0, t1]`` of each segment."""
    fa = a @ planes[:, :3].T + planes[:, 3]
    fb = b @ planes[:, :3].T + planes[:, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = fa / (fa - fb)
    t0 = np.where((fa < 0.0) & (fb >= 0.0), t, 0.0).max(axis=1)
    t1 = np.where((fb < 0.0) & (fa >= 0.0), t, 1.0).min(axis=1)
    outside = ((fa < 0.0) & (fb < 0.0)).any(axis=1)
    finite = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    return t0, t1, finite & ~outside & (t0 < t1)


def to_pillow(points_cam: FloatArray, profile: CalibrationProfile) -> FloatArray:
    """Project camera-frame points to Pillow coordinates.

    OpenCV puts pixel centres at integers; Pillow truncates coordinates, so
    pixel ``i`` spans ``[i, i + 1)``: shifting by half a pixel makes Pillow's
    truncation round to the pixel the projection falls in.
    """
    pixels, _ = project_points(points_cam, profile, None)
    return pixels + 0.5


class Run(NamedTuple):
    """A traced, projected piece of a polyline, in Pillow coordinates."""

    pixels: FloatArray  # (k, 2) Pillow coordinates, k >= 2
    depth_m: FloatArray  # (k,)
    segment: int  # input segment of the first sample


def _subdivisions(
    p0: FloatArray, p1: FloatArray, profile: CalibrationProfile
) -> npt.NDArray[np.intp]:
    scale = np.array([profile.fx, profile.fy])
    length_px = np.linalg.norm(
        (p0[:, :2] / p0[:, 2:] - p1[:, :2] / p1[:, 2:]) * scale, axis=1
    )
    steps = np.ceil(np.nan_to_num(length_px / _STEP_PX, posinf=_MAX_SUBDIVISIONS))
    result: npt.NDArray[np.intp] = np.clip(steps, 1, _MAX_SUBDIVISIONS).astype(np.intp)
    return result


def _sample(
    p0: FloatArray, p1: FloatArray, steps: npt.NDArray[np.intp]
) -> tuple[FloatArray, npt.NDArray[np.intp], BoolArray]:
    """Cut each segment into ``steps`` pieces of equal length on screen.

    Returns the samples, the segment each belongs to, and which are first.
    """
    owner = np.repeat(np.arange(len(steps)), steps + 1)
    first = np.cumsum(steps + 1) - (steps + 1)
    s = (np.arange(owner.size) - first[owner]) / steps[owner]
    z0, z1 = p0[owner, 2], p1[owner, 2]
    t = s * z0 / ((1.0 - s) * z1 + s * z0)  # perspective-correct parameter
    samples = p0[owner] + t[:, None] * (p1 - p0)[owner]
    return samples, owner, s == 0.0


def trace(
    points_cam: FloatArray,
    lens: Lens,
    profile: CalibrationProfile,
    *,
    keep: BoolArray | None = None,
    connect: bool = True,
) -> list[Run]:
    """Clip, sample and project the polyline through ``points_cam``.

    Segment ``i`` joins points ``i`` and ``i + 1``; ``keep`` drops segments
    (gaps between polylines); ``connect=False`` makes every segment its own run.
    """
    a, b = points_cam[:-1], points_cam[1:]
    t0, t1, visible = _clip(a, b, lens.planes)
    if keep is not None:
        visible &= keep
    index = np.flatnonzero(visible)
    if index.size == 0:
        return []
    delta = b[index] - a[index]
    p0 = a[index] + t0[index, None] * delta
    p1 = a[index] + t1[index, None] * delta
    steps = (
        _subdivisions(p0, p1, profile) if lens.curved else np.ones(index.size, np.intp)
    )
    joined = np.zeros(index.size, dtype=bool)
    if connect:  # consecutive and unclipped where they meet: one run
        joined[1:] = (
            (np.diff(index) == 1) & (t1[index[:-1]] == 1.0) & (t0[index[1:]] == 0.0)
        )
    samples, owner, is_first = _sample(p0, p1, steps)
    mask = ~(is_first & joined[owner])
    start = is_first & ~joined[owner]
    if math.isfinite(lens.r_valid):
        valid = np.hypot(samples[:, 0], samples[:, 1]) <= lens.r_valid * samples[:, 2]
        start[1:] |= ~valid[:-1]
        mask &= valid
    return _runs(samples[mask], start[mask], index[owner[mask]], profile)


def _runs(
    samples: FloatArray,
    start: BoolArray,
    segment: npt.NDArray[np.intp],
    profile: CalibrationProfile,
) -> list[Run]:
    if samples.shape[0] < 2:
        return []
    pixels = to_pillow(samples, profile)
    start[0] = True
    edges = [*np.flatnonzero(start).tolist(), samples.shape[0]]
    return [
        Run(pixels[lo:hi], samples[lo:hi, 2], int(segment[lo]))
        for lo, hi in itertools.pairwise(edges)
        if hi - lo >= 2
    ]


def visible_points(
    points_cam: FloatArray, lens: Lens, profile: CalibrationProfile
) -> tuple[FloatArray, BoolArray]:
    """Pillow coordinates of points and whether each is inside the clip volume."""
    inside = np.isfinite(points_cam).all(axis=1)
    with np.errstate(invalid="ignore"):
        for plane in lens.planes:
            inside &= points_cam @ plane[:3] + plane[3] >= 0.0
        radius = np.hypot(points_cam[:, 0], points_cam[:, 1])
        inside &= radius <= lens.r_valid * points_cam[:, 2]
    return to_pillow(np.where(inside[:, None], points_cam, 1.0), profile), inside


def clip_polygon(polygon: FloatArray, planes: FloatArray) -> FloatArray:
    """Sutherland-Hodgman clipping of a convex polygon, in camera coordinates."""
    for plane in planes:
        if len(polygon) == 0:
            break
        side = polygon @ plane[:3] + plane[3]
        out: list[FloatArray] = []
        for i in range(len(polygon)):
            j = (i + 1) % len(polygon)
            if side[i] >= 0.0:
                out.append(polygon[i])
            if (side[i] >= 0.0) != (side[j] >= 0.0):
                out.append(
                    polygon[i]
                    + (polygon[j] - polygon[i]) * (side[i] / (side[i] - side[j]))
                )
        polygon = np.array(out, dtype=np.float64).reshape(-1, 3)
    return polygon
