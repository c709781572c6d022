"""Simulators are found through one registry, plugins by entry point.

The engine, the FSR source and the commands never name a simulator: they ask
the registry, so a plugin works everywhere a built-in does.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from source_imports import imported_modules

from fsr_core.errors import AdapterUnavailableError
from fsr_core.format.catalog import LIFECYCLE_STREAM, lifecycle_stream, numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.recording import RecordingModel
from fsr_core.replay.engine import replay_file
from fsr_core.simulation import registry
from fsr_core.simulation.profile import FsrOpening
from fsr_core.simulation.protocol import (
    RecordedRun,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
    ScenarioInput,
)
from fsr_core.simulation.simulator_defaults import SimulatorDefaults
from fsr_core.sources.fsr import load_fsr

REPO_ROOT = Path(__file__).resolve().parents[2]
TOY = "toy_sim"


class _ToyProfile:
    def build(self, opening: FsrOpening) -> RecordingModel:
        model = opening.generic_model()
        return replace(model, title=f"toy: {model.title}", readouts={"x": "obs:x"})


class ToySimulator(SimulatorDefaults):
    """A simulator an installed package would add."""

    @property
    def name(self) -> str:
        return TOY

    def unavailable_reason(self) -> str | None:
        return None

    def capabilities(self) -> frozenset[ReplayMode]:
        return frozenset()

    def can_replay(self, source: Path) -> str | None:
        return "toys do not replay"

    def replay(self, *args: object, **kwargs: object) -> ReplayResult:
        raise AssertionError("never called")

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        return document.get("simulator") == TOY

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        output.write_bytes(b"toy")
        return RecordedRun(output, "a toy run")

    def recording_profile(self) -> _ToyProfile:
        return _ToyProfile()


@dataclass
class _EntryPoint:
    """What the registry reads of an ``importlib.metadata`` entry point."""

    name: str
    value: str
    loaded: object

    def load(self) -> object:
        if isinstance(self.loaded, Exception):
            raise self.loaded
        return self.loaded


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[_EntryPoint]]:
    """Installed entry points of ``fsr_viewer.simulators``: append to the list."""
    installed: list[_EntryPoint] = []

    def entry_points(*, group: str) -> list[_EntryPoint]:
        return installed if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    registry.refresh_simulators()
    yield installed
    registry.refresh_simulators()


def _toy_recording(path: Path) -> Path:
    metadata = {"run": {"name": "take"}, "simulation_contract": {"simulator": TOY}}
    streams = [lifecycle_stream(), numeric_stream("obs", ["x"], "m")]
    with FsrWriter(path, streams, metadata=metadata) as writer:
        writer.write(LIFECYCLE_STREAM, {"event": "start"}, tick=0, sim_time_s=0.0)
        for tick in range(3):
            writer.write("obs", np.array([0.1 * tick]), tick=tick, sim_time_s=tick)
    return path


def test_a_plugin_simulator_is_found_by_name_and_shapes_its_recordings(
    plugins: list[_EntryPoint], tmp_path: Path
) -> None:
    plugins.append(_EntryPoint(TOY, "toy_package:ToySimulator", ToySimulator))

    model = load_fsr(_toy_recording(tmp_path / "toy.fsr"))

    assert TOY in registry.adapter_names()
    assert registry.get_adapter(TOY).name == TOY
    assert model.title == "toy: take"
    assert model.readouts == {"x": "obs:x"}
    assert registry.plugin_problems() == ()


def test_a_plugin_records_the_scenarios_it_recognises(
    plugins: list[_EntryPoint], tmp_path: Path
) -> None:
    plugins.append(_EntryPoint(TOY, "toy_package:ToySimulator", ToySimulator))

    simulator = registry.scenario_simulator({"simulator": TOY, "duration_s": 1.0})

    assert simulator.name == TOY
    assert simulator.record(Path(), tmp_path / "run.fsr").summary == "a toy run"
    assert registry.scenario_simulator({"name": "reach"}).name == "planar_arm"


def test_a_broken_plugin_is_reported_and_the_others_still_work(
    plugins: list[_EntryPoint], tmp_path: Path
) -> None:
    plugins.append(_EntryPoint("broken", "gone:Sim", ImportError("no module 'gone'")))
    plugins.append(_EntryPoint("planar_arm", "other:Arm", ToySimulator))
    plugins.append(_EntryPoint(TOY, "toy_package:ToySimulator", ToySimulator))

    problems = registry.plugin_problems()

    assert len(problems) == 2
    assert "plugin 'broken' (gone:Sim): ImportError: no module 'gone'" in problems
    assert any("'planar_arm' is already taken" in problem for problem in problems)
    assert "broken" not in registry.adapter_names()
    assert registry.get_adapter(TOY).name == TOY
    assert registry.get_adapter("planar_arm").recording_profile() is not None


def test_the_engine_refuses_an_unknown_simulator_in_one_line(
    small_recording: Path, tmp_path: Path
) -> None:
    options = ReplayOptions(mode=ReplayMode.RENDER)

    with pytest.raises(AdapterUnavailableError) as caught:
        replay_file(small_recording, tmp_path / "out.fsr", options, simulator="nope")

    message = str(caught.value)
    assert "\n" not in message
    assert "no simulator adapter named 'nope'" in message
    assert "planar_arm" in message  # the known ones are listed
    assert not (tmp_path / "out.fsr").exists()


_SIMULATOR_FREE = [
    *sorted(
        str(path.relative_to(REPO_ROOT))
        for pattern in ("fsr_core/simulation/*.py", "fsr_core/replay/*.py")
        for path in REPO_ROOT.glob(pattern)
    ),
    "fsr_core/sources/fsr/load.py",
]


@pytest.mark.parametrize("module", _SIMULATOR_FREE)
def test_no_simulator_package_is_imported_statically(module: str) -> None:
    imported = imported_modules(REPO_ROOT / module)

    assert not [name for name in imported if name.startswith("fsr_core.simulators")]
