"""Simulators are found by name through the adapter registry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fsr_core import FsrReader
from fsr_core.errors import AdapterUnavailableError
from fsr_core.simulation.registry import adapter_names, get_adapter, register_adapter


def test_the_builtin_simulator_is_registered_and_available() -> None:
    assert "planar_arm" in adapter_names()
    adapter = get_adapter("planar_arm")
    assert adapter.name == "planar_arm"
    assert adapter.unavailable_reason() is None


def test_an_unknown_simulator_is_an_actionable_error() -> None:
    with pytest.raises(AdapterUnavailableError, match="no simulator adapter named 'x'"):
        get_adapter("x")


def test_an_unavailable_simulator_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    class Missing:
        name = "missing_sim"

        def unavailable_reason(self) -> str:
            return "install the 'missing' extra: pip install 'fsr-viewer[missing]'"

        def simulate(self, config: object, output: object, **options: object) -> None:
            raise AssertionError("never called")

    from fsr_core.simulation import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_adapter("missing_sim", Missing)
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[missing\]"):
        get_adapter("missing_sim")
    assert get_adapter("missing_sim", require_available=False).name == "missing_sim"


def test_a_recording_re_runs_from_its_own_config_through_the_registry(
    tmp_path: Path,
) -> None:
    from fsr_core.simulators.planar_arm.demos import demo_scenario
    from fsr_core.simulators.planar_arm.recorder import record_run

    scenario = demo_scenario("01_reach")
    original = tmp_path / "original.fsr"
    record_run(scenario, original)
    with FsrReader.open(original) as reader:
        contract = reader.metadata["simulation_contract"]
        config = reader.metadata["config"]
    again = tmp_path / "again.fsr"
    get_adapter(contract["simulator"]).simulate(config, again)
    assert again.read_bytes() == original.read_bytes()


def test_recording_a_scenario_sums_up_what_it_published(tmp_path: Path) -> None:
    from fsr_core.simulators.planar_arm.demos import demo_scenario

    config = demo_scenario("01_reach").resolved()
    output = tmp_path / "take.fsr"
    run = get_adapter("planar_arm").record(config, output)
    assert run.output == output
    published = run.result.published
    said = re.fullmatch(
        r"(\d+) ticks in 1 generation\(s\), (\d+) records, (\d+) bytes, "
        r"([0-9.]+) s",
        run.summary,
    )
    assert said is not None, run.summary
    ticks, records, size, wall = said.groups()
    assert int(ticks) == run.result.ticks
    assert int(records) == published.records
    assert int(size) == output.stat().st_size == published.size_bytes
    assert abs(float(wall) - run.result.wall_s) <= 0.005
