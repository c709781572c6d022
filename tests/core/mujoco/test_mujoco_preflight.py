"""A re-simulation refuses a recording whose contract the embedded model breaks.

Each bad source is a short run recorded while the recorder's idea of the
contract (or of its chunks) is edited, so the recording states something the
embedded model does not give. The replay must stop before any step with a
message naming the field, recorded against found, and the file.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulators.mujoco.scenario import MujocoScenario


def _pushing(example_scenario: Callable[..., MujocoScenario]) -> MujocoScenario:
    """Return the contact scene for 20 ms, its pusher's chunk starting at once."""
    scenario = example_scenario("contacts", duration_s=0.02, cameras=False)
    push = dataclasses.replace(scenario.control[0], start_s=0.0)
    return dataclasses.replace(scenario, control=(push,))


def _record_with(
    scenario: MujocoScenario, path: Path, patch: Callable[[pytest.MonkeyPatch], None]
) -> Path:
    pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run

    with pytest.MonkeyPatch.context() as monkeypatch:
        patch(monkeypatch)
        record_mujoco_run(scenario, path)
    return path


def _contract_edit(key: str, value: Any) -> Callable[[pytest.MonkeyPatch], None]:
    from fsr_core.simulators.mujoco.model_session import simulation_contract

    def edited(loaded: Any) -> dict[str, Any]:
        return {**simulation_contract(loaded), key: value}

    return lambda monkeypatch: monkeypatch.setattr(
        "fsr_core.simulators.mujoco.recorder.simulation_contract", edited
    )


@pytest.mark.parametrize(
    ("key", "recorded", "found"),
    [
        ("model_digest", "sha256:" + "0" * 64, "sha256:"),
        ("timestep_s", 0.001, "0.002"),
        ("integrator", "mjINT_RK4", "'mjINT_IMPLICITFAST'"),
        ("gravity_mps2", [0.0, 0.0, -1.62], "[0.0, 0.0, -9.81]"),
        ("axes", ["push", "lift"], "['push']"),
        ("command_spaces", {"push": "joint_velocity"}, "joint_position"),
    ],
)
def test_contract_mismatch_is_refused_before_any_step(
    key: str,
    recorded: Any,
    found: str,
    tmp_path: Path,
    example_scenario: Callable[..., MujocoScenario],
) -> None:
    source = _record_with(
        _pushing(example_scenario), tmp_path / "bad.fsr", _contract_edit(key, recorded)
    )
    output = tmp_path / "out.fsr"
    with pytest.raises(ReplayError) as caught:
        replay_file(source, output, ReplayOptions(ReplayMode.RESIMULATE))
    error = caught.value
    assert error.reason.startswith(
        f"simulation contract differs in {key}: recorded {recorded!r}, "
        "the embedded model gives "
    )
    assert found in error.reason
    assert error.path == str(source)
    assert error.section == "preflight"
    assert not output.exists()


def test_chunk_in_another_unit_than_its_actuator_is_refused(
    tmp_path: Path, example_scenario: Callable[..., MujocoScenario]
) -> None:
    from fsr_core.simulators.mujoco.control import authored_chunks

    def in_radians(*args: Any) -> Any:
        return [dataclasses.replace(c, units=("rad",)) for c in authored_chunks(*args)]

    source = _record_with(
        _pushing(example_scenario),
        tmp_path / "rad.fsr",
        lambda monkeypatch: monkeypatch.setattr(
            "fsr_core.simulators.mujoco.recorder.authored_chunks", in_radians
        ),
    )
    with pytest.raises(ReplayError) as caught:
        replay_file(source, tmp_path / "out.fsr", ReplayOptions(ReplayMode.RESIMULATE))
    assert caught.value.reason == (
        "chunk 'chunk-000' commands 'push' as joint_position in rad, the actuator "
        "takes joint_position in m"
    )
    assert caught.value.path == str(source)


def _without_mujoco(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "mujoco" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_missing_mujoco_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from fsr_core.simulation.registry import get_adapter
    from fsr_core.simulators.mujoco.runtime import import_mujoco, unavailable_reason

    _without_mujoco(monkeypatch)
    reason = unavailable_reason()
    assert reason is not None
    assert "pip install 'fsr-viewer[mujoco]'" in reason
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[mujoco\]"):
        get_adapter("mujoco")
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[mujoco\]"):
        import_mujoco()


def test_replaying_without_mujoco_names_the_extra(
    reach_recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_mujoco(monkeypatch)
    output = tmp_path / "out.fsr"
    with pytest.raises(AdapterUnavailableError) as caught:
        replay_file(reach_recording, output, ReplayOptions(ReplayMode.RENDER))
    assert (
        "simulator 'mujoco' is unavailable: the MuJoCo Python package is not "
        "installed (pip install 'fsr-viewer[mujoco]')"
    ) in str(caught.value)
    assert not output.exists()


def test_recording_without_mujoco_names_the_extra(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    example_scenario: Callable[..., MujocoScenario],
) -> None:
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run

    scenario = example_scenario("reach_arm", duration_s=0.02)  # loads without MuJoCo
    _without_mujoco(monkeypatch)
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[mujoco\]"):
        record_mujoco_run(scenario, tmp_path / "run.fsr")
    assert list(tmp_path.iterdir()) == []
