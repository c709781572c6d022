"""Tests for the planar arm's tasks (JSON, references, overlays) and its IK."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsr_core.canonical_json import canonical_dumps, parse_json
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.ik import solve_ik
from fsr_core.simulators.planar_arm.kinematics import tip_position
from fsr_core.simulators.planar_arm.model import ArmModel, Link
from fsr_core.simulators.planar_arm.tasks import (
    CURVE_SAMPLES,
    MultiTargetTask,
    PeriodicCurveTask,
    ReachTask,
    ReferenceTrajectoryTask,
    Task,
    task_from_json,
)
from fsr_core.simulators.planar_arm.toml_out import dumps_toml

ARM = ArmModel((Link.uniform_rod(0.5, 1.0), Link.uniform_rod(0.4, 0.8)))
OVERLAY_KEYS = {
    "kind",
    "targets",
    "active_index",
    "switches",
    "curve_xy",
    "reference_xy",
}

TASKS: list[Task] = [
    ReachTask((0.5, 0.4), tolerance_m=0.01, label="cup"),
    MultiTargetTask(
        ((0.5, 0.4), (0.3, -0.5), (-0.2, 0.6)),
        switches=((1.0, 1), (2.5, 2), (3.0, 0)),
        tolerance_m=0.03,
        labels=("a", "b", "c"),
    ),
    PeriodicCurveTask("circle", (0.4, 0.1), (0.15, 0.15), 2.0),
    PeriodicCurveTask("ellipse", (0.4, 0.1), (0.2, 0.1), 3.0, phase_rad=0.5),
    PeriodicCurveTask("lemniscate", (0.45, 0.2), (0.2, 0.2), 4.0, phase_rad=-1.0),
    ReferenceTrajectoryTask((0.0, 0.5, 1.5), ((0.5, 0.0), (0.4, 0.3), (0.1, 0.6))),
]


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.kind)
def test_task_round_trips_through_canonical_json(task: Task) -> None:
    text = canonical_dumps(task.to_json())

    again = task_from_json(parse_json(text))

    assert again == task
    assert type(again) is type(task)


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.kind)
def test_task_round_trips_through_a_toml_scenario_table(task: Task) -> None:
    text = dumps_toml({"task": task.to_json()})

    again = task_from_json(tomllib.loads(text)["task"])

    assert again == task


def test_hand_written_tasks_take_defaults() -> None:
    reach = task_from_json({"kind": "reach", "target_xy": [1, 0]})
    multi = task_from_json({"kind": "multi_target", "targets": [[0.1, 0.2]]})
    curve = task_from_json(
        {
            "kind": "periodic_curve",
            "curve": "circle",
            "center_xy": [0, 0],
            "radius_xy": [0.1, 0.1],
            "period_s": 1,
        }
    )

    assert reach == ReachTask((1.0, 0.0), tolerance_m=0.02, label="target")
    assert multi == MultiTargetTask(((0.1, 0.2),))
    assert isinstance(curve, PeriodicCurveTask)
    assert curve.phase_rad == 0.0


@pytest.mark.parametrize(
    "obj",
    [
        {"kind": "dance"},
        {"target_xy": [0.1, 0.2]},
        {"kind": "reach"},
        {"kind": "reach", "target_xy": [0.1, 0.2], "colour": "red"},
        {"kind": "reach", "target_xy": [0.1]},
        {"kind": "reach", "target_xy": [0.1, math.nan]},
        {"kind": "reach", "target_xy": [0.1, 0.2], "tolerance_m": 0},
        {"kind": "reach", "target_xy": [0.1, 0.2], "label": ""},
        {"kind": "multi_target", "targets": []},
        {"kind": "multi_target", "targets": [[0, 0]], "switches": [[1.0, 1]]},
        {"kind": "multi_target", "targets": [[0, 0]], "switches": [[-1.0, 0]]},
        {
            "kind": "multi_target",
            "targets": [[0, 0], [1, 1]],
            "switches": [[2.0, 1], [1.0, 0]],
        },
        {"kind": "multi_target", "targets": [[0, 0]], "labels": ["a", "b"]},
        {
            "kind": "periodic_curve",
            "curve": "spiral",
            "center_xy": [0, 0],
            "radius_xy": [1, 1],
            "period_s": 1,
        },
        {
            "kind": "periodic_curve",
            "curve": "circle",
            "center_xy": [0, 0],
            "radius_xy": [0, 1],
            "period_s": 1,
        },
        {
            "kind": "periodic_curve",
            "curve": "circle",
            "center_xy": [0, 0],
            "radius_xy": [1, 1],
            "period_s": -1,
        },
        {"kind": "reference_trajectory", "times_s": [0, 0], "points_xy": [[0, 0]] * 2},
        {"kind": "reference_trajectory", "times_s": [0, 1], "points_xy": [[0, 0]]},
        {"kind": "reference_trajectory", "times_s": [], "points_xy": []},
        "reach",
    ],
)
def test_invalid_task_json_raises_schema_error(obj: Any) -> None:
    with pytest.raises(SchemaError):
        task_from_json(obj)


# ---------------------------------------------------------------------------
# Overlays
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.kind)
def test_overlay_has_the_same_keys_for_every_task_and_is_json_ready(
    task: Task,
) -> None:
    overlay = task.overlay_json(ARM)

    assert set(overlay) == OVERLAY_KEYS
    assert overlay["kind"] == task.kind
    assert parse_json(canonical_dumps(overlay)) == overlay


def test_reach_overlay_draws_one_active_target_with_its_tolerance() -> None:
    overlay = ReachTask((0.5, 0.4), tolerance_m=0.01, label="cup").overlay_json(ARM)

    assert overlay["targets"] == [
        {"label": "cup", "xy": [0.5, 0.4], "tolerance_m": 0.01}
    ]
    assert overlay["active_index"] == 0
    assert overlay["curve_xy"] == []
    assert overlay["reference_xy"] == []


def test_multi_target_overlay_lists_every_target_and_the_schedule() -> None:
    task = MultiTargetTask(((0.5, 0.4), (0.3, -0.5)), switches=((1.0, 1),))

    overlay = task.overlay_json(ARM)

    assert [target["label"] for target in overlay["targets"]] == [
        "target 1",
        "target 2",
    ]
    assert [target["xy"] for target in overlay["targets"]] == [[0.5, 0.4], [0.3, -0.5]]
    assert overlay["active_index"] == 0
    assert overlay["switches"] == [[1.0, 1]]


def test_curve_overlay_is_a_closed_polyline_of_256_points_on_the_curve() -> None:
    task = PeriodicCurveTask("ellipse", (0.4, 0.1), (0.2, 0.1), 3.0)

    curve = np.array(task.overlay_json(ARM)["curve_xy"])

    assert curve.shape == (CURVE_SAMPLES, 2)
    np.testing.assert_allclose(curve[0], curve[-1], atol=1e-12)
    radii = ((curve[:, 0] - 0.4) / 0.2) ** 2 + ((curve[:, 1] - 0.1) / 0.1) ** 2
    np.testing.assert_allclose(radii, 1.0)


def test_reference_overlay_is_the_sampled_points() -> None:
    task = ReferenceTrajectoryTask((0.0, 1.0), ((0.5, 0.0), (0.4, 0.3)))

    assert task.overlay_json(ARM)["reference_xy"] == [[0.5, 0.0], [0.4, 0.3]]


# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------


def test_multi_target_active_index_switches_at_the_scheduled_times() -> None:
    task = MultiTargetTask(
        ((0.5, 0.4), (0.3, -0.5), (-0.2, 0.6)), switches=((1.0, 1), (2.5, 2))
    )
    before_first = math.nextafter(1.0, 0.0)
    before_second = math.nextafter(2.5, 0.0)

    indices = [task.active_target(t) for t in (0.0, before_first, 1.0, before_second)]
    indices += [task.active_target(t) for t in (2.5, 100.0)]

    assert indices == [0, 0, 1, 1, 2, 2]
    np.testing.assert_array_equal(task.tip_reference(1.0), [0.3, -0.5])
    np.testing.assert_array_equal(task.tip_reference(3.0), [-0.2, 0.6])


def test_multi_target_switch_at_time_zero_replaces_the_first_target() -> None:
    task = MultiTargetTask(((0.5, 0.4), (0.3, -0.5)), switches=((0.0, 1),))

    assert task.active_target(0.0) == 1
    assert task.overlay_json(ARM)["active_index"] == 1


def test_reach_and_tracking_tasks_report_their_active_target() -> None:
    reach, curve, trajectory = TASKS[0], TASKS[2], TASKS[5]

    assert reach.active_target(3.0) == 0
    assert curve.active_target(3.0) is None
    assert trajectory.active_target(3.0) is None


@pytest.mark.parametrize("curve", ["circle", "ellipse", "lemniscate"])
def test_periodic_curve_point_is_periodic(curve: str) -> None:
    task = PeriodicCurveTask(curve, (0.4, 0.1), (0.2, 0.15), 2.5, phase_rad=0.3)

    for t_s in np.linspace(0.0, 2.5, 17):
        np.testing.assert_allclose(task.point(t_s + 2.5), task.point(t_s), atol=1e-12)
        np.testing.assert_allclose(task.point(t_s + 25.0), task.point(t_s), atol=1e-12)


@pytest.mark.parametrize("curve", ["circle", "ellipse", "lemniscate"])
def test_periodic_curve_velocity_is_the_derivative_of_point(curve: str) -> None:
    task = PeriodicCurveTask(curve, (0.4, 0.1), (0.2, 0.15), 2.5, phase_rad=0.3)
    h = 1e-6

    for t_s in np.linspace(0.0, 2.5, 23):
        numeric = (task.point(t_s + h) - task.point(t_s - h)) / (2 * h)
        np.testing.assert_allclose(task.velocity(t_s), numeric, atol=1e-7)


def test_circle_keeps_its_radius_and_ignores_ry() -> None:
    task = PeriodicCurveTask("circle", (0.4, 0.1), (0.2, 0.9), 2.0)

    points = task.polyline()

    np.testing.assert_allclose(np.hypot(points[:, 0] - 0.4, points[:, 1] - 0.1), 0.2)


def test_lemniscate_is_a_figure_eight_through_its_centre() -> None:
    task = PeriodicCurveTask("lemniscate", (0.45, 0.2), (0.2, 0.2), 4.0)
    centre = np.array([0.45, 0.2])

    points = task.polyline(1001) - centre

    # It crosses its centre at a quarter and three quarters of the period.
    np.testing.assert_allclose(task.point(1.0), centre, atol=1e-12)
    np.testing.assert_allclose(task.point(3.0), centre, atol=1e-12)
    # Spans [-rx, rx], lobes rx / (2 sqrt 2) high, symmetric about both axes.
    assert points[:, 0].max() == pytest.approx(0.2)
    assert points[:, 0].min() == pytest.approx(-0.2)
    assert np.abs(points[:, 1]).max() == pytest.approx(0.2 / (2 * math.sqrt(2)), 1e-4)
    mirrored = task.point(2.0 + 0.3) - centre  # half a period on: (-x, y)
    first = task.point(0.3) - centre
    np.testing.assert_allclose(mirrored, [-first[0], first[1]], atol=1e-12)
    # Left and right lobes: the right one is traced above then below.
    assert (points[:, 0] > 0).sum() == pytest.approx((points[:, 0] < 0).sum(), abs=2)


def test_reference_trajectory_interpolates_linearly_and_holds_its_ends() -> None:
    task = ReferenceTrajectoryTask((0.5, 1.5), ((0.5, 0.0), (0.3, 0.4)))

    np.testing.assert_allclose(task.tip_reference(0.0), [0.5, 0.0])
    np.testing.assert_allclose(task.tip_reference(1.0), [0.4, 0.2])
    np.testing.assert_allclose(task.tip_reference(9.0), [0.3, 0.4])
    np.testing.assert_allclose(task.velocity(1.0), [-0.2, 0.4])
    np.testing.assert_allclose(task.velocity(9.0), [0.0, 0.0])


def test_reference_at_a_non_finite_time_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="finite"):
        TASKS[0].tip_reference(math.nan)


# ---------------------------------------------------------------------------
# Inverse kinematics
# ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    radius=st.floats(0.12, 0.88),
    angle=st.floats(-math.pi, math.pi),
    q_start=st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0)),
)
def test_ik_reaches_reachable_targets_within_1e_6(
    radius: float, angle: float, q_start: tuple[float, float]
) -> None:
    target = np.array([radius * math.cos(angle), radius * math.sin(angle)])

    q, reached = solve_ik(ARM, target, q_start)

    assert reached
    assert np.linalg.norm(tip_position(ARM, q) - target) <= 1e-6
    low, high = ARM.limits()
    assert np.all((low <= q) & (q <= high))


def test_ik_reaches_from_a_stretched_singular_posture() -> None:
    q, reached = solve_ik(ARM, (0.3, 0.0), (0.0, 0.0))

    assert reached
    assert np.linalg.norm(tip_position(ARM, q) - [0.3, 0.0]) <= 1e-6


def test_ik_reports_a_target_beyond_reach_and_points_at_it() -> None:
    q, reached = solve_ik(ARM, (0.0, 2.0), (0.3, 0.3))

    assert not reached
    np.testing.assert_allclose(tip_position(ARM, q), [0.0, 0.9], atol=1e-4)


def test_ik_reports_a_target_inside_the_inner_hole() -> None:
    _, reached = solve_ik(ARM, (0.05, 0.0), (0.3, 0.3))

    assert not reached


def test_ik_respects_joint_limits() -> None:
    arm = ArmModel(
        (
            Link.uniform_rod(0.5, 1.0, q_min_rad=-0.5, q_max_rad=0.5),
            Link.uniform_rod(0.4, 0.8, q_min_rad=0.0, q_max_rad=1.0),
        )
    )

    q_ok, reached_ok = solve_ik(arm, tip_position(arm, [0.2, 0.7]), (0.0, 0.0))
    q_far, reached_far = solve_ik(arm, (-0.5, 0.0), (0.0, 0.5))

    assert reached_ok
    assert np.all(np.abs(q_ok - [0.2, 0.7]) < 1e-5)
    assert not reached_far
    low, high = arm.limits()
    assert np.all((low <= q_far) & (q_far <= high))


def test_ik_is_deterministic() -> None:
    first = solve_ik(ARM, (-0.2, 0.6), (-1.77, 1.75))
    second = solve_ik(ARM, (-0.2, 0.6), (-1.77, 1.75))

    assert first[1]
    assert second[1]
    assert first[0].tobytes() == second[0].tobytes()


def test_ik_rejects_malformed_arguments() -> None:
    with pytest.raises(SchemaError):
        solve_ik(ARM, (0.1, 0.2, 0.3), (0.0, 0.0))
    with pytest.raises(SchemaError):
        solve_ik(ARM, (0.1, 0.2), (0.0,))
    with pytest.raises(ValueError, match="tolerance"):
        solve_ik(ARM, (0.1, 0.2), (0.0, 0.0), tolerance_m=0.0)
