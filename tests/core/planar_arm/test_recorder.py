"""Recording planar-arm runs into FSR: what a run records, and that it reproduces."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspection_reports import LIFECYCLE_WITH_A_RESET, lifecycle_events

from fsr_core import FsrReader
from fsr_core.calibration import project_points
from fsr_core.format.report import inspection_report
from fsr_core.format.streams import StreamKind
from fsr_core.simulators.planar_arm.demos import DEMO_NAMES, _take_documents, demo_takes
from fsr_core.simulators.planar_arm.kinematics import plane_to_world
from fsr_core.simulators.planar_arm.observations import (
    OBSERVATIONS,
    observation_channels,
)
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.render import TIP_COLOR
from fsr_core.simulators.planar_arm.scenario import Scenario, load_scenario

EVERY_KIND = {kind.value for kind in StreamKind} - {"json"}


def short(name: str, **changes: Any) -> Scenario:
    """Return a demo take cut to 0.6 s with small cameras, so tests stay fast."""
    document = _take_documents()[name]
    document["duration_s"] = 0.6
    for camera in document["cameras"]:
        camera["width"], camera["height"] = 160, 120
        for change in camera.get("calibration_changes", []):
            change["time_s"] = 0.2
    for reset in document.get("resets", []):
        reset["after_s"] = 0.3
    document.update(changes)
    return Scenario.from_json(document)


def test_demo_session_has_at_least_four_takes_covering_every_task() -> None:
    tasks = {take.scenario.task["kind"] for take in demo_takes()}
    assert len(DEMO_NAMES) >= 4
    assert tasks == {"reach", "multi_target", "periodic_curve", "reference_trajectory"}
    assert any(take.external_pushes for take in demo_takes())
    assert any(take.scenario.resets for take in demo_takes())
    assert any(
        camera.calibration_changes
        for take in demo_takes()
        for camera in take.scenario.cameras
    )


def test_a_recorded_run_holds_every_stream_kind(tmp_path: Path) -> None:
    path = tmp_path / "reset.fsr"
    record_run(short("06_reset_and_recalibration"), path)
    with FsrReader.open(path) as reader:
        report = inspection_report(reader, verify=True)
    kinds = {s["kind"] for s in report["streams"] if s["records"] > 0}
    assert kinds == EVERY_KIND
    assert report["valid"] is True
    assert lifecycle_events(report) == LIFECYCLE_WITH_A_RESET
    epochs = [
        (e["camera"], e["generation"], e["epoch"]) for e in report["calibration_epochs"]
    ]
    assert ("front", 0, 1) in epochs  # the zoom started a second epoch
    assert report["completion"]["reason_code"] == "RUN_COMPLETED"
    config = report["metadata"]["config"]
    assert Scenario.from_json(config).resolved() == config  # self-contained


@pytest.mark.parametrize("name", DEMO_NAMES)
def test_every_demo_take_records_every_stream_kind(tmp_path: Path, name: str) -> None:
    take = next(take for take in demo_takes() if take.name == name)
    path = tmp_path / f"{name}.fsr"
    record_run(short(name), path, external_pushes=take.external_pushes)
    with FsrReader.open(path) as reader:
        report = inspection_report(reader)
    kinds = {s["kind"] for s in report["streams"] if s["records"] > 0}
    assert kinds == EVERY_KIND


def test_observations_are_one_atomic_record_per_tick_with_named_channels(
    tmp_path: Path,
) -> None:
    scenario = short("01_reach", cameras=[])
    path = tmp_path / "reach.fsr"
    result = record_run(scenario, path)
    with FsrReader.open(path) as reader:
        info = reader.streams[OBSERVATIONS]
        ticks, times, values = reader.read_series(OBSERVATIONS)
    names = [name for name, _ in observation_channels(3)]
    assert info.spec.channels == tuple(names)
    assert info.record_count == result.ticks == scenario.ticks
    assert np.array_equal(ticks, np.arange(scenario.ticks))
    assert np.allclose(np.diff(times), scenario.dt_s)
    assert values.shape == (scenario.ticks, len(names))


def test_same_scenario_gives_byte_identical_files_in_one_process(
    tmp_path: Path,
) -> None:
    scenario = short("02_multi_target")
    record_run(scenario, tmp_path / "a.fsr")
    record_run(scenario, tmp_path / "b.fsr")
    assert (tmp_path / "a.fsr").read_bytes() == (tmp_path / "b.fsr").read_bytes()


def test_same_scenario_gives_byte_identical_files_across_processes(
    tmp_path: Path,
) -> None:
    scenario = short("03_periodic_curve")
    toml = tmp_path / "curve.toml"
    toml.write_text(scenario.to_toml(), encoding="utf-8")
    record_run(load_scenario(toml), tmp_path / "here.fsr")
    code = (
        "import sys; from fsr_core.simulators.planar_arm.recorder import record_run; "
        "from fsr_core.simulators.planar_arm.scenario import load_scenario; "
        "record_run(load_scenario(sys.argv[1]), sys.argv[2])"
    )
    there = tmp_path / "there.fsr"
    subprocess.run([sys.executable, "-c", code, str(toml), str(there)], check=True)
    digest = [
        hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (tmp_path / "here.fsr", there)
    ]
    assert digest[0] == digest[1]


def test_projected_tip_lands_on_the_drawn_tip_within_a_pixel(tmp_path: Path) -> None:
    # A curve task: no target disc can cover part of the tip and shift its centroid.
    document = _take_documents()["03_periodic_curve"]
    document["duration_s"] = 0.5
    for camera in document["cameras"]:
        camera["codec"] = "png"  # lossless, so colours can be matched exactly
    path = tmp_path / "tip.fsr"
    record_run(Scenario.from_json(document), path)
    with FsrReader.open(path) as reader:
        channels = reader.streams[OBSERVATIONS].spec.channels
        tip_x, tip_y = channels.index("tip_x"), channels.index("tip_y")
        checked = 0
        for frame in reader.iter_media():
            ref = frame.ref
            observation = reader.seek(
                OBSERVATIONS, generation=ref.generation, tick=ref.tick, mode="exact"
            )
            assert observation is not None
            tip = plane_to_world(observation.decoded[[tip_x, tip_y]])
            calibration = reader.calibration(
                ref.camera, generation=ref.generation, tick=ref.tick
            )
            assert calibration.digest == ref.calibration_digest
            assert calibration.pose is not None
            pixel, in_front = project_points(
                tip[None, :], calibration.profile, calibration.pose
            )
            mask = np.all(frame.decoded.pixels == TIP_COLOR, axis=-1)
            rows, cols = np.nonzero(mask)
            assert in_front[0]
            assert len(rows) > 0
            # OpenCV convention: pixel (i, j) has its centre at coordinates (i, j).
            column, row = np.round(pixel[0]).astype(int)
            assert mask[row, column]  # the projected pixel is on the drawn tip
            centroid = np.array([cols.mean(), rows.mean()])
            assert np.linalg.norm(centroid - pixel[0]) < 1.0
            checked += 1
    assert checked > 10


def test_an_external_push_is_recorded_but_is_not_part_of_the_config(
    tmp_path: Path,
) -> None:
    scenario = short("05_pushed")
    push = ExternalPush(0.1, 0.3, (-18.0, 6.0))
    record_run(scenario, tmp_path / "pushed.fsr", external_pushes=(push,))
    record_run(scenario, tmp_path / "plain.fsr")
    with (
        FsrReader.open(tmp_path / "pushed.fsr") as pushed,
        FsrReader.open(tmp_path / "plain.fsr") as plain,
    ):
        channels = pushed.streams[OBSERVATIONS].spec.channels
        fx = channels.index("ext_fx")
        _, times, pushed_values = pushed.read_series(OBSERVATIONS)
        _, _, plain_values = plain.read_series(OBSERVATIONS)
        assert pushed.metadata["run"]["interactive"] is True
        assert pushed.metadata["config"] == plain.metadata["config"]
        events = [r.decoded["name"] for r in pushed.iter_records("events")]
    during = (times >= 0.1) & (times < 0.3)
    assert np.all(pushed_values[during, fx] == -18.0)
    assert np.all(pushed_values[~during, fx] == 0.0)
    assert np.all(plain_values[:, fx] == 0.0)
    assert not np.array_equal(pushed_values[:, :3], plain_values[:, :3])
    assert "push_started" in events
    assert "push_ended" in events


def test_scenario_toml_round_trips_to_the_same_resolved_config(tmp_path: Path) -> None:
    for take in demo_takes():
        path = tmp_path / f"{take.name}.toml"
        path.write_text(take.scenario.to_toml(), encoding="utf-8")
        assert load_scenario(path).resolved() == take.scenario.resolved()


def test_a_bad_scenario_file_names_the_file_and_the_problem(tmp_path: Path) -> None:
    from app.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text("name = 'x'\n[arm\n", encoding="utf-8")
    assert main(["simulate", str(bad), "-o", str(tmp_path / "out.fsr")]) == 1
    missing = tmp_path / "missing.toml"
    missing.write_text("name = 'x'\nduration_s = 1.0\n", encoding="utf-8")
    assert main(["simulate", str(missing), "-o", str(tmp_path / "out.fsr")]) == 1
    assert not (tmp_path / "out.fsr").exists()


@pytest.mark.parametrize("name", ["01_reach", "02_multi_target", "05_pushed"])
def test_controllers_carry_the_tip_to_the_target(tmp_path: Path, name: str) -> None:
    document = _take_documents()[name]
    document["cameras"] = []
    path = tmp_path / f"{name}.fsr"
    record_run(Scenario.from_json(document), path)
    with FsrReader.open(path) as reader:
        channels = reader.streams[OBSERVATIONS].spec.channels
        _, _, values = reader.read_series(OBSERVATIONS)
    tip = values[-1, [channels.index("tip_x"), channels.index("tip_y")]]
    ref = values[-1, [channels.index("ref_x"), channels.index("ref_y")]]
    assert np.linalg.norm(tip - ref) < 0.03


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"duraton_s": 2.0}, "unknown key 'duraton_s'"),
        ({"recording": {"render_state_rate_hz": 0.0}}, "render_state_rate_hz"),
        ({"recording": {"applied_every_n_ticks": 0}}, "applied_every_n_ticks"),
        ({"task": {"kind": "teleport"}}, "task"),
        ({"controller": {"kind": "pd", "kq": 1.0}}, "kq"),
    ],
)
def test_scenario_mistakes_are_refused_with_the_key_named(
    change: dict[str, Any], message: str
) -> None:
    from fsr_core.errors import SchemaError

    document = _take_documents()["01_reach"]
    document.update(change)
    with pytest.raises(SchemaError, match=message):
        Scenario.from_json(document)


def test_a_camera_with_a_bad_rate_or_size_is_refused() -> None:
    from fsr_core.errors import SchemaError

    for key, value in (("rate_hz", -1.0), ("width", 64.5), ("codec", "gif")):
        document = _take_documents()["01_reach"]
        document["cameras"][0][key] = value
        with pytest.raises(SchemaError, match=key):
            Scenario.from_json(document)


def test_the_resolved_config_fills_in_task_and_controller_defaults() -> None:
    document = _take_documents()["01_reach"]
    document["controller"] = {"kind": "pd"}
    resolved = Scenario.from_json(document).resolved()
    assert set(resolved["controller"]) >= {"kind", "kp", "kd", "gravity_compensation"}
    assert Scenario.from_json(resolved).resolved() == resolved


def test_an_unlimited_joint_survives_the_toml_round_trip(tmp_path: Path) -> None:
    document = _take_documents()["01_reach"]
    document["arm"]["links"][0].pop("q_min_rad")
    document["arm"]["links"][0]["q_max_rad"] = None
    scenario = Scenario.from_json(document)
    assert scenario.model.links[0].q_max_rad == float("inf")
    path = tmp_path / "unlimited.toml"
    path.write_text(scenario.to_toml(), encoding="utf-8")
    assert "q_max_rad = inf" in path.read_text(encoding="utf-8")
    assert load_scenario(path).resolved() == scenario.resolved()
