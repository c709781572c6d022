"""What the built-in simulator's software camera draws, and where.

Run as a script, this file writes the SHA-256 of a fixed render to stdout
(the cross-process determinism test compares it with its own).
"""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fsr_core.calibration import CalibrationProfile, CameraPose, look_at, project_points
from fsr_core.simulators.planar_arm.render import (
    ACTIVE_TARGET_COLOR,
    BASE_COLOR,
    COM_COLOR,
    CURVE_COLOR,
    FORCE_COLOR,
    GRID_COLOR,
    JOINT_COLOR,
    LINK_COLORS,
    TARGET_COLOR,
    TIP_COLOR,
    ArmScene,
    project,
    render_rgb,
)

Image = npt.NDArray[np.uint8]
_LOOK_AT = (0.2, 0.0, 0.5)
_EYES = [(0.2, -2.5, 0.8), (1.6, -1.9, 1.4), (-1.2, -1.6, 0.2), (0.3, -1.2, 2.4)]
_LENSES: dict[str, dict[str, Any]] = {
    "pinhole": {},
    "plumb_bob": {
        "distortion_model": "plumb_bob",
        "distortion": (-0.28, 0.09, 0.0012, -0.0008, -0.01),
    },
    "equidistant": {
        "distortion_model": "equidistant",
        "distortion": (0.04, -0.01, 0.002, 0.0),
    },
}
_ARM_COLORS = [*LINK_COLORS, BASE_COLOR, JOINT_COLOR, TIP_COLOR, COM_COLOR]
_OVERLAY_COLORS = [TARGET_COLOR, ACTIVE_TARGET_COLOR, CURVE_COLOR, FORCE_COLOR]


def _profile(
    lens: str = "pinhole", width: int = 320, height: int = 240
) -> CalibrationProfile:
    scale = width / 320
    return CalibrationProfile(
        width=width,
        height=height,
        fx=260.0 * scale,
        fy=258.0 * scale,
        cx=161.3 * scale,
        cy=118.7 * scale,
        **_LENSES[lens],
    )


def _arm_joints(
    q: tuple[float, ...] = (0.7, -1.0, -0.6),
    lengths: tuple[float, ...] = (0.45, 0.35, 0.25),
) -> npt.NDArray[np.float64]:
    """Forward kinematics in the arm plane, embedded as world (x, 0, y)."""
    plane = [np.array([0.0, 0.5])]
    theta = 0.0
    for angle, length in zip(q, lengths, strict=True):
        theta += angle
        plane.append(plane[-1] + length * np.array([math.cos(theta), math.sin(theta)]))
    xy = np.array(plane)
    return np.column_stack([xy[:, 0], np.zeros(len(xy)), xy[:, 1]])


def _arm_scene() -> ArmScene:
    joints = _arm_joints()
    return ArmScene(
        joints_m=joints,
        coms_m=0.5 * (joints[:-1] + joints[1:]),
        targets_m=np.array([[-0.3, 0.0, 1.0], [0.1, 0.0, 0.2]]),
        active_target=0,
        target_tolerance_m=0.05,
    )


def _full_scene() -> ArmScene:
    joints = _arm_joints()
    angles = np.linspace(0.0, 2.0 * math.pi, 90)
    curve = np.column_stack(
        [0.4 + 0.2 * np.cos(angles), np.zeros_like(angles), 0.6 + 0.1 * np.sin(angles)]
    )
    return ArmScene(
        joints_m=joints,
        coms_m=0.5 * (joints[:-1] + joints[1:]),
        targets_m=np.array([[0.7, 0.0, 0.9], [0.1, 0.0, 0.2]]),
        active_target=1,
        target_tolerance_m=0.06,
        curve_m=curve,
        tip_force_n=np.array([2.0, 0.0, -8.0]),
    )


def _render_hash() -> str:
    image = render_rgb(
        _full_scene(), _profile("plumb_bob"), look_at(_EYES[1], _LOOK_AT)
    )
    return hashlib.sha256(image.tobytes()).hexdigest()


def _mask(image: Image, color: tuple[int, int, int]) -> npt.NDArray[np.bool_]:
    mask: npt.NDArray[np.bool_] = np.all(image == np.array(color, np.uint8), axis=2)
    return mask


def _any_of(image: Image, colors: list[tuple[int, int, int]]) -> bool:
    return any(_mask(image, color).any() for color in colors)


