"""docs/scenarios.md: its example scenario runs, and its tables match a recording."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from fsr_core import FsrReader
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import (
    CameraConfig,
    Scenario,
    load_scenario,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "scenarios.md"
CAMERA = "<camera>"
JOINT = "<i>"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def example_toml() -> str:
    """Return the fenced TOML block after ``<!-- example-scenario -->``."""
    match = re.search(
        r"<!-- example-scenario -->\s*```toml\n(.*?)```", doc_text(), re.DOTALL
    )
    assert match, "docs/scenarios.md has no example-scenario TOML block"
    return match.group(1)


def table_rows(marker: str) -> list[list[str]]:
    """Return the cells of the table after ``<!-- marker -->`` (no header)."""
    lines = doc_text().split(f"<!-- {marker} -->", 1)[1].lstrip("\n").splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert len(rows) > 2, f"the {marker} table is empty"
    return rows[2:]  # skip the header and the |---| line


def ticked(cell: str) -> list[str]:
    """Return the backticked words of a table cell."""
    return re.findall(r"`([^`]+)`", cell)


def shorten(scenario: Scenario) -> Scenario:
    """Cut the example to 0.3 s (two generations) with 64x48 cameras."""

    def small(camera: CameraConfig) -> CameraConfig:
        scale = 64 / camera.width
        changes = tuple(
            dataclasses.replace(c, time_s=0.1, fx=c.fx * scale, fy=c.fy * scale)
            for c in camera.calibration_changes
        )
        return dataclasses.replace(
            camera,
            width=64,
            height=48,
            fx=camera.fx * scale,
            fy=camera.fy * scale,
            calibration_changes=changes,
        )

    return dataclasses.replace(
        scenario,
        duration_s=0.3,
        cameras=tuple(small(camera) for camera in scenario.cameras),
        pushes=tuple(
            dataclasses.replace(p, start_s=0.05, end_s=0.1) for p in scenario.pushes
        ),
        resets=tuple(dataclasses.replace(r, after_s=0.15) for r in scenario.resets),
    )


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scenario, Path]:
    folder = tmp_path_factory.mktemp("scenario_doc")
    source = folder / "example.toml"
    source.write_text(example_toml(), encoding="utf-8")
    scenario = load_scenario(source)
    path = folder / "example.fsr"
    record_run(shorten(scenario), path)
    return scenario, path


def test_the_example_has_what_the_doc_promises(
    recording: tuple[Scenario, Path],
) -> None:
    scenario, _ = recording
    assert scenario.model.dof in (2, 3)
    assert scenario.task["kind"] == "reach"
    assert scenario.controller["kind"] == "computed_torque"
    assert len(scenario.cameras) >= 1
    assert len(scenario.pushes) == 1
    assert len(scenario.resets) == 1
    assert sum(len(c.calibration_changes) for c in scenario.cameras) == 1


def test_every_documented_stream_is_recorded_and_nothing_else(
    recording: tuple[Scenario, Path],
) -> None:
    scenario, path = recording
    documented: dict[str, str] = {}
    for cells in table_rows("stream-table"):
        name, kind = ticked(cells[0])[0], ticked(cells[1])[0]
        names = [name]
        if CAMERA in name:
            names = [name.replace(CAMERA, c.name) for c in scenario.cameras]
        documented.update(dict.fromkeys(names, kind))
    with FsrReader.open(path) as reader:
        recorded = {name: info.spec.kind.value for name, info in reader.streams.items()}
        empty = [n for n, info in reader.streams.items() if info.record_count == 0]
        generations = {(e.camera, e.generation) for e in reader.calibration_epochs()}
        zoomed = [e for e in reader.calibration_epochs() if e.generation == 0]
    assert recorded == documented
    assert empty == []
    assert generations == {(c.name, g) for c in scenario.cameras for g in (0, 1)}
    assert len(zoomed) == 2  # the calibration change starts a second epoch


def test_the_observation_channels_are_the_documented_ones(
    recording: tuple[Scenario, Path],
) -> None:
    scenario, path = recording
    names: list[str] = []
    units: list[str] = []
    for cells in table_rows("channel-table"):
        name, unit = ticked(cells[0])[0], ticked(cells[1])[0]
        count = scenario.model.dof if JOINT in name else 1
        names += [name.replace(JOINT, str(i)) for i in range(count)]
        units += [unit] * count
    with FsrReader.open(path) as reader:
        spec = reader.streams["observations.arm"].spec
    assert list(spec.channels) == names
    assert list(spec.units) == units


def test_recorded_events_are_documented_with_their_fields(
    recording: tuple[Scenario, Path],
) -> None:
    _, path = recording
    rows = table_rows("event-table")
    fields = {ticked(cells[0])[0]: set(ticked(cells[1])) for cells in rows}
    with FsrReader.open(path) as reader:
        events = [record.decoded for record in reader.iter_records("events")]
    for event in events:
        assert event["name"] in fields, event
        assert set(event) - {"name"} == fields[event["name"]], event
    seen = {event["name"] for event in events}
    assert {"push_started", "push_ended", "chunk_result", "generation_ended"} <= seen
