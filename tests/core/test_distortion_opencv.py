"""project_points against OpenCV, model by model, over the whole image.

Every model is checked with a camera pose (OpenCV ``rvec``/``tvec``) and
640x480 intrinsics on world points whose projections cover the image: a grid
of pixels is undistorted by OpenCV into rays, and points along those rays at
several depths are moved into the world. Each check also shows the comparison
can fail: ignoring the distortion (or part of it) misses OpenCV by pixels.
"""

from __future__ import annotations

import dataclasses
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from fsr_core.arrays import FloatArray
from fsr_core.calibration import (
    DISTORTION_LENGTHS,
    CalibrationProfile,
    CameraPose,
    calibration_digest,
    distortion_model_for,
    project_points,
    quaternion_from_matrix,
)
from fsr_core.canonical_json import canonical_dumps, parse_json
from fsr_core.errors import CalibrationError

WIDTH, HEIGHT = 640, 480
#: Largest accepted difference from OpenCV, pixels.
TOLERANCE_PX: Final = 0.05
RVEC: Final = np.array([0.31, -0.52, 0.17])
TVEC: Final = np.array([0.12, -0.08, 1.9])
DEPTHS_M: Final = (0.4, 1.3, 5.0)

PINHOLE = CalibrationProfile(
    width=WIDTH, height=HEIGHT, fx=502.5, fy=498.0, cx=321.7, cy=238.4
)
PLUMB_BOB = dataclasses.replace(
    PINHOLE,
    distortion_model="plumb_bob",
    distortion=(-0.28, 0.09, 0.0012, -0.0008, -0.012),
)
RATIONAL_5 = dataclasses.replace(
    PLUMB_BOB,
    distortion_model="rational_polynomial",
    distortion=(*PLUMB_BOB.distortion, 0.0, 0.0, 0.0),
)
RATIONAL_8 = dataclasses.replace(
    PINHOLE,
    distortion_model="rational_polynomial",
    distortion=(1.8, 0.45, 0.0011, -0.0009, 0.012, 2.2, 0.95, 0.08),
)
EQUIDISTANT = dataclasses.replace(
    PINHOLE,
    fx=300.0,
    fy=299.0,
    distortion_model="equidistant",
    distortion=(0.041, -0.013, 0.0052, -0.0011),
)
CASES: Final = {
    "plumb_bob": PLUMB_BOB,
    "rational_polynomial_5": RATIONAL_5,
    "rational_polynomial_8": RATIONAL_8,
    "equidistant": EQUIDISTANT,
}


def _pose() -> CameraPose:
    """Return the pose of ``RVEC``/``TVEC`` (world to camera, as OpenCV has it)."""
    world_to_camera, _ = cv2.Rodrigues(RVEC)
    rotation = world_to_camera.T  # camera to world
    return CameraPose.normalized(
        -rotation @ TVEC, quaternion_from_matrix(np.ascontiguousarray(rotation))
    )


def _pixel_grid() -> FloatArray:
    """Pixels over the whole image, edges and corners included, shape (N, 2)."""
    u = np.linspace(0.0, WIDTH - 1.0, 17)
    v = np.linspace(0.0, HEIGHT - 1.0, 13)
    grid: FloatArray = np.stack(np.meshgrid(u, v), axis=-1).reshape(-1, 2)
    return grid


def _opencv(
    profile: CalibrationProfile,
    points_world: FloatArray,
    rvec: FloatArray = RVEC,
    tvec: FloatArray = TVEC,
) -> FloatArray:
    """OpenCV's projection of world points through ``profile`` and a pose."""
    coefficients = np.asarray(profile.distortion, dtype=np.float64)
    objects = points_world.reshape(-1, 1, 3)
    if profile.distortion_model == "equidistant":
        pixels, _ = cv2.fisheye.projectPoints(
            objects, rvec, tvec, profile.K, coefficients
        )
    else:
        pixels, _ = cv2.projectPoints(objects, rvec, tvec, profile.K, coefficients)
    result: FloatArray = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
    return result


def _camera_pixels(profile: CalibrationProfile, xy: FloatArray) -> FloatArray:
    """OpenCV's pixels of camera-frame points ``(x, y, 1)``, shape (N, 2)."""
    camera = np.column_stack([xy, np.ones(len(xy))])
    return _opencv(profile, camera, np.zeros(3), np.zeros(3))


def _rays(profile: CalibrationProfile, pixels: FloatArray) -> FloatArray:
    """Undistorted normalised ``(x, y)`` that OpenCV maps onto ``pixels``.

    Newton's method on OpenCV's own projection (a numeric Jacobian), so the
    grid does not depend on the code under test. The Jacobian must stay
    positive: the points are inside the field of view where the lens model is
    one to one.
    """
    focal = np.array([profile.fx, profile.fy])
    xy: FloatArray = (pixels - [profile.cx, profile.cy]) / focal
    dx, dy = np.array([1e-7, 0.0]), np.array([0.0, 1e-7])
    for _ in range(100):
        here = _camera_pixels(profile, xy)
        residual = pixels - here
        if np.abs(residual).max() < 1e-9:
            break
        jacobian = np.stack(
            [
                (_camera_pixels(profile, xy + dx) - here) / dx[0],
                (_camera_pixels(profile, xy + dy) - here) / dy[1],
            ],
            axis=-1,
        )
        assert (np.linalg.det(jacobian) > 0.0).all()
        step: FloatArray = np.linalg.solve(jacobian, residual[..., None])[..., 0]
        xy = xy + step
    assert np.abs(pixels - _camera_pixels(profile, xy)).max() < 1e-6
    return xy