def _pixel(
    points: npt.ArrayLike, profile: CalibrationProfile, pose: CameraPose
) -> npt.NDArray[np.float64]:
    pixels, in_front = project_points(points, profile, pose)
    assert in_front.all()
    return pixels


@pytest.mark.parametrize("lens", list(_LENSES))
@pytest.mark.parametrize("eye", _EYES)
def test_tip_is_drawn_where_project_points_puts_it(
    eye: tuple[float, float, float], lens: str
) -> None:
    scene, profile, pose = _arm_scene(), _profile(lens), look_at(eye, _LOOK_AT)
    u, v = _pixel(scene.joints_m[-1:], profile, pose)[0]

    tip = _mask(render_rgb(scene, profile, pose), TIP_COLOR)

    assert tip[round(v), round(u)]
    rows, cols = np.nonzero(tip)
    assert math.hypot(cols.mean() - u, rows.mean() - v) <= 1.0


def test_project_matches_calibration_projection() -> None:
    profile, pose = _profile("plumb_bob"), look_at(_EYES[0], _LOOK_AT)
    points = _arm_joints()

    pixels, in_front = project(points, profile, pose)

    expected, expected_front = project_points(points, profile, pose)
    np.testing.assert_array_equal(pixels, expected)
    np.testing.assert_array_equal(in_front, expected_front)


def _looking_along_x() -> CameraPose:
    """Return a camera at (0, 0, 0.5) looking along world +x (image right: -y)."""
    return look_at((0.0, 0.0, 0.5), (1.0, 0.0, 0.5))


def test_target_behind_the_camera_is_not_drawn() -> None:
    scene = ArmScene(
        joints_m=np.array([[1.0, 0.0, 0.2], [1.5, 0.0, 0.4]]),
        targets_m=np.array([[-1.0, 0.0, 0.5]]),
        active_target=0,
        target_tolerance_m=0.2,
    )

    image = render_rgb(scene, _profile(), _looking_along_x())

    assert not _any_of(image, [TARGET_COLOR, ACTIVE_TARGET_COLOR])
    assert _mask(image, TIP_COLOR).any()


@pytest.mark.parametrize("lens", list(_LENSES))
def test_link_crossing_the_near_plane_is_clipped_not_mirrored(lens: str) -> None:
    # From behind the camera to 1 m ahead, 0.3 m to the camera's left.
    scene = ArmScene(joints_m=np.array([[-1.0, 0.3, 0.5], [1.0, 0.3, 0.5]]))
    profile = _profile(lens)

    link = _mask(render_rgb(scene, profile, _looking_along_x()), LINK_COLORS[0])

    rows, cols = np.nonzero(link)
    far_end_u = _pixel(scene.joints_m[1:], profile, _looking_along_x())[0, 0]
    assert link[:, 0].any()  # runs out of the image on the left
    assert cols.max() <= far_end_u + 10  # and nowhere right of its far end
    assert abs(rows.mean() - profile.cy) < 3


def test_scene_entirely_behind_the_camera_leaves_only_floor_and_sky() -> None:
    scene = ArmScene(
        joints_m=-np.abs(_arm_joints()) - np.array([0.5, 0.0, 0.0]),
        coms_m=np.full((3, 3), [-1.0, 0.0, 0.5]),
        targets_m=np.array([[-0.5, 0.0, 0.5], [-2.0, 0.3, 0.9]]),
        active_target=1,
        target_tolerance_m=0.1,
        curve_m=np.array([[-0.2, -1.0, 0.5], [-0.2, 1.0, 0.5], [-3.0, 0.0, 2.0]]),
        tip_force_n=np.array([-5.0, 0.0, 0.0]),
    )

    image = render_rgb(scene, _profile("plumb_bob"), _looking_along_x())

    assert not _any_of(image, _ARM_COLORS + _OVERLAY_COLORS)
    assert _mask(image, GRID_COLOR).any()  # the floor ahead is still drawn


@pytest.mark.parametrize(("eye_y", "front_link"), [(-3.0, 2), (3.0, 0)])
def test_nearer_link_covers_the_farther_one(eye_y: float, front_link: int) -> None:
    # Link 0 lies across the view at y = 0.5, link 2 upright at y = -0.5; both
    # pass through (0, *, 0.5), so they cross at the image centre.
    joints = np.array(
        [[-0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.0, -0.5, 1.0], [0.0, -0.5, 0.0]]
    )
    scene = ArmScene(joints_m=joints, link_radius_m=0.03)
    profile, pose = _profile(), look_at((0.0, eye_y, 0.5), (0.0, 0.0, 0.5))
    u, v = _pixel([[0.0, 0.0, 0.5]], profile, pose)[0]

    image = render_rgb(scene, profile, pose)

    assert tuple(image[round(v), round(u)]) == LINK_COLORS[front_link]


