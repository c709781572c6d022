"""Physics of the planar-arm simulator: kinematics, dynamics, integrators.

Each test checks a property users of the simulator rely on, against a result
derived independently (textbook formulas, finite differences, energies summed
link by link, a Jacobian-based mass matrix written out here).
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.dynamics import (
    bias_forces,
    forward_dynamics,
    gravity_torques,
    inverse_dynamics,
    kinetic_energy,
    mass_matrix,
    potential_energy,
)
from fsr_core.simulators.planar_arm.integrator import StepResult, rk4_step, step
from fsr_core.simulators.planar_arm.kinematics import (
    com_jacobians,
    com_positions,
    joint_positions,
    link_angles,
    plane_to_world,
    tip_jacobian,
    tip_position,
    tip_velocity,
)
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState, Link

Stepper = Callable[[ArmModel, ArmState, npt.ArrayLike, float], StepResult]
#: An arm with a configuration ``q`` and joint velocities ``dq``.
ArmCase = tuple[ArmModel, FloatArray, FloatArray]
#: An :data:`ArmCase` and one more joint-space vector (torques, accelerations).
ArmCaseAndVector = tuple[ArmModel, FloatArray, FloatArray, FloatArray]
G_MPS2 = 9.81
FAST = settings(max_examples=40, deadline=None)


def _three_link(
    friction: float = 0.0,
    gravity_mps2: tuple[float, float] = (0.0, -G_MPS2),
    base_m: tuple[float, float] = (0.0, 0.0),
    enforce_limits: bool = True,
) -> ArmModel:
    links = (
        Link.uniform_rod(0.6, 2.0),
        Link(length_m=0.5, mass_kg=1.2, inertia_kgm2=0.03, com_m=0.2),
        Link.uniform_rod(0.4, 0.7),
    )
    return ArmModel(
        links=links,
        base_m=base_m,
        gravity_mps2=gravity_mps2,
        friction_nms_per_rad=friction,
        enforce_limits=enforce_limits,
    )


@st.composite
def arms(draw: st.DrawFn, max_links: int = 5) -> ArmModel:
    """Draw a random, well-conditioned arm of 1 to ``max_links`` links."""
    count = draw(st.integers(1, max_links))
    unit = st.floats(0.0, 1.0)
    links = []
    for _ in range(count):
        length = draw(st.floats(0.1, 2.0))
        links.append(
            Link(
                length_m=length,
                mass_kg=draw(st.floats(0.1, 5.0)),
                inertia_kgm2=draw(st.floats(1e-3, 1.0)),
                com_m=length * draw(unit),
            )
        )
    return ArmModel(
        links=tuple(links),
        base_m=(draw(st.floats(-1.0, 1.0)), draw(st.floats(-1.0, 1.0))),
        gravity_mps2=(draw(st.floats(-15.0, 15.0)), draw(st.floats(-15.0, 15.0))),
        friction_nms_per_rad=draw(st.floats(0.0, 2.0)),
    )


def vectors(size: int, bound: float) -> st.SearchStrategy[FloatArray]:
    """Return a strategy for float64 vectors of ``size`` entries in ``±bound``."""
    values = st.lists(st.floats(-bound, bound), min_size=size, max_size=size)
    return values.map(lambda items: np.array(items, dtype=np.float64))


@st.composite
def arm_states(draw: st.DrawFn) -> ArmCase:
    """Draw an arm with a random configuration and joint velocities."""
    model = draw(arms())
    return model, draw(vectors(model.dof, math.pi)), draw(vectors(model.dof, 5.0))


@st.composite
def arm_states_and_vectors(draw: st.DrawFn, bound: float) -> ArmCaseAndVector:
    """Draw an arm state and a joint-space vector with entries in ``±bound``."""
    model, q, dq = draw(arm_states())
    return model, q, dq, draw(vectors(model.dof, bound))


TIP_FORCES = st.none() | st.tuples(st.floats(-10, 10), st.floats(-10, 10))


def _energy(model: ArmModel, state: ArmState) -> float:
    return kinetic_energy(model, state.q, state.dq) + potential_energy(model, state.q)


# --------------------------------------------------------------------------
# Kinematics
# --------------------------------------------------------------------------


def test_straight_arm_reaches_along_x_and_embeds_in_world_xz() -> None:
    model = _three_link(base_m=(0.5, 1.0))
    q = np.zeros(3)

    joints = joint_positions(model, q)

    np.testing.assert_array_equal(joints[:, 1], 1.0)
    np.testing.assert_allclose(joints[:, 0], [0.5, 1.1, 1.6, 2.0])
    np.testing.assert_array_equal(tip_position(model, q), joints[-1])
    np.testing.assert_allclose(com_positions(model, q)[:, 0], [0.8, 1.3, 1.8])
    np.testing.assert_array_equal(plane_to_world(joints)[:, 1], 0.0)
    np.testing.assert_array_equal(plane_to_world([2.0, 3.0]), [2.0, 0.0, 3.0])


def test_link_angles_are_cumulative_joint_angles() -> None:
    np.testing.assert_allclose(link_angles([0.5, -0.25, 1.0]), [0.5, 0.25, 1.25])


def test_plane_to_world_rejects_points_that_are_not_2d() -> None:
    with pytest.raises(SchemaError, match="shape"):
        plane_to_world([1.0, 2.0, 3.0])


def test_wrong_joint_count_raises_schema_error() -> None:
    with pytest.raises(SchemaError, match=r"q must have shape \(3,\)"):
        tip_position(_three_link(), [0.0, 0.0])


@FAST
@given(arm_states())
def test_jacobians_equal_central_finite_differences_of_fk(case: ArmCase) -> None:
    model, q, dq = case
    step_rad = 1e-6
    fd_tip = np.empty((2, model.dof))
    fd_com = np.empty((model.dof, 2, model.dof))
    for j in range(model.dof):
        delta = np.zeros(model.dof)
        delta[j] = step_rad
        fd_tip[:, j] = (
            tip_position(model, q + delta) - tip_position(model, q - delta)
        ) / (2 * step_rad)
        fd_com[:, :, j] = (
            com_positions(model, q + delta) - com_positions(model, q - delta)
        ) / (2 * step_rad)

    np.testing.assert_allclose(tip_jacobian(model, q), fd_tip, rtol=0, atol=1e-7)
    np.testing.assert_allclose(com_jacobians(model, q), fd_com, rtol=0, atol=1e-7)
    np.testing.assert_allclose(
        tip_velocity(model, q, dq), tip_jacobian(model, q) @ dq, rtol=0, atol=1e-12
    )


# --------------------------------------------------------------------------
# Dynamics
# --------------------------------------------------------------------------


def test_one_link_rod_mass_is_com_inertia_plus_m_c_squared() -> None:
    rod = Link.uniform_rod(0.8, 1.5)
    model = ArmModel(links=(rod,))

    matrix = mass_matrix(model, [0.7])

    expected = rod.inertia_kgm2 + rod.mass_kg * rod.com_m**2  # = m L^2 / 3
    np.testing.assert_allclose(matrix, [[expected]], rtol=1e-15)
    np.testing.assert_allclose(expected, 1.5 * 0.8**2 / 3.0, rtol=1e-15)


def _jacobian_mass_matrix(model: ArmModel, q: FloatArray) -> FloatArray:
    """Return sum_i m_i J_ci^T J_ci + I_i J_wi^T J_wi, Jacobians written out here."""
    theta = np.cumsum(q)
    matrix = np.zeros((model.dof, model.dof))
    for i, link in enumerate(model.links):
        jac_c = np.zeros((2, model.dof))
        for j in range(i + 1):
            for k in range(j, i + 1):
                lever = link.com_m if k == i else model.links[k].length_m
                jac_c[:, j] += lever * np.array(
                    [-math.sin(theta[k]), math.cos(theta[k])]
                )
        jac_w = np.array([[1.0 if j <= i else 0.0 for j in range(model.dof)]])
        matrix += link.mass_kg * jac_c.T @ jac_c + link.inertia_kgm2 * jac_w.T @ jac_w
    return matrix


@FAST
@given(arm_states())
def test_mass_matrix_is_spd_and_equals_jacobian_sum(case: ArmCase) -> None:
    model, q, _ = case

    matrix = mass_matrix(model, q)

    np.testing.assert_array_equal(matrix, matrix.T)
    assert np.linalg.eigvalsh(matrix).min() > 0.0
    np.testing.assert_allclose(
        matrix, _jacobian_mass_matrix(model, q), rtol=1e-12, atol=1e-12
    )


@FAST
@given(arm_states())
def test_kinetic_energy_is_half_dq_m_dq(case: ArmCase) -> None:
    model, q, dq = case

    energy = kinetic_energy(model, q, dq)

    np.testing.assert_allclose(
        energy, 0.5 * dq @ mass_matrix(model, q) @ dq, rtol=1e-12, atol=1e-12
    )


@FAST
@given(arm_states_and_vectors(20.0), TIP_FORCES)
def test_inverse_dynamics_inverts_forward_dynamics(
    case: ArmCaseAndVector, tip_force: tuple[float, float] | None
) -> None:
    model, q, dq, tau = case

    qdd = forward_dynamics(model, q, dq, tau, tip_force)
    again = inverse_dynamics(model, q, dq, qdd, tip_force)

    scale = 1.0 + np.abs(tau).max() + np.abs(bias_forces(model, q, dq)).max()
    np.testing.assert_allclose(again, tau, rtol=0, atol=1e-9 * scale)


@FAST
@given(arm_states_and_vectors(10.0))
def test_inverse_dynamics_equals_m_qdd_plus_bias_plus_friction(
    case: ArmCaseAndVector,
) -> None:
    model, q, dq, qdd = case

    tau = inverse_dynamics(model, q, dq, qdd)

    expected = (
        mass_matrix(model, q) @ qdd
        + bias_forces(model, q, dq)
        + model.friction_nms_per_rad * dq
    )
    np.testing.assert_allclose(tau, expected, rtol=1e-10, atol=1e-9)


@FAST
@given(arm_states())
def test_bias_at_rest_balances_gravity_torques(case: ArmCase) -> None:
    model, q, _ = case

    np.testing.assert_allclose(
        bias_forces(model, q, np.zeros(model.dof)),
        -gravity_torques(model, q),
        rtol=1e-12,
        atol=1e-10,
    )


def test_gravity_torque_of_horizontal_rod_is_minus_m_g_c() -> None:
    rod = Link.uniform_rod(1.2, 2.5)
    model = ArmModel(links=(rod,))  # gravity (0, -9.81)
    expected = -rod.mass_kg * G_MPS2 * rod.com_m

    torque = gravity_torques(model, [0.0])
    qdd = forward_dynamics(model, [0.0], [0.0], [0.0])

    np.testing.assert_allclose(torque, [expected], rtol=1e-15)
    np.testing.assert_allclose(
        bias_forces(model, [0.0], [0.0]), [-expected], rtol=1e-15
    )
    i_pivot = rod.inertia_kgm2 + rod.mass_kg * rod.com_m**2
    np.testing.assert_allclose(qdd, [expected / i_pivot], rtol=1e-14)


def test_upward_tip_force_turns_horizontal_rod_counter_clockwise() -> None:
    rod = Link.uniform_rod(2.0, 3.0)
    model = ArmModel(links=(rod,), gravity_mps2=(0.0, 0.0))

    qdd = forward_dynamics(model, [0.0], [0.0], [0.0], tip_force=(0.0, 1.5))

    np.testing.assert_allclose(qdd, [1.5 * 2.0 / (3.0 * 2.0**2 / 3.0)], rtol=1e-14)


@pytest.mark.parametrize("gravity", [(0.0, 0.0), (0.0, -G_MPS2)])
def test_minus_jt_f_holds_arm_still_against_tip_force(
    gravity: tuple[float, float],
) -> None:
    model = _three_link(gravity_mps2=gravity)
    q = np.array([0.4, -0.9, 1.1])
    force = np.array([3.0, -2.0])
    tau = -tip_jacobian(model, q).T @ force - gravity_torques(model, q)
    state = ArmState(q.copy())

    qdd = forward_dynamics(model, q, np.zeros(3), tau, force)
    for _ in range(100):
        step(model, state, tau, 1e-3, force)

    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    np.testing.assert_allclose(state.q, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(state.dq, 0.0, atol=1e-10)


# --------------------------------------------------------------------------
# Integration
# --------------------------------------------------------------------------


def _upward_crossings_s(signal: list[float], dt_s: float) -> list[float]:
    """Return the times where ``signal`` crosses zero upwards (interpolated)."""
    return [
        (k + signal[k] / (signal[k] - signal[k + 1])) * dt_s
        for k in range(len(signal) - 1)
        if signal[k] < 0.0 <= signal[k + 1]
    ]


@pytest.mark.parametrize(
    "stepper", [rk4_step, step], ids=["rk4", "semi_implicit_euler"]
)
def test_compound_pendulum_period_matches_small_oscillation_formula(
    stepper: Stepper,
) -> None:
    rod = Link.uniform_rod(1.0, 1.0)
    model = ArmModel(links=(rod,))
    i_pivot = rod.inertia_kgm2 + rod.mass_kg * rod.com_m**2
    expected_s = 2 * math.pi * math.sqrt(i_pivot / (rod.mass_kg * G_MPS2 * rod.com_m))
    hanging = -math.pi / 2
    state = ArmState(np.array([hanging + 0.01]))
    dt_s = 1e-3

    offsets = []
    for _ in range(int(3.2 * expected_s / dt_s)):
        stepper(model, state, [0.0], dt_s)
        offsets.append(float(state.q[0]) - hanging)
    crossings = _upward_crossings_s(offsets, dt_s)

    assert len(crossings) >= 3
    period_s = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    assert period_s == pytest.approx(expected_s, rel=5e-3)


def test_rk4_conserves_energy_without_friction_or_torque() -> None:
    model = _three_link()
    state = ArmState(np.array([0.3, 0.8, -0.5]), np.array([1.0, -1.5, 2.0]))
    start_j = _energy(model, state)
    scale_j = abs(start_j)
    assert scale_j > 1.0  # the relative bound below is meaningful

    worst = 0.0
    for k in range(10_000):  # 1 s at dt = 1e-4
        rk4_step(model, state, np.zeros(3), 1e-4)
        if k % 100 == 99:
            worst = max(worst, abs(_energy(model, state) - start_j))

    assert worst / scale_j < 1e-6


def test_semi_implicit_euler_energy_error_stays_bounded_for_a_pendulum() -> None:
    # With a constant mass matrix (one link) the velocity-form update is exactly
    # symplectic: the energy error oscillates at O(dt) and does not drift.
    model = ArmModel(links=(Link.uniform_rod(1.0, 1.0),), enforce_limits=False)
    state = ArmState(np.array([-math.pi / 2 + 1.0]))  # 1 rad from hanging
    start_j = _energy(model, state)

    errors = []
    for k in range(12_000):  # 12 s (about 7 periods) at dt = 1e-3
        step(model, state, [0.0], 1e-3)
        if k % 5 == 0:
            errors.append(abs(_energy(model, state) - start_j))

    assert max(errors) / abs(start_j) < 3e-3
    assert max(errors[-400:]) < 1.05 * max(errors[:400])  # last 2 s vs first 2 s


def test_friction_dissipates_energy_monotonically() -> None:
    model = _three_link(friction=0.5)
    state = ArmState(np.array([0.3, 0.8, -0.5]), np.array([1.0, -1.5, 2.0]))
    energies = [_energy(model, state)]

    for _ in range(2_000):  # 2 s at dt = 1e-3
        rk4_step(model, state, np.zeros(3), 1e-3)
        energies.append(_energy(model, state))

    increments = np.diff(energies)
    assert increments.max() <= 1e-9 * abs(energies[0])
    assert energies[-1] < energies[0] - 1.0


def test_step_reports_acceleration_and_friction_used() -> None:
    model = _three_link(friction=0.25)
    q, dq, tau = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.5, 1.0]), np.ones(3)
    state = ArmState(q.copy(), dq.copy())

    result = step(model, state, tau, 1e-3)

    expected_qdd = forward_dynamics(model, q, dq, tau)
    np.testing.assert_array_equal(result.qdd, expected_qdd)
    np.testing.assert_array_equal(result.friction_torque, -0.25 * dq)
    np.testing.assert_array_equal(state.dq, dq + expected_qdd * 1e-3)
    np.testing.assert_array_equal(state.q, q + state.dq * 1e-3)
    assert result.limited == ()
    assert not result.qdd.flags.writeable


def test_step_rejects_non_positive_dt() -> None:
    model = _three_link()
    with pytest.raises(SchemaError, match="dt_s"):
        step(model, ArmState(np.zeros(3)), np.zeros(3), 0.0)


def test_joint_limit_stops_joint_and_zeroes_outward_velocity() -> None:
    rod = Link.uniform_rod(1.0, 1.0, q_min_rad=-1.0, q_max_rad=0.1)
    model = ArmModel(links=(rod,), gravity_mps2=(0.0, 0.0))
    state = ArmState(np.array([0.05]), np.array([1.0]))

    results = [step(model, state, [0.0], 0.01) for _ in range(10)]

    hits = [k for k, result in enumerate(results) if result.limited]
    assert hits[0] == 5  # 0.05 + 6 * 0.01 > 0.1
    assert results[hits[0]].limited == (0,)
    assert state.q[0] == 0.1
    assert state.dq[0] == 0.0
    inward = step(model, state, [-1.0], 0.01)
    assert inward.limited == ()
    assert state.q[0] < 0.1
    assert state.dq[0] < 0.0


def test_joint_limit_reports_only_the_joint_that_hit_it() -> None:
    links = (
        Link.uniform_rod(1.0, 1.0, q_min_rad=-0.2, q_max_rad=0.2),
        Link.uniform_rod(1.0, 1.0, q_min_rad=-math.inf, q_max_rad=math.inf),
    )
    model = ArmModel(links=links)  # gravity pulls the horizontal arm down
    state = ArmState(np.zeros(2))

    results = [step(model, state, [0.0, 0.0], 1e-3) for _ in range(1000)]

    assert {result.limited for result in results} <= {(), (0,)}
    assert results[-1].limited == (0,)  # still pressed against the stop
    assert state.q[0] == -0.2
    assert state.dq[0] == 0.0
    assert state.q[1] != 0.0


def test_limits_are_ignored_when_not_enforced() -> None:
    rod = Link.uniform_rod(1.0, 1.0, q_min_rad=-1.0, q_max_rad=0.1)
    model = ArmModel(links=(rod,), gravity_mps2=(0.0, 0.0), enforce_limits=False)
    state = ArmState(np.array([0.05]), np.array([1.0]))

    results = [step(model, state, [0.0], 0.01) for _ in range(10)]

    assert all(result.limited == () for result in results)
    assert state.q[0] == pytest.approx(0.15)


# --------------------------------------------------------------------------
# Determinism
# --------------------------------------------------------------------------


def run_determinism_scenario() -> ArmState:
    """Run 1000 steps with friction, limits, varying torques and a tip force."""
    model = _three_link(friction=0.1)
    state = ArmState(np.array([0.2, -0.4, 0.9]), np.array([0.5, 0.0, -1.0]))
    for k in range(1000):
        tau = np.array([math.sin(0.01 * k), 0.5 * math.cos(0.02 * k), 0.1])
        step(model, state, tau, 1e-3, tip_force=(0.3, -0.2))
    return state


def test_runs_are_bit_identical_in_process() -> None:
    first, second = run_determinism_scenario(), run_determinism_scenario()

    np.testing.assert_array_equal(first.q, second.q)
    np.testing.assert_array_equal(first.dq, second.dq)


def test_runs_are_bit_identical_across_processes() -> None:
    here = run_determinism_scenario()
    script = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('scenario', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "state = module.run_determinism_scenario()\n"
        "print(state.q.tobytes().hex(), state.dq.tobytes().hex())\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).resolve())],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    q_hex, dq_hex = completed.stdout.split()
    assert q_hex == here.q.tobytes().hex()
    assert dq_hex == here.dq.tobytes().hex()
