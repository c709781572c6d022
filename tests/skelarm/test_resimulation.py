"""Re-simulating skelarm logs through skelarm itself (needs skelarm: Python >= 3.12)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from skelarm_kinds import SHARED_LOGS

from app.cli import main
from fsr_core.compare import compare_recordings
from fsr_core.errors import ReplayError, TargetExistsError
from fsr_core.logs.skelarm import load_skelarm
from fsr_core.logs.skelarm.convert import convert_log
from fsr_core.simulation.protocol import (
    CancelToken,
    ReplayingAdapter,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
)
from fsr_core.simulation.registry import get_adapter
from fsr_core.simulators.skelarm.replay import plan_for, resimulate_log
from fsr_core.simulators.skelarm.reproducibility import Reproducibility

pytestmark = pytest.mark.skelarm


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files if key != "__meta__"}


def _held(source: dict[str, np.ndarray], rerun: dict[str, np.ndarray], key: str):
    """Return the re-run's ``key`` at each recorded frame time (as held)."""
    frames = np.searchsorted(rerun["time"], source["time"], side="right") - 1
    return rerun[key][frames]


@pytest.mark.parametrize("kind", ["reach", "multi_target", "curve_rose", "track_tip"])
def test_headless_log_re_runs_bit_for_bit(
    kind: str, skelarm_logs: Path, tmp_path: Path
) -> None:
    source = skelarm_logs / f"{kind}.sklog.npz"
    assert plan_for(source).tier is Reproducibility.EXACT

    result = resimulate_log(source, tmp_path / "rerun.sklog.npz")

    assert result.outcome is ReplayOutcome.SUCCEEDED, result.message
    recorded, rerun = _arrays(source), _arrays(tmp_path / "rerun.sklog.npz")
    assert list(rerun) == list(recorded)
    for key, values in recorded.items():
        assert np.array_equal(rerun[key], values), key


