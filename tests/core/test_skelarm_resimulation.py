"""What the skelarm adapter decides before skelarm runs (no skelarm needed).

Refusals, the plan said up front, the install hint and the output rules hold
on every Python; the runs themselves are in ``tests/skelarm``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from skelarm_meta import first_link_meta

from fsr_core.errors import AdapterUnavailableError, ReplayError, TargetExistsError
from fsr_core.simulation.registry import get_adapter
from fsr_core.simulators.skelarm import availability
from fsr_core.simulators.skelarm.replay import plan_for, resimulate_log
from fsr_core.simulators.skelarm.reproducibility import Reproducibility

DATA = Path(__file__).parents[1] / "data" / "skelarm"

_NO_CONFIG_META = first_link_meta()


def _programmatic_log(path: Path) -> Path:
    """Write a log as ``simulate_controlled`` does without a scenario config."""
    np.savez_compressed(
        path,
        time=np.linspace(0.0, 0.1, 6),
        q=np.zeros((6, 1)),
        dq=np.zeros((6, 1)),
        __meta__=np.array(_NO_CONFIG_META),
    )
    return path


def test_log_without_config_cannot_be_re_simulated(tmp_path: Path) -> None:
    source = _programmatic_log(tmp_path / "programmatic.sklog.npz")
    output = tmp_path / "rerun.sklog.npz"

    assert plan_for(source).tier is Reproducibility.IMPOSSIBLE
    with pytest.raises(ReplayError) as caught:
        resimulate_log(source, output)

    assert "cannot re-simulate: no embedded configuration" in str(caught.value)
    assert str(source) in str(caught.value)
    assert not output.exists()


def test_plan_says_what_each_real_log_gives_before_running() -> None:
    reach = plan_for(DATA / "reach.sklog.npz")
    interactive = plan_for(DATA / "multi_target_switch.sklog.npz")

    assert reach.tier is Reproducibility.EXACT
    assert "bit for bit" in reach.notes[0]
    assert interactive.tier is Reproducibility.UNPERTURBED
    assert "unperturbed scenario" in interactive.notes[0]
    assert "task's 2.0 s" in interactive.notes[1]
    assert "recorded inputs can be replayed" in interactive.notes[2]
    assert interactive.recorded_force
    assert interactive.notes_for(True)[0].startswith("replaying the recorded inputs")
    assert interactive.notes_for(False) == interactive.notes
    assert reach.notes_for(True) == reach.notes  # nothing recorded to replay


def test_recorded_force_needs_an_ext_force_channel(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="needs a recorded ext_force channel"):
        resimulate_log(
            DATA / "reach.sklog.npz",
            tmp_path / "rerun.sklog.npz",
            with_recorded_force=True,
        )


def test_existing_output_is_kept(tmp_path: Path) -> None:
    output = tmp_path / "rerun.sklog.npz"
    output.write_bytes(b"keep me")

    with pytest.raises(TargetExistsError):
        resimulate_log(DATA / "reach.sklog.npz", output)

    assert output.read_bytes() == b"keep me"


def test_fsr_file_of_another_simulator_is_not_a_skelarm_source(
    small_recording: Path, tmp_path: Path
) -> None:
    with pytest.raises(ReplayError, match="not a skelarm log"):
        resimulate_log(small_recording, tmp_path / "rerun.sklog.npz")
    reason = get_adapter("skelarm", require_available=False).can_replay(small_recording)
    assert reason is not None
    assert "not a skelarm log" in reason


def test_old_python_is_told_the_version_and_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))

    reason = availability.unavailable_reason()

    assert reason is not None
    assert "Python >= 3.12" in reason
    assert "pip install 'fsr-viewer[skelarm]'" in reason


def test_missing_skelarm_is_told_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 12, 1, "final", 0))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)

    reason = availability.unavailable_reason()

    assert reason is not None
    assert reason.startswith("skelarm is not installed")
    assert "pip install 'fsr-viewer[skelarm]'" in reason


def test_unavailable_skelarm_is_an_adapter_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))

    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[skelarm\]"):
        resimulate_log(DATA / "reach.sklog.npz", tmp_path / "rerun.sklog.npz")
    assert list(tmp_path.iterdir()) == []