def _world_grid(profile: CalibrationProfile) -> FloatArray:
    """World points seen all over the image, at every depth of DEPTHS_M."""
    rays = _rays(profile, _pixel_grid())
    camera = np.vstack(
        [
            np.column_stack([rays * depth, np.full(len(rays), depth)])
            for depth in DEPTHS_M
        ]
    )
    world: FloatArray = _pose().camera_to_world(camera)
    return world


def _corners() -> npt.NDArray[np.bool_]:
    """Which points of :func:`_world_grid` project onto an image corner."""
    u, v = _pixel_grid().T
    corner = np.isin(u, [0.0, WIDTH - 1.0]) & np.isin(v, [0.0, HEIGHT - 1.0])
    return np.tile(corner, len(DEPTHS_M))


@pytest.mark.parametrize("case", list(CASES))
def test_projection_matches_opencv_over_the_whole_image(case: str) -> None:
    profile = CASES[case]
    points = _world_grid(profile)

    ours, in_front = project_points(points, profile, _pose())
    theirs = _opencv(profile, points)

    assert in_front.all()
    # The grid reaches every edge of the image (it was made from edge pixels).
    assert theirs.min(axis=0) == pytest.approx([0.0, 0.0], abs=0.5)
    assert theirs.max(axis=0) == pytest.approx([WIDTH - 1.0, HEIGHT - 1.0], abs=0.5)
    error = np.hypot(*(ours - theirs).T)
    assert error.max() <= TOLERANCE_PX, (case, float(error.max()))


@pytest.mark.parametrize("case", list(CASES))
def test_ignoring_the_distortion_misses_opencv_at_the_corners(case: str) -> None:
    profile = CASES[case]
    points = _world_grid(profile)
    theirs = _opencv(profile, points)
    pinhole = dataclasses.replace(profile, distortion_model="none", distortion=())

    plain, _ = project_points(points, pinhole, _pose())

    corners = _corners()
    assert corners.sum() == 4 * len(DEPTHS_M)
    assert (np.hypot(*(plain - theirs)[corners].T) > 1.0).all()


def test_rational_polynomial_uses_its_denominator() -> None:
    points = _world_grid(RATIONAL_8)
    theirs = _opencv(RATIONAL_8, points)
    numerator_only = dataclasses.replace(
        RATIONAL_8, distortion=(*RATIONAL_8.distortion[:5], 0.0, 0.0, 0.0)
    )

    ours, _ = project_points(points, numerator_only, _pose())

    assert np.hypot(*(ours - theirs).T).max() > 1.0


@pytest.mark.parametrize("model", sorted(DISTORTION_LENGTHS))
def test_every_model_of_the_profile_table_projects(model: str) -> None:
    """Each model the profile accepts has a projection (zero coefficients here)."""
    profile = dataclasses.replace(
        PINHOLE, distortion_model=model, distortion=(0.0,) * DISTORTION_LENGTHS[model]
    )
    points = np.array([[0.4, -0.3, 1.5], [-1.0, 0.7, 2.0], [0.0, 0.0, 1.0]])

    ours, in_front = project_points(points, profile, _pose())

    assert in_front.all()
    assert np.hypot(*(ours - _opencv(profile, points)).T).max() <= TOLERANCE_PX


def test_rational_polynomial_profile_round_trips_and_counts_eight() -> None:
    again = CalibrationProfile.from_json(
        parse_json(canonical_dumps(RATIONAL_8.to_json()))
    )
    assert again == RATIONAL_8
    assert calibration_digest(again) == calibration_digest(RATIONAL_8)
    with pytest.raises(CalibrationError, match="takes 8 coefficients, found 5"):
        dataclasses.replace(RATIONAL_8, distortion=PLUMB_BOB.distortion)


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("plumb_bob", "plumb_bob"),
        ("rational_polynomial", "rational_polynomial"),
        ("equidistant", "equidistant"),
        ("kannala_brandt", "equidistant"),
        ("fisheye", None),
        ("Plumb_Bob", None),
        ("", None),
    ],
)
def test_foreign_model_names_map_to_profile_models(
    name: str, model: str | None
) -> None:
    assert distortion_model_for(name) == model
    if model is not None:
        assert model in DISTORTION_LENGTHS


def test_kannala_brandt_is_not_a_profile_model() -> None:
    with pytest.raises(CalibrationError, match="/distortion_model"):
        dataclasses.replace(
            EQUIDISTANT, distortion_model="kannala_brandt", distortion=(0.0,) * 4
        )