def test_resimulate_command_then_compare_shows_them_equal(
    skelarm_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = skelarm_logs / "curve_ellipse.sklog.npz"
    rerun = tmp_path / "rerun.sklog.npz"
    assert main(["resimulate", str(source), "-o", str(rerun)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"{source}: exact")
    assert f"fsr-viewer compare {source} {rerun}" in said

    status = main(["compare", str(source), str(rerun)])

    assert status == 0, capsys.readouterr().out
    report = compare_recordings(load_skelarm(source), load_skelarm(rerun))
    assert report.within_tolerance
    assert report.exact


def test_real_log_from_another_machine_re_runs_to_rounding(tmp_path: Path) -> None:
    # Made on a machine whose BLAS kernels differ: the last bits may differ.
    source = SHARED_LOGS / "reach.sklog.npz"

    resimulate_log(source, tmp_path / "rerun.sklog.npz")

    recorded, rerun = _arrays(source), _arrays(tmp_path / "rerun.sklog.npz")
    assert np.array_equal(rerun["time"], recorded["time"])
    for key in ("q", "dq", "tau", "q_ref", "error"):
        np.testing.assert_allclose(rerun[key], recorded[key], rtol=0, atol=1e-9)


def test_interactive_log_re_runs_unperturbed_and_says_so_before(
    skelarm_logs: Path, tmp_path: Path
) -> None:
    source = skelarm_logs / "gui_push.sklog.npz"
    plan = plan_for(source)
    assert plan.tier is Reproducibility.UNPERTURBED
    assert "unperturbed scenario" in plan.notes[0]
    assert plan.recorded_force

    result = resimulate_log(source, tmp_path / "rerun.sklog.npz")

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.notes == plan.notes
    recorded, rerun = _arrays(source), _arrays(tmp_path / "rerun.sklog.npz")
    assert "ext_force" not in rerun  # the pushes are not replayed
    assert np.abs(_held(recorded, rerun, "q") - recorded["q"]).max() > 1e-2


def test_recorded_pushes_and_friction_replay_close_to_the_recording(
    skelarm_logs: Path, tmp_path: Path
) -> None:
    source = skelarm_logs / "gui_push.sklog.npz"

    result = resimulate_log(
        source, tmp_path / "rerun.sklog.npz", with_recorded_force=True
    )

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.notes[0].startswith("replaying the recorded inputs")
    assert result.steps == 201  # every physics step of 0.002 s over 0.4 s
    recorded, rerun = _arrays(source), _arrays(tmp_path / "rerun.sklog.npz")
    assert np.array_equal(_held(recorded, rerun, "ext_force"), recorded["ext_force"])
    assert np.array_equal(_held(recorded, rerun, "friction"), recorded["friction"])
    # The force changes within a recorded tick as the tip moves; it is held here.
    assert np.abs(_held(recorded, rerun, "q") - recorded["q"]).max() < 1e-3


def test_recorded_target_switches_replay_the_multi_target_run(tmp_path: Path) -> None:
    source = SHARED_LOGS / "multi_target_switch.sklog.npz"
    unperturbed = tmp_path / "unperturbed.sklog.npz"
    replayed = tmp_path / "replayed.sklog.npz"

    resimulate_log(source, unperturbed)
    resimulate_log(source, replayed, with_recorded_force=True)

    recorded = _arrays(source)
    switched = _arrays(replayed)
    assert np.array_equal(
        _held(recorded, switched, "active_target"), recorded["active_target"]
    )
    np.testing.assert_allclose(
        _held(recorded, switched, "q"), recorded["q"], rtol=0, atol=1e-12
    )
    assert _arrays(unperturbed)["time"][-1] == pytest.approx(2.0)  # the task's


def test_converted_fsr_re_runs_like_its_log(skelarm_logs: Path, tmp_path: Path) -> None:
    source = skelarm_logs / "track_joints.sklog.npz"
    converted = tmp_path / "track.fsr"
    convert_log(source, converted)

    resimulate_log(converted, tmp_path / "rerun.sklog.npz")

    recorded, rerun = _arrays(source), _arrays(tmp_path / "rerun.sklog.npz")
    for key, values in recorded.items():
        assert np.array_equal(rerun[key], values), key


def test_adapter_from_the_registry_resimulates_and_refuses_render(
    skelarm_logs: Path, tmp_path: Path
) -> None:
    adapter = get_adapter("skelarm")
    assert isinstance(adapter, ReplayingAdapter)
    source = skelarm_logs / "reach.sklog.npz"
    assert adapter.capabilities() == frozenset({ReplayMode.RESIMULATE})
    assert adapter.can_replay(source) is None
    reason = adapter.can_replay(skelarm_logs / "programmatic_noconfig.sklog.npz")
    assert reason is not None
    assert "no embedded configuration" in reason

    result = adapter.replay(
        source, tmp_path / "rerun.sklog.npz", ReplayOptions(ReplayMode.RESIMULATE)
    )

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.simulator == "skelarm"
    with pytest.raises(ReplayError, match="only be re-simulated"):
        adapter.replay(
            source, tmp_path / "render.sklog.npz", ReplayOptions(ReplayMode.RENDER)
        )


def test_adapter_runs_a_scenario_config_into_a_log_the_viewer_opens(
    tmp_path: Path,
) -> None:
    config = {
        "skeleton": {
            "link": [
                {"length": 0.6, "mass": 1.0, "inertia": 0.05, "com": [0.3, 0.0]},
                {"length": 0.5, "mass": 0.5, "inertia": 0.02, "com": [0.25, 0.0]},
            ]
        },
        "initial": {"q": [10.0, 20.0]},
        "task": {"type": "reaching", "target": [0.3, 0.8], "duration": 0.2},
        "simulator": {"dt": 0.01},
        "controller": {"type": "computed_torque", "kp": 100.0, "kd": 20.0},
    }

    adapter = get_adapter("skelarm")
    written = adapter.simulate(config, tmp_path / "run.sklog.npz")

    model = load_skelarm(written)
    assert len(model.channels["q"].times_s) == 21
    assert model.overlays[0].targets_xy == ((0.3, 0.8),)
    assert model.can_resimulate is None
    with pytest.raises(TargetExistsError):
        adapter.simulate(config, written)
    adapter.simulate(config, written, overwrite=True, duration=0.1)
    assert len(load_skelarm(written).channels["q"].times_s) == 11


def test_cancelled_re_run_publishes_nothing(skelarm_logs: Path, tmp_path: Path) -> None:
    cancel = CancelToken()
    cancel.cancel()
    output = tmp_path / "rerun.sklog.npz"

    result = resimulate_log(skelarm_logs / "reach.sklog.npz", output, cancel=cancel)

    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.output is None
    assert list(tmp_path.iterdir()) == []


def test_replay_command_re_simulates_a_log_through_skelarm_bit_for_bit(
    skelarm_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = skelarm_logs / "curve_ellipse.sklog.npz"
    output = tmp_path / "again.sklog.npz"

    code = main(["replay", str(source), "--mode", "resimulate", "-o", str(output)])

    assert code == 0, capsys.readouterr().err
    assert "on skelarm (REPLAY_COMPLETED" in capsys.readouterr().out
    assert main(["compare", str(source), str(output)]) == 0
    assert "EXACT" in capsys.readouterr().out
