"""Tests for fsr_core.calibration: profiles, digests, poses and projection."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import Any

import numpy as np
import pytest
from calibrated_files import calibration_epoch
from hypothesis import given
from hypothesis import strategies as st

from fsr_core.calibration import (
    CalibrationProfile,
    CameraPose,
    calibration_digest,
    look_at,
    matrix_from_quaternion,
    project_points,
    quaternion_from_matrix,
)
from fsr_core.canonical_json import canonical_dumps, parse_json
from fsr_core.errors import CalibrationError

PROFILE = CalibrationProfile(
    width=640, height=480, fx=500.0, fy=510.0, cx=320.0, cy=240.0
)
PLUMB_BOB = dataclasses.replace(
    PROFILE, distortion_model="plumb_bob", distortion=(0.1, -0.02, 0.001, 0.002, 0.003)
)
EQUIDISTANT = dataclasses.replace(
    PROFILE, distortion_model="equidistant", distortion=(0.01, 0.002, 0.0, 0.0)
)
IDENTITY_POSE = CameraPose(
    translation_m=np.zeros(3), quaternion_xyzw=np.array([0.0, 0.0, 0.0, 1.0])
)


# --- profile and digest ------------------------------------------------------


@pytest.mark.parametrize("profile", [PROFILE, PLUMB_BOB, EQUIDISTANT])
def test_profile_json_round_trip_through_canonical_bytes(
    profile: CalibrationProfile,
) -> None:
    data = canonical_dumps(profile.to_json())

    again = CalibrationProfile.from_json(parse_json(data))

    assert again == profile
    assert calibration_digest(again) == calibration_digest(profile)


def test_digest_is_sha256_of_the_canonical_profile_json() -> None:
    expected_json = (
        b'{"camera_frame":"opencv","cx":320.0,"cy":240.0,"distortion":[],'
        b'"distortion_model":"none","fx":500.0,"fy":510.0,"height":480,'
        b'"skew":0.0,"units":"m","width":640}'
    )

    digest = calibration_digest(PROFILE)

    assert canonical_dumps(PROFILE.to_json()) == expected_json
    assert digest == "sha256:" + hashlib.sha256(expected_json).hexdigest()
    assert calibration_digest(PROFILE) == digest


def test_digest_ignores_int_versus_float_and_negative_zero() -> None:
    same = CalibrationProfile(
        width=640, height=480, fx=500, fy=510, cx=320, cy=240, skew=-0.0
    )

    assert calibration_digest(same) == calibration_digest(PROFILE)
    assert isinstance(same.fx, float)


@pytest.mark.parametrize(
    "changes",
    [
        {"width": 641},
        {"height": 481},
        {"fx": 500.5},
        {"fy": 510.5},
        {"cx": 320.5},
        {"cy": 240.5},
        {"skew": 0.25},
        {"distortion_model": "plumb_bob", "distortion": (0.0,) * 5},
        {"distortion_model": "equidistant", "distortion": (0.0,) * 4},
    ],
    ids=lambda changes: ",".join(changes),
)
def test_digest_changes_with_any_field(changes: dict[str, Any]) -> None:
    changed = dataclasses.replace(PROFILE, **changes)

    assert calibration_digest(changed) != calibration_digest(PROFILE)


def test_digest_changes_with_one_distortion_coefficient() -> None:
    changed = dataclasses.replace(PLUMB_BOB, distortion=(0.1, -0.02, 0.001, 0.002, 0.0))

    assert calibration_digest(changed) != calibration_digest(PLUMB_BOB)


def test_k_matrix_is_read_only_float64() -> None:
    matrix = dataclasses.replace(PROFILE, skew=0.5).K

    np.testing.assert_array_equal(
        matrix, [[500.0, 0.5, 320.0], [0.0, 510.0, 240.0], [0.0, 0.0, 1.0]]
    )
    assert matrix.dtype == np.float64
    assert not matrix.flags.writeable


def _bad(key: str, value: object) -> dict[str, Any]:
    obj = PLUMB_BOB.to_json()
    obj[key] = value
    return obj


def _without(key: str) -> dict[str, Any]:
    obj = PLUMB_BOB.to_json()
    del obj[key]
    return obj


@pytest.mark.parametrize(
    ("obj", "pointer"),
    [
        pytest.param([], "/", id="not-an-object"),
        pytest.param(_without("fx"), "/fx", id="missing-key"),
        pytest.param({**PLUMB_BOB.to_json(), "extra": 1}, "/extra", id="unknown-key"),
        pytest.param(_bad("width", 640.0), "/width", id="width-float"),
        pytest.param(_bad("width", True), "/width", id="width-bool"),
        pytest.param(_bad("width", 0), "/width", id="width-zero"),
        pytest.param(_bad("height", -1), "/height", id="height-negative"),
        pytest.param(_bad("fx", "500"), "/fx", id="fx-string"),
        pytest.param(_bad("fx", 0.0), "/fx", id="fx-zero"),
        pytest.param(_bad("fy", -5.0), "/fy", id="fy-negative"),
        pytest.param(_bad("cx", math.nan), "/cx", id="cx-nan"),
        pytest.param(_bad("cy", math.inf), "/cy", id="cy-inf"),
        pytest.param(_bad("skew", None), "/skew", id="skew-null"),
        pytest.param(_bad("distortion_model", "fisheye"), "/distortion_model", id="m"),
        pytest.param(_bad("distortion", [0.1] * 4), "/distortion", id="too-short"),
        pytest.param(_bad("distortion", "0.1"), "/distortion", id="not-a-list"),
        pytest.param(
            _bad("distortion", [0.1, 0.2, math.nan, 0.0, 0.0]),
            "/distortion/2",
            id="coefficient-nan",
        ),
        pytest.param(
            _bad("distortion", [0.1, 0.2, "x", 0.0, 0.0]),
            "/distortion/2",
            id="coefficient-string",
        ),
        pytest.param(_bad("camera_frame", "opengl"), "/camera_frame", id="frame"),
        pytest.param(_bad("units", "mm"), "/units", id="units"),
    ],
)
def test_profile_from_json_rejects_invalid_field(obj: object, pointer: str) -> None:
    with pytest.raises(CalibrationError) as info:
        CalibrationProfile.from_json(obj)

    assert info.value.reason.startswith(pointer + ":")


def test_profile_from_json_prefixes_its_location() -> None:
    with pytest.raises(CalibrationError, match=r"^/cameras/0/profile/fx:"):
        CalibrationProfile.from_json(_bad("fx", -1.0), where="/cameras/0/profile")


def test_profile_constructor_rejects_invalid_values() -> None:
    with pytest.raises(CalibrationError, match="/distortion"):
        CalibrationProfile(
            width=4, height=4, fx=1.0, fy=1.0, cx=2.0, cy=2.0, distortion=(0.1,)
        )


# --- poses and rotations -----------------------------------------------------


def test_pose_rejects_non_unit_quaternion_and_normalized_accepts_it() -> None:
    with pytest.raises(CalibrationError, match="/quaternion_xyzw"):
        CameraPose(translation_m=np.zeros(3), quaternion_xyzw=np.array([0, 0, 0, 2.0]))

    pose = CameraPose.normalized([1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 2.0])

    np.testing.assert_array_equal(pose.quaternion_xyzw, [0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize(
    ("translation", "quaternion", "pointer"),
    [
        ([0.0, 0.0], [0.0, 0.0, 0.0, 1.0], "/translation_m"),
        ([0.0, math.nan, 0.0], [0.0, 0.0, 0.0, 1.0], "/translation_m"),
        ([0.0, 0.0, 0.0], [0.0, 0.0, math.inf, 1.0], "/quaternion_xyzw"),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], "/quaternion_xyzw"),
    ],
)
def test_pose_rejects_bad_arrays(
    translation: list[float], quaternion: list[float], pointer: str
) -> None:
    with pytest.raises(CalibrationError, match=pointer):
        CameraPose(
            translation_m=np.array(translation), quaternion_xyzw=np.array(quaternion)
        )


def test_normalized_rejects_zero_quaternion() -> None:
    with pytest.raises(CalibrationError, match="zero quaternion"):
        CameraPose.normalized([0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0])


def test_pose_arrays_are_read_only_copies() -> None:
    translation = np.array([1.0, 2.0, 3.0])
    pose = CameraPose(
        translation_m=translation, quaternion_xyzw=np.array([0, 0, 0, 1.0])
    )
    translation[0] = 99.0

    assert pose.translation_m[0] == 1.0
    assert not pose.translation_m.flags.writeable
    assert pose == CameraPose.normalized([1.0, 2.0, 3.0], [0, 0, 0, 1.0])
    assert hash(pose) == hash(CameraPose.normalized([1.0, 2.0, 3.0], [0, 0, 0, 1.0]))


unit_quaternions = (
    st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: float(np.linalg.norm(q)) > 0.1)
    .map(lambda q: q / np.linalg.norm(q))
)


@given(unit_quaternions)
def test_quaternion_matrix_round_trip(quaternion: np.ndarray) -> None:
    matrix = matrix_from_quaternion(quaternion)
    again = quaternion_from_matrix(matrix)

    np.testing.assert_allclose(matrix.T @ matrix, np.eye(3), atol=1e-12)
    assert np.linalg.det(matrix) == pytest.approx(1.0)
    sign = 1.0 if float(np.dot(again, quaternion)) >= 0.0 else -1.0
    np.testing.assert_allclose(again, sign * quaternion, atol=1e-12)
    np.testing.assert_allclose(matrix_from_quaternion(again), matrix, atol=1e-12)


@pytest.mark.parametrize(
    "matrix",
    [
        np.diag([1.0, -1.0, -1.0]),
        np.diag([-1.0, 1.0, -1.0]),
        np.diag([-1.0, -1.0, 1.0]),
        np.eye(3),
    ],
)
def test_quaternion_from_matrix_handles_half_turns(matrix: np.ndarray) -> None:
    quaternion = quaternion_from_matrix(matrix)

    assert float(np.linalg.norm(quaternion)) == pytest.approx(1.0)
    np.testing.assert_allclose(matrix_from_quaternion(quaternion), matrix, atol=1e-15)


@pytest.mark.parametrize(
    "matrix",
    [np.diag([1.0, 1.0, -1.0]), np.eye(3) * 2.0, np.full((3, 3), math.nan)],
    ids=["reflection", "scaled", "nan"],
)
def test_quaternion_from_matrix_rejects_non_rotation(matrix: np.ndarray) -> None:
    with pytest.raises(CalibrationError):
        quaternion_from_matrix(matrix)


def test_world_to_camera_and_back_are_inverse() -> None:
    pose = CameraPose.normalized([0.5, -1.0, 2.0], [0.1, 0.2, 0.3, 0.9])
    points = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [-4.0, 0.5, 1.0]])

    np.testing.assert_allclose(
        pose.camera_to_world(pose.world_to_camera(points)), points, atol=1e-12
    )


def test_look_at_rejects_degenerate_input() -> None:
    with pytest.raises(ValueError, match="coincide"):
        look_at([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="parallel"):
        look_at([0.0, 0.0, 5.0], [0.0, 0.0, 0.0])


# --- projection --------------------------------------------------------------


@pytest.mark.parametrize("profile", [PROFILE, PLUMB_BOB, EQUIDISTANT])
def test_point_on_optical_axis_projects_to_principal_point(
    profile: CalibrationProfile,
) -> None:
    pixels, in_front = project_points([[0.0, 0.0, 3.0]], profile, IDENTITY_POSE)

    np.testing.assert_allclose(pixels, [[profile.cx, profile.cy]])
    assert in_front.tolist() == [True]


@pytest.mark.parametrize(
    ("eye", "target"),
    [
        ([2.0, 1.0, 1.5], [0.0, 0.0, 0.5]),
        ([-3.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ([0.0, 0.0, 0.0], [0.1, -4.0, -0.3]),
    ],
)
def test_look_at_camera_sees_target_at_principal_point(
    eye: list[float], target: list[float]
) -> None:
    pose = look_at(eye, target)

    pixels, in_front = project_points([target], PLUMB_BOB, pose)

    np.testing.assert_allclose(pixels, [[PLUMB_BOB.cx, PLUMB_BOB.cy]], atol=1e-9)
    assert in_front.tolist() == [True]


def test_look_at_keeps_world_up_at_the_top_of_the_image() -> None:
    pose = look_at([-3.0, 0.0, 0.0], [0.0, 0.0, 0.0])

    pixels, _ = project_points([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0]], PROFILE, pose)

    assert pixels[0, 1] < PROFILE.cy  # above the principal point
    assert pixels[1, 0] > PROFILE.cx  # world -y is to the right looking along +x


def test_point_behind_camera_is_flagged_and_has_no_pixel() -> None:
    pose = look_at([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    points = [[-1.0, 0.0, 0.0], [1.0, 0.2, 0.1], [math.nan, 0.0, 0.0], [0.0, 1.0, 0.0]]

    pixels, in_front = project_points(points, PROFILE, pose)

    assert in_front.tolist() == [False, True, False, False]
    assert np.isnan(pixels[~in_front]).all()
    assert np.isfinite(pixels[in_front]).all()


def test_pinhole_projection_matches_k_matrix() -> None:
    profile = dataclasses.replace(PROFILE, skew=2.0)
    point = np.array([0.3, -0.2, 2.0])

    pixels, _ = project_points([point], profile, None)

    homogeneous = profile.K @ (point / point[2])
    np.testing.assert_allclose(pixels[0], homogeneous[:2])


@pytest.mark.parametrize("model", ["plumb_bob", "equidistant"])
def test_positive_k1_pushes_off_axis_points_outward(model: str) -> None:
    count = 5 if model == "plumb_bob" else 4
    undistorted = dataclasses.replace(
        PROFILE, distortion_model=model, distortion=(0.0,) * count
    )
    distorted = dataclasses.replace(
        undistorted, distortion=(0.2,) + (0.0,) * (count - 1)
    )
    points = [[0.2, 0.1, 1.0], [-0.3, 0.25, 1.0]]

    plain, _ = project_points(points, undistorted, None)
    pushed, _ = project_points(points, distorted, None)

    principal = np.array([PROFILE.cx, PROFILE.cy])
    plain_offset = plain - principal
    pushed_offset = pushed - principal
    assert (
        np.linalg.norm(pushed_offset, axis=1) > np.linalg.norm(plain_offset, axis=1)
    ).all()
    # Radial distortion keeps the direction in normalised coordinates.
    plain_xy = plain_offset / [500.0, 510.0]
    pushed_xy = pushed_offset / [500.0, 510.0]
    cross = plain_xy[:, 0] * pushed_xy[:, 1] - plain_xy[:, 1] * pushed_xy[:, 0]
    np.testing.assert_allclose(cross, 0.0, atol=1e-12)


def test_zero_plumb_bob_equals_no_distortion() -> None:
    zero = dataclasses.replace(
        PROFILE, distortion_model="plumb_bob", distortion=(0.0,) * 5
    )
    points = np.array([[0.4, -0.3, 1.5], [1.0, 1.0, 0.5]])

    np.testing.assert_allclose(
        project_points(points, zero, None)[0], project_points(points, PROFILE, None)[0]
    )


def test_plumb_bob_tangential_terms_follow_opencv() -> None:
    profile = dataclasses.replace(
        PROFILE, distortion_model="plumb_bob", distortion=(0.0, 0.0, 0.01, 0.02, 0.0)
    )
    x, y = 0.3, -0.2
    r2 = x * x + y * y
    expected_x = x + 2 * 0.01 * x * y + 0.02 * (r2 + 2 * x * x)
    expected_y = y + 0.01 * (r2 + 2 * y * y) + 2 * 0.02 * x * y

    pixels, _ = project_points([[x, y, 1.0]], profile, None)

    np.testing.assert_allclose(
        pixels[0], [500.0 * expected_x + 320.0, 510.0 * expected_y + 240.0]
    )


def test_equidistant_maps_angle_linearly_to_radius() -> None:
    profile = dataclasses.replace(
        PROFILE, distortion_model="equidistant", distortion=(0.0,) * 4
    )

    pixels, _ = project_points([[1.0, 0.0, 1.0]], profile, None)  # 45 degrees

    np.testing.assert_allclose(pixels[0], [320.0 + 500.0 * math.pi / 4, 240.0])


def test_projection_rejects_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        project_points([1.0, 2.0, 3.0], PROFILE, None)


def test_projection_of_no_points_is_empty() -> None:
    pixels, in_front = project_points(np.zeros((0, 3)), EQUIDISTANT, IDENTITY_POSE)

    assert pixels.shape == (0, 2)
    assert in_front.shape == (0,)


# --- epochs ------------------------------------------------------------------


def test_calibration_checks_digest_against_profile() -> None:
    calibration = calibration_epoch(
        "front",
        PROFILE,
        IDENTITY_POSE,
        generation=1,
        first_tick=10,
        first_sim_time_s=0.5,
    )
    assert calibration.digest.startswith("sha256:")

    with pytest.raises(CalibrationError, match="/digest"):
        dataclasses.replace(calibration, digest=calibration_digest(PLUMB_BOB))
    with pytest.raises(CalibrationError, match="/epoch"):
        dataclasses.replace(calibration, epoch=-1)
    with pytest.raises(CalibrationError, match="/camera"):
        dataclasses.replace(calibration, camera="")
