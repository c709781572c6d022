"""The Genesis source through the registry: open, inspect, convert."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from genesis_data import DATA

from fsr_core.recording import Integrity
from fsr_core.sources import (
    convert_recording,
    inspect_recording,
    open_recording,
    source_for,
)
from fsr_core.sources.inspection import COMMON_KEYS


def test_registry_picks_genesis_by_magic(tmp_path: Path) -> None:
    renamed = tmp_path / "trajectory.bin"
    renamed.write_bytes((DATA / "v1_box_exact.gstraj").read_bytes())
    assert source_for(renamed).name == "genesis"
    assert source_for(DATA / "v4_box_exact.gstraj").name == "genesis"


def test_open_exact_arm_has_channels_and_geometry() -> None:
    model = open_recording(DATA / "v4_arm_exact.gstraj")
    assert model.source == "genesis"
    assert model.integrity is Integrity.VALID
    qpos = model.channels["RigidSolver.rigid_info.qpos"]
    assert qpos.columns[:2] == ("joint1", "joint2")
    assert qpos.values.shape == (21, 9)
    np.testing.assert_allclose(qpos.times_s, np.arange(21) * 0.01)
    assert model.channels["timings/step"].unit == "s"
    assert model.geometry is not None
    assert len(model.geometry.bodies) == 12
    assert model.geometry.poses.shape == (21, 12, 7)
    norms = np.linalg.norm(model.geometry.poses[..., 3:], axis=-1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)
    assert model.provenance["genesis"] == "1.4.5"


def test_batched_file_has_channels_per_environment() -> None:
    model = open_recording(DATA / "v1_batch_exact.gstraj")
    for env in range(3):
        assert f"env{env}/RigidSolver.rigid_info.qpos" in model.channels
    assert "RigidSolver.rigid_info.qpos" not in model.channels
    time = model.channels["Simulator.time"]
    assert time.columns == ("env0", "env1", "env2")
    assert time.values[20, 1] == 0.0
    assert model.geometry is not None
    assert model.geometry.bodies[0].startswith("env0/")
    assert any(marker.label == "env1 reset" for marker in model.markers)


def test_minimal_file_places_links_by_kinematics_and_says_so() -> None:
    model = open_recording(DATA / "v4_box_minimal.gstraj")
    assert model.geometry is not None
    assert model.geometry.bodies == ("plane_baselink", "box_baselink")
    assert any("forward kinematics" in note for note in model.report["notes"])


def test_inspect_report_shape() -> None:
    report = inspect_recording(DATA / "v4_batch_exact.gstraj", verify=True)
    for key in COMMON_KEYS:
        assert key in report
    own = report["genesis"]
    assert own["manifest"]["genesis"] == "1.4.5"
    assert own["manifest"]["mode"] == "exact"
    assert own["manifest"]["layout"]["n_envs"] == 3
    assert [r["tag"] for r in own["records"]] == [
        "INFO", "CHNK", "INFO", "CHNK", "CHNK", "CHNK", "LAST",
    ]  # fmt: skip
    assert own["fields"][0]["name"] == "Simulator.steps"
    assert own["integrity"]["cut"] is None
    assert report["verification"]["problem_count"] == 0


def test_inspect_a_cut_file_reports_the_cut() -> None:
    report = inspect_recording(DATA / "v1_box_exact_cut_mid_chunk.gstraj")
    assert report["integrity"]["status"] == "recovered"
    assert report["genesis"]["integrity"]["cut"]["frames_before"] == 16


@pytest.mark.parametrize("name", ["v4_box_exact.gstraj", "v1_batch_compressed.gstraj"])
def test_convert_reopens_with_equal_channels(name: str, tmp_path: Path) -> None:
    output = tmp_path / "run.fsr"
    convert_recording(DATA / name, output)
    original = open_recording(DATA / name)
    reopened = open_recording(output)
    for key in ("Simulator.time", "RigidSolver.rigid_info.qpos"):
        for channel_name in original.channels:
            if not channel_name.endswith(key):
                continue
            ours = original.channels[channel_name]
            theirs = reopened.channels[channel_name]
            np.testing.assert_array_equal(theirs.values, ours.values)
            np.testing.assert_allclose(theirs.times_s, ours.times_s)