@pytest.mark.parametrize("depth_m", [1.0, 2.0, 4.0])
def test_link_width_follows_perspective(depth_m: float) -> None:
    radius_m = 0.03
    scene = ArmScene(
        joints_m=np.array([[-0.4, 0.0, 0.5], [0.4, 0.0, 0.5]]), link_radius_m=radius_m
    )
    profile, pose = _profile(), look_at((0.0, -depth_m, 0.5), (0.0, 0.0, 0.5))

    link = _mask(render_rgb(scene, profile, pose), LINK_COLORS[0])

    column = round(_pixel([[0.2, 0.0, 0.5]], profile, pose)[0, 0])
    expected_px = 2 * radius_m * profile.fy / depth_m
    assert abs(int(link[:, column].sum()) - expected_px) <= 1.5


def test_active_target_is_filled_others_hollow_with_tolerance_rings() -> None:
    tolerance_m = 0.15
    targets_m = np.array([[-0.3, 0.0, 0.5], [0.4, 0.0, 0.5]])
    scene = ArmScene(
        joints_m=np.array([[-0.8, 0.0, 0.1], [-0.7, 0.0, 0.1]]),
        targets_m=targets_m,
        active_target=0,
        target_tolerance_m=tolerance_m,
    )
    profile, pose = _profile(), look_at((0.0, -2.0, 0.5), (0.0, 0.0, 0.5))
    centres = _pixel(targets_m, profile, pose)
    ring_px = tolerance_m * profile.fx / 2.0

    image = render_rgb(scene, profile, pose)

    active, other = (np.round(centre).astype(int) for centre in centres)
    assert tuple(image[active[1], active[0]]) == ACTIVE_TARGET_COLOR
    outline = _mask(image, TARGET_COLOR)
    assert not outline[other[1], other[0]]  # hollow ...
    assert outline[other[1] - 6 : other[1] + 7, other[0] - 6 : other[0] + 7].any()
    for u, v in centres:  # ... and both have a tolerance ring
        right = round(u + ring_px)
        assert outline[round(v) - 1 : round(v) + 2, right - 1 : right + 2].any()


def test_every_overlay_kind_appears_in_a_full_scene() -> None:
    image = render_rgb(_full_scene(), _profile(), look_at(_EYES[0], _LOOK_AT))

    for color in [*_ARM_COLORS, *_OVERLAY_COLORS, GRID_COLOR]:
        assert _mask(image, color).any(), color


@pytest.mark.parametrize(("width", "height"), [(320, 240), (640, 480), (97, 55)])
def test_output_is_height_by_width_rgb_uint8(width: int, height: int) -> None:
    profile = _profile(width=width, height=height)

    image = render_rgb(_full_scene(), profile, look_at(_EYES[2], _LOOK_AT))

    assert image.shape == (height, width, 3)
    assert image.dtype == np.uint8


def test_identical_inputs_render_identical_pixels() -> None:
    profile, pose = _profile("plumb_bob"), look_at(_EYES[1], _LOOK_AT)

    first = render_rgb(_full_scene(), profile, pose)
    second = render_rgb(_full_scene(), profile, pose)

    np.testing.assert_array_equal(first, second)


def test_render_is_identical_in_a_fresh_process() -> None:
    result = subprocess.run(
        [sys.executable, str(Path(__file__))],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert result.stdout.strip() == _render_hash()


@pytest.mark.parametrize(
    "changes",
    [
        {"joints_m": np.zeros((1, 3))},
        {"joints_m": np.zeros((3, 2))},
        {"coms_m": np.zeros((3, 3))},
        {"targets_m": np.zeros((2, 3)), "active_target": 2},
        {"link_radius_m": 0.0},
        {"tip_force_n": np.zeros(2)},
    ],
)
def test_scene_rejects_malformed_geometry(changes: dict[str, Any]) -> None:
    arguments: dict[str, Any] = {"joints_m": np.zeros((3, 3)), **changes}

    with pytest.raises(ValueError, match=r"must|needs|not in"):
        ArmScene(**arguments)


if __name__ == "__main__":
    sys.stdout.write(_render_hash() + "\n")
