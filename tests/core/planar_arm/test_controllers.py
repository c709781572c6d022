"""Tests for the planar arm's chunk-driven controllers and chunk planning."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fsr_core.arrays import FloatArray
from fsr_core.control import (
    AuthoredChunk,
    ChunkResult,
    ChunkStatus,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
    validate_authored_chunks,
)
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.controllers import (
    CONTROLLER_KINDS,
    ComputedTorqueController,
    Controller,
    InverseDynamicsFeedforward,
    PDController,
    ReachingController,
    TorqueController,
    controller_from_json,
)
from fsr_core.simulators.planar_arm.dynamics import gravity_torques
from fsr_core.simulators.planar_arm.integrator import step
from fsr_core.simulators.planar_arm.kinematics import tip_position
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState, Link
from fsr_core.simulators.planar_arm.planning import plan_chunks
from fsr_core.simulators.planar_arm.tasks import (
    MultiTargetTask,
    PeriodicCurveTask,
    ReachTask,
    ReferenceTrajectoryTask,
    Task,
)

ARM = ArmModel(
    (Link.uniform_rod(0.5, 1.0), Link.uniform_rod(0.4, 0.8)),
    friction_nms_per_rad=0.05,
)
Q0 = (-0.3, 0.4)
DT_S = 0.002
REACH = ReachTask((0.5, 0.4), tolerance_m=0.01)
UNITS = {"joint_position": "rad", "joint_velocity": "rad/s", "joint_torque": "N*m"}


def chunk(
    values: Sequence[Sequence[float]],
    times_s: Sequence[float] | None = None,
    **changes: Any,
) -> AuthoredChunk:
    """Make a chunk for ARM (joint positions, linear, hold unless changed)."""
    space = CommandSpace(changes.pop("command_space", "joint_position"))
    fields: dict[str, Any] = {
        "chunk_id": "c-0",
        "target": "arm",
        "command_space": space,
        "axes": ("q0", "q1"),
        "units": (UNITS[space.value],) * 2,
        "interpolation": Interpolation.LINEAR,
        "terminal_policy": TerminalPolicy.HOLD,
        "start_sim_time_s": 0.0,
        "times_s": list(times_s) if times_s is not None else [0.0],
        "values": [list(row) for row in values],
        "controller": "pd",
        "generation": 0,
    }
    fields.update(changes)
    return AuthoredChunk(**fields)


def references_at(
    controller: Controller, move: AuthoredChunk, at_s: float
) -> tuple[FloatArray, FloatArray, str | None]:
    """Reset ``controller`` at rest at Q0 and submit ``move``.

    Returns the reference posture and velocity it follows at ``at_s`` (both
    must be there), and the chunk they come from.
    """
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(move)
    output = controller.torque(at_s, ArmState(np.array(Q0)))
    assert output.q_ref is not None
    assert output.dq_ref is not None
    return output.q_ref, output.dq_ref, output.chunk_id


@dataclass
class Run:
    """What a simulated run produced."""

    q: FloatArray
    tau: FloatArray
    errors: FloatArray
    final: ArmState
    results: list[ChunkResult]


def simulate(
    controller: Controller,
    chunks: Sequence[AuthoredChunk],
    duration_s: float,
    q0: Sequence[float] = Q0,
) -> Run:
    """Run ``controller`` on ARM with the real integrator, chunks submitted on time."""
    state = ArmState(np.array(q0, dtype=np.float64))
    controller.reset(ARM, state)
    pending = list(chunks)
    qs, taus, errors = [], [], []
    for tick in range(round(duration_s / DT_S)):
        t_s = tick * DT_S
        while pending and pending[0].start_sim_time_s <= t_s + 1e-12:
            controller.submit(pending.pop(0))
        output = controller.torque(t_s, state)
        qs.append(state.q.copy())
        taus.append(output.tau)
        errors.append(np.zeros(2) if output.error is None else output.error)
        step(ARM, state, output.tau, DT_S)
    return Run(
        np.array(qs),
        np.array(taus),
        np.array(errors),
        state,
        controller.chunk_results(),
    )


def planned(task: Task, kind: str, duration_s: float) -> list[AuthoredChunk]:
    return plan_chunks(task, ARM, Q0, kind, duration_s=duration_s, dt_s=DT_S)


def tip_error(state: ArmState, target: npt.ArrayLike) -> float:
    return float(np.linalg.norm(tip_position(ARM, state.q) - np.asarray(target)))


# ---------------------------------------------------------------------------
# Tracking with the real integrator
# ---------------------------------------------------------------------------


def test_computed_torque_tracks_a_reach_to_1e_3_rad_after_2_s() -> None:
    controller = ComputedTorqueController(kp=100.0, kd=20.0)

    run = simulate(controller, planned(REACH, "computed_torque", 3.0), 3.0)

    after_2_s = run.errors[round(2.0 / DT_S) :]
    assert np.abs(after_2_s).max() < 1e-3
    assert np.abs(run.errors).max() < 0.01  # tracks during the move too
    assert tip_error(run.final, REACH.target_xy) < 1e-4


def test_pd_with_gravity_compensation_settles_on_the_target() -> None:
    controller = PDController(kp=40.0, kd=4.0, gravity_compensation=True)

    run = simulate(controller, planned(REACH, "pd", 3.0), 3.0)

    assert tip_error(run.final, REACH.target_xy) < REACH.tolerance_m
    assert np.abs(run.errors[-1]).max() < 1e-4
    assert np.abs(run.final.dq).max() < 1e-3


def test_pd_without_gravity_compensation_sags_below_the_target() -> None:
    controller = PDController(kp=40.0, kd=4.0, gravity_compensation=False)

    run = simulate(controller, planned(REACH, "pd", 3.0), 3.0)

    assert tip_error(run.final, REACH.target_xy) > REACH.tolerance_m
    assert tip_position(ARM, run.final.q)[1] < REACH.target_xy[1]


def test_inverse_dynamics_feedforward_tracks_a_lemniscate() -> None:
    task = PeriodicCurveTask("lemniscate", (0.45, 0.2), (0.2, 0.2), 2.0)
    controller = InverseDynamicsFeedforward(kp=40.0, kd=4.0)
    chunks = planned(task, "inverse_dynamics_feedforward", 3.0)

    run = simulate(controller, chunks, 3.0)

    tips = [tip_position(ARM, q) for q in run.q[round(1.5 / DT_S) :]]
    references = [task.point(t_s) for t_s in np.arange(750, 1500) * DT_S]
    assert np.abs(np.array(tips) - np.array(references)).max() < 5e-3


def test_reaching_controller_brings_the_tip_within_1_cm() -> None:
    controller = ReachingController(
        stiffness_npm=200.0, damping_nspm=20.0, joint_damping_nms_per_rad=0.2
    )
    state = ArmState(np.array(Q0))
    controller.reset(ARM, state)
    chunks = planned(REACH, "reaching", 3.0)

    run = simulate(controller, chunks, 3.0)
    output = controller.torque(3.0, run.final)

    assert tip_error(run.final, REACH.target_xy) < 0.01
    assert output.endpoint_ref is not None
    assert output.q_ref is not None
    np.testing.assert_allclose(output.endpoint_ref, REACH.target_xy, atol=1e-6)
    np.testing.assert_allclose(output.endpoint_ref, tip_position(ARM, output.q_ref))


def test_torque_controller_applies_chunk_values_and_zero_before_them() -> None:
    controller = TorqueController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(
        chunk(
            [[1.0, -1.0], [3.0, 1.0]],
            [0.0, 1.0],
            command_space="joint_torque",
            start_sim_time_s=0.5,
        )
    )
    state = ArmState(np.array(Q0))

    before = controller.torque(0.25, state)
    middle = controller.torque(1.0, state)

    np.testing.assert_array_equal(before.tau, [0.0, 0.0])
    assert before.chunk_id is None
    np.testing.assert_allclose(middle.tau, [2.0, 0.0])
    assert middle.chunk_id == "c-0"
    assert middle.q_ref is None
    assert middle.error is None


def test_tracking_controllers_hold_the_reset_posture_before_any_chunk() -> None:
    late = chunk([[0.2, 0.9]], start_sim_time_s=1.0)
    for controller in (
        PDController(),
        ComputedTorqueController(),
        InverseDynamicsFeedforward(),
        ReachingController(),
    ):
        state = ArmState(np.array(Q0))
        controller.reset(ARM, state)
        controller.submit(late)

        output = controller.torque(0.5, state)
        run = simulate(controller, [late], 0.9)

        assert output.chunk_id is None
        assert output.q_ref is not None
        np.testing.assert_array_equal(output.q_ref, Q0)
        np.testing.assert_allclose(run.final.q, Q0, atol=1e-9)


# ---------------------------------------------------------------------------
# References from chunks
# ---------------------------------------------------------------------------


def test_linear_position_chunk_gives_its_slope_as_reference_velocity() -> None:
    move = chunk([[0.0, 0.0], [1.0, -0.5]], [0.0, 2.0])

    q_ref, dq_ref, _ = references_at(PDController(), move, 0.5)

    np.testing.assert_allclose(q_ref, [0.25, -0.125])
    np.testing.assert_allclose(dq_ref, [0.5, -0.25])


def test_zero_order_hold_chunk_holds_each_point_with_zero_velocity() -> None:
    steps = chunk(
        [[0.0, 0.0], [1.0, -0.5]],
        [0.0, 2.0],
        interpolation=Interpolation.ZERO_ORDER_HOLD,
    )

    q_ref, dq_ref, _ = references_at(ComputedTorqueController(), steps, 1.5)

    np.testing.assert_array_equal(q_ref, [0.0, 0.0])
    np.testing.assert_array_equal(dq_ref, [0.0, 0.0])


def test_velocity_chunk_integrates_from_the_reference_at_its_start() -> None:
    ramp = chunk(
        [[0.5, 0.0], [0.5, -1.0]],
        [0.0, 1.0],
        command_space="joint_velocity",
        start_sim_time_s=0.5,
    )

    q_ref, dq_ref, _ = references_at(PDController(), ramp, 1.5)

    # q1: integral of a ramp 0 -> -1 over 1 s is -0.5.
    np.testing.assert_allclose(q_ref, [-0.3 + 0.5, 0.4 - 0.5])
    np.testing.assert_allclose(dq_ref, [0.5, -1.0])


def test_pd_velocity_chunk_moves_the_arm_at_the_commanded_rate() -> None:
    move = chunk(
        [[0.4, -0.2], [0.4, -0.2]],
        [0.0, 1.0],
        command_space="joint_velocity",
        terminal_policy=TerminalPolicy.ZERO,
    )

    run = simulate(PDController(kp=40.0, kd=4.0), [move], 3.0)

    np.testing.assert_allclose(run.final.q, [-0.3 + 0.4, 0.4 - 0.2], atol=1e-3)


# ---------------------------------------------------------------------------
# Terminal policies
# ---------------------------------------------------------------------------


POSITIONS = ("joint_position", [[0.2, 0.3], [1.0, -0.5]])
VELOCITIES = ("joint_velocity", [[1.0, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize(
    ("chunk_points", "policy", "q_ref", "dq_ref", "chunk_id"),
    [
        (POSITIONS, TerminalPolicy.HOLD, [1.0, -0.5], [0.0, 0.0], "c-0"),
        (POSITIONS, TerminalPolicy.ZERO, [0.0, 0.0], [0.0, 0.0], "c-0"),
        (POSITIONS, TerminalPolicy.CONTROLLER_DEFAULT, [1.0, -0.5], [0.0, 0.0], None),
        (VELOCITIES, TerminalPolicy.HOLD, [-0.3 + 1.5, 0.4], [1.0, 0.0], "c-0"),
        (VELOCITIES, TerminalPolicy.ZERO, [-0.3 + 1.0, 0.4], [0.0, 0.0], "c-0"),
        (
            VELOCITIES,
            TerminalPolicy.CONTROLLER_DEFAULT,
            [-0.3 + 1.0, 0.4],
            [0.0, 0.0],
            None,
        ),
    ],
)
def test_position_and_velocity_chunk_terminal_policy(
    chunk_points: tuple[str, list[list[float]]],
    policy: TerminalPolicy,
    q_ref: list[float],
    dq_ref: list[float],
    chunk_id: str | None,
) -> None:
    """A chunk through its points at 0 s and 1 s, its PD reference at 1.5 s."""
    space, values = chunk_points
    move = chunk(values, [0.0, 1.0], command_space=space, terminal_policy=policy)

    q_now, dq_now, running = references_at(PDController(), move, 1.5)

    np.testing.assert_array_equal(q_now, q_ref)
    np.testing.assert_array_equal(dq_now, dq_ref)
    assert running == chunk_id


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (TerminalPolicy.HOLD, "last"),
        (TerminalPolicy.ZERO, "zeros"),
        (TerminalPolicy.CONTROLLER_DEFAULT, "gravity"),
    ],
)
def test_torque_chunk_terminal_policy(policy: TerminalPolicy, expected: str) -> None:
    controller = TorqueController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(
        chunk(
            [[1.0, 2.0], [3.0, 4.0]],
            [0.0, 1.0],
            command_space="joint_torque",
            terminal_policy=policy,
        )
    )
    state = ArmState(np.array([0.7, -0.2]))

    output = controller.torque(2.0, state)

    wanted = {
        "last": np.array([3.0, 4.0]),
        "zeros": np.zeros(2),
        "gravity": -gravity_torques(ARM, state.q),
    }[expected]
    np.testing.assert_allclose(output.tau, wanted)


def test_controller_default_torque_holds_the_arm_still() -> None:
    # A one-point torque chunk that holds the arm, then hands over to
    # gravity compensation.
    brief = chunk(
        [list(-gravity_torques(ARM, Q0))],
        command_space="joint_torque",
        terminal_policy=TerminalPolicy.CONTROLLER_DEFAULT,
    )

    run = simulate(TorqueController(), [brief], 1.0)

    np.testing.assert_allclose(run.final.q, Q0, atol=1e-6)


# ---------------------------------------------------------------------------
# Chunk results
# ---------------------------------------------------------------------------


def test_chunk_succeeds_once_its_last_point_has_passed() -> None:
    controller = PDController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(chunk([[0.0, 0.0], [0.1, 0.1]], [0.0, 1.0]))
    state = ArmState(np.array(Q0))

    controller.torque(0.9, state)
    before = controller.chunk_results()
    controller.torque(1.0, state)

    assert before == []
    assert controller.chunk_results() == [
        ChunkResult("c-0", ChunkStatus.SUCCEEDED, "CHUNK_COMPLETED")
    ]


def test_later_starting_chunk_preempts_the_running_one() -> None:
    first = chunk([[0.0, 0.0], [0.5, 0.5]], [0.0, 2.0], chunk_id="first")
    second = chunk(
        [[0.2, 0.2], [0.1, 0.1]], [0.0, 0.5], chunk_id="second", start_sim_time_s=1.0
    )
    third = chunk([[0.0, 0.0]], chunk_id="third", start_sim_time_s=1.5)

    run = simulate(PDController(), [first, second, third], 2.0)

    assert run.results == [
        ChunkResult("first", ChunkStatus.CANCELLED, "CHUNK_PREEMPTED"),
        ChunkResult("second", ChunkStatus.SUCCEEDED, "CHUNK_COMPLETED"),
        ChunkResult("third", ChunkStatus.SUCCEEDED, "CHUNK_COMPLETED"),
    ]


def test_preempting_chunk_takes_over_at_its_start() -> None:
    controller = PDController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(chunk([[0.0, 0.0], [0.5, 0.5]], [0.0, 2.0], chunk_id="a"))
    controller.submit(chunk([[0.9, 0.9]], chunk_id="b", start_sim_time_s=1.0))
    state = ArmState(np.array(Q0))

    early, late = controller.torque(0.999, state), controller.torque(1.0, state)

    assert (early.chunk_id, late.chunk_id) == ("a", "b")
    assert late.q_ref is not None
    np.testing.assert_array_equal(late.q_ref, [0.9, 0.9])


def test_multi_target_plan_reports_preempted_and_completed_moves() -> None:
    task = MultiTargetTask(((0.5, 0.4), (0.3, -0.5), (-0.2, 0.6)), ((1.0, 1), (2.5, 2)))
    chunks = planned(task, "computed_torque", 4.5)

    run = simulate(ComputedTorqueController(kp=100.0, kd=20.0), chunks, 4.5)

    assert [c.chunk_id for c in chunks] == ["target-0", "target-1", "target-2"]
    assert [c.start_sim_time_s for c in chunks] == [0.0, 1.0, 2.5]
    assert [(r.chunk_id, r.reason_code) for r in run.results] == [
        ("target-0", "CHUNK_PREEMPTED"),
        ("target-1", "CHUNK_COMPLETED"),
        ("target-2", "CHUNK_COMPLETED"),
    ]
    assert tip_error(run.final, (-0.2, 0.6)) < 1e-4


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("controller", "bad", "pointer"),
    [
        (PDController(), {"axes": ("q1", "q0")}, "/axes"),
        (PDController(), {"axes": ("shoulder", "elbow")}, "/axes"),
        (
            PDController(),
            {"axes": ("q0",), "units": ("rad",), "values": [[0.0]]},
            "/axes",
        ),
        (PDController(), {"units": ("rad", "m")}, "/units/1"),
        (PDController(), {"command_space": "joint_torque"}, "/command_space"),
        (TorqueController(), {"command_space": "joint_position"}, "/command_space"),
        (ReachingController(), {"command_space": "joint_velocity"}, "/command_space"),
        (ComputedTorqueController(), {"command_space": "joint_torque"}, "/command"),
    ],
)
def test_submit_rejects_a_chunk_that_does_not_fit(
    controller: Controller, bad: dict[str, Any], pointer: str
) -> None:
    controller.reset(ARM, ArmState(np.array(Q0)))
    values = bad.pop("values", [[0.0, 0.0]])

    with pytest.raises(SchemaError, match=f"^{pointer}"):
        controller.submit(chunk(values, **bad))


def test_submit_rejects_duplicate_ids_and_chunks_starting_earlier() -> None:
    controller = PDController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    controller.submit(chunk([[0.0, 0.0]], start_sim_time_s=1.0))

    with pytest.raises(SchemaError, match="duplicate chunk ID"):
        controller.submit(chunk([[0.0, 0.0]], start_sim_time_s=2.0))
    with pytest.raises(SchemaError, match="before the previous"):
        controller.submit(chunk([[0.0, 0.0]], chunk_id="c-1", start_sim_time_s=0.5))


def test_submit_before_reset_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        PDController().submit(chunk([[0.0, 0.0]]))


def test_reset_forgets_chunks_and_results() -> None:
    controller = PDController()
    simulate(controller, [chunk([[0.0, 0.0]])], 0.1)

    controller.reset(ARM, ArmState(np.array(Q0)))
    output = controller.torque(1.0, ArmState(np.array(Q0)))

    assert controller.chunk_results() == []
    assert output.chunk_id is None


# ---------------------------------------------------------------------------
# Determinism and JSON
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", CONTROLLER_KINDS)
def test_two_runs_are_bit_identical(kind: str) -> None:
    task = PeriodicCurveTask("circle", (0.4, 0.1), (0.15, 0.15), 1.0)
    chunks = planned(task, kind, 1.0)

    first = simulate(controller_from_json({"kind": kind}), chunks, 1.0)
    second = simulate(controller_from_json({"kind": kind}), chunks, 1.0)

    assert first.q.tobytes() == second.q.tobytes()
    assert first.tau.tobytes() == second.tau.tobytes()
    assert first.results == second.results


@pytest.mark.parametrize(
    "controller",
    [
        PDController(kp=(30.0, 20.0), kd=3.0, gravity_compensation=False),
        ComputedTorqueController(kp=80.0, kd=(15.0, 12.0)),
        InverseDynamicsFeedforward(kp=50.0, kd=5.0),
        ReachingController(
            stiffness_npm=300.0, damping_nspm=25.0, joint_damping_nms_per_rad=0.1
        ),
        TorqueController(),
    ],
    ids=lambda controller: controller.name,
)
def test_controller_json_rebuilds_the_same_controller(controller: Any) -> None:
    again = controller_from_json(controller.to_json())

    assert type(again) is type(controller)
    assert again.to_json() == controller.to_json()
    assert controller.to_json()["kind"] == controller.name


@pytest.mark.parametrize(
    "obj",
    [
        {"kind": "mpc"},
        {"kp": 1.0},
        {"kind": "pd", "ki": 1.0},
        {"kind": "pd", "kp": -1.0},
        {"kind": "pd", "kp": math.inf},
        {"kind": "pd", "kp": []},
        {"kind": "pd", "gravity_compensation": "yes"},
        {"kind": "reaching", "stiffness_npm": [1.0, 2.0]},
        {"kind": "torque", "kp": 1.0},
        [],
    ],
)
def test_invalid_controller_json_raises_schema_error(obj: Any) -> None:
    with pytest.raises(SchemaError):
        controller_from_json(obj)


def test_per_joint_gains_of_the_wrong_length_fail_at_reset() -> None:
    with pytest.raises(SchemaError, match="kp has 3 values for 2 joints"):
        PDController(kp=(1.0, 2.0, 3.0)).reset(ARM, ArmState(np.array(Q0)))


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


def test_reach_plan_is_one_minimum_jerk_move_to_the_ik_solution() -> None:
    (move,) = planned(REACH, "pd", 3.0)

    assert move.chunk_id == "reach-0"
    assert move.controller == "pd"
    assert move.command_space is CommandSpace.JOINT_POSITION
    assert move.terminal_policy is TerminalPolicy.HOLD
    assert move.interpolation is Interpolation.LINEAR
    np.testing.assert_allclose(np.diff(move.times_s), 0.02)
    assert move.duration_s == pytest.approx(1.5)
    np.testing.assert_array_equal(move.values[0], Q0)
    assert tip_error(ArmState(move.values[-1]), REACH.target_xy) < 1e-6
    speeds = np.abs(np.diff(move.values, axis=0)).max(axis=1)
    assert speeds[0] < speeds[len(speeds) // 2] > speeds[-1]  # smooth start and end


def test_curve_plan_follows_the_curve_after_the_lead_in() -> None:
    task = PeriodicCurveTask("ellipse", (0.4, 0.1), (0.2, 0.1), 2.0)

    (path,) = planned(task, "computed_torque", 4.0)

    assert path.chunk_id == "curve-0"
    np.testing.assert_allclose(np.diff(path.times_s), 0.01)
    np.testing.assert_array_equal(path.values[0], Q0)
    for time_s, q in zip(path.times_s, path.values, strict=True):
        if time_s >= 1.0:
            assert tip_error(ArmState(q), task.point(time_s)) < 1e-6
    assert np.abs(np.diff(path.values, axis=0)).max() < 0.1  # one IK branch


def test_trajectory_plan_follows_the_reference() -> None:
    task = ReferenceTrajectoryTask(
        (0.0, 1.0, 2.0), ((0.5, 0.3), (0.3, 0.5), (0.6, 0.0))
    )

    (path,) = planned(task, "pd", 3.0)

    assert path.chunk_id == "trajectory-0"
    last = path.values[-1]
    assert tip_error(ArmState(last), (0.6, 0.0)) < 1e-6


def test_long_paths_are_split_into_consecutive_chunks() -> None:
    task = PeriodicCurveTask("circle", (0.4, 0.1), (0.15, 0.15), 2.0)

    chunks = plan_chunks(task, ARM, Q0, "pd", duration_s=25.0, dt_s=0.005)

    assert [c.chunk_id for c in chunks] == ["curve-0", "curve-1", "curve-2"]
    assert all(len(c.times_s) <= 1000 for c in chunks)
    for before, after in itertools.pairwise(chunks):
        assert after.start_sim_time_s == pytest.approx(before.end_sim_time_s)
        np.testing.assert_array_equal(after.values[0], before.values[-1])
    validate_authored_chunks(chunks)
    controller = PDController()
    controller.reset(ARM, ArmState(np.array(Q0)))
    for item in chunks:
        controller.submit(item)
    controller.torque(25.0, ArmState(np.array(Q0)))
    assert [r.reason_code for r in controller.chunk_results()] == [
        "CHUNK_COMPLETED"
    ] * 3


def test_torque_plan_holds_inverse_dynamics_torques() -> None:
    (move,) = planned(REACH, "torque", 3.0)

    assert move.command_space is CommandSpace.JOINT_TORQUE
    assert move.units == ("N*m", "N*m")
    assert move.terminal_policy is TerminalPolicy.CONTROLLER_DEFAULT
    np.testing.assert_allclose(move.values[0], -gravity_torques(ARM, Q0), atol=0.05)


@pytest.mark.parametrize("kind", CONTROLLER_KINDS)
@pytest.mark.parametrize(
    "task",
    [
        REACH,
        MultiTargetTask(((0.5, 0.4), (0.3, -0.5)), ((0.7, 1),)),
        PeriodicCurveTask("lemniscate", (0.45, 0.2), (0.2, 0.2), 2.0),
        ReferenceTrajectoryTask((0.0, 1.0), ((0.5, 0.3), (0.3, 0.5))),
    ],
    ids=lambda task: task.kind,
)
def test_plans_are_valid_sequences_every_controller_accepts(
    kind: str, task: Task
) -> None:
    chunks = planned(task, kind, 2.0)
    controller = controller_from_json({"kind": kind})
    controller.reset(ARM, ArmState(np.array(Q0)))

    for item in chunks:
        controller.submit(item)

    validate_authored_chunks(chunks)
    assert all(item.controller == kind for item in chunks)
    assert [AuthoredChunk.from_json(c.to_json()) for c in chunks] == chunks
    again = planned(task, kind, 2.0)
    assert [c.to_json() for c in again] == [c.to_json() for c in chunks]


def test_plan_rejects_an_unknown_controller_kind() -> None:
    with pytest.raises(ValueError, match="unknown controller kind"):
        planned(REACH, "mpc", 1.0)
