"""Converting skelarm logs to FSR: the FSR file opens exactly as the log does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import FsrError, SchemaError, TargetExistsError
from fsr_core.format.reader import FsrReader
from fsr_core.logs.skelarm.convert import convert_log, file_sha256
from fsr_core.recording import RecordingModel
from fsr_core.sources import open_recording

SKELARM_DATA = Path(__file__).resolve().parents[1] / "data" / "skelarm"
REAL_LOGS = sorted(path.name for path in SKELARM_DATA.glob("*.sklog.npz"))


def assert_same_recording(log: RecordingModel, fsr: RecordingModel) -> None:
    """Everything the player shows is equal: channels, arm, overlays, panel."""
    assert list(fsr.channels) == list(log.channels)
    for name, channel in log.channels.items():
        other = fsr.channels[name]
        assert (other.unit, other.label, other.columns) == (
            channel.unit,
            channel.label,
            channel.columns,
        ), name
        assert np.array_equal(other.values, channel.values, equal_nan=True), name
        assert np.array_equal(other.times_s, channel.times_s), name
    assert fsr.timeline == log.timeline
    assert fsr.overlays == log.overlays
    assert fsr.markers == log.markers
    assert fsr.readouts == log.readouts
    assert (fsr.joint_channel, fsr.external_force_channel) == (
        log.joint_channel,
        log.external_force_channel,
    )
    assert fsr.active_target_channel == log.active_target_channel
    assert fsr.title == log.title
    assert fsr.can_resimulate == log.can_resimulate
    assert log.kinematics is not None
    assert fsr.kinematics is not None
    for field in ("lengths_m", "com_m", "q_min_rad", "q_max_rad"):
        assert np.array_equal(
            getattr(fsr.kinematics, field),
            getattr(log.kinematics, field),
            equal_nan=True,
        ), field
    assert fsr.kinematics.base_m == log.kinematics.base_m


@pytest.mark.parametrize("name", REAL_LOGS)
def test_converted_real_log_opens_as_the_log(name: str, tmp_path: Path) -> None:
    source = SKELARM_DATA / name
    output = tmp_path / "run.fsr"

    result = convert_log(source, output)

    assert result.published.path == output
    assert_same_recording(open_recording(source), open_recording(output))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.fsr"]


def test_converted_file_keeps_config_arm_task_and_provenance(tmp_path: Path) -> None:
    source = SKELARM_DATA / "reach.sklog.npz"
    output = tmp_path / "reach.fsr"

    convert_log(source, output)

    with FsrReader.open(output) as reader:
        metadata = reader.metadata
        footer = reader.footer
        task = next(iter(reader.iter_records("task.context"))).decoded
        q = reader.streams["skelarm.q"].spec
    assert metadata["simulation_contract"]["simulator"] == "skelarm"
    assert metadata["config"]["controller"]["type"] == "computed_torque"
    assert metadata["skelarm_run"]["dt"] == 0.002
    links = metadata["scene"]["arm"]["links"]
    assert [link["length_m"] for link in links] == [1.0, 0.8]
    assert [link["mass_kg"] for link in links] == [1.0, 0.8]
    assert links[0]["q_min_rad"] == pytest.approx(-np.pi)
    assert task["task"]["type"] == "reaching"
    assert task["overlay"]["targets"][0]["xy"] == [-0.45, 1.55]
    assert task["overlay"]["targets"][0]["tolerance_m"] == 0.02
    assert (q.units, q.channels, q.attributes["label"]) == (
        "rad",
        ("j1", "j2"),
        "joint angle",
    )
    assert footer is not None
    assert footer.provenance["source_sha256"] == file_sha256(source)
    assert footer.provenance["mode"] == "convert"
    assert footer.provenance["skelarm"]["skelarm"] == "0.5.0"


def test_existing_output_is_kept_unless_overwrite(tmp_path: Path) -> None:
    source = SKELARM_DATA / "reach.sklog.npz"
    output = tmp_path / "out.fsr"
    output.write_bytes(b"keep me")

    with pytest.raises(TargetExistsError) as caught:
        convert_log(source, output)
    kept = output.read_bytes()
    convert_log(source, output, overwrite=True)

    assert str(output) in str(caught.value)
    assert kept == b"keep me"
    assert open_recording(output).title == "reach"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fsr"]


def _log(path: Path, meta: str, **arrays: np.ndarray) -> Path:
    np.savez_compressed(path, __meta__=np.array(meta), **arrays)
    return path


_META = """\
schema_version = 1
producer = "handmade"
[skeleton]
base_length = 0.0
[[skeleton.links]]
length = 1.0
rgx = 0.5
[[skeleton.links]]
length = 0.5
rgx = 0.25
[channels.gain]
unit = "1"
label = "a scalar with a NaN"
[extra.playback.task]
type = "multi_target_reaching"
targets = [{pos = [1.0, 0.2], label = "A"}, {pos = [0.2, 1.0], label = "B"}]
"""


def test_scalar_channels_nan_values_and_playback_tasks_survive(tmp_path: Path) -> None:
    times = np.arange(4) * 0.1
    q = np.zeros((4, 2))
    source = _log(
        tmp_path / "hand.sklog.npz",
        _META,
        time=times,
        q=q,
        dq=q + 1.0,
        gain=np.array([1.0, np.nan, np.inf, 2.0]),
        active_target=np.array([0.0, 0.0, 1.0, 1.0]),
    )
    output = tmp_path / "hand.fsr"

    convert_log(source, output)

    log, fsr = open_recording(source), open_recording(output)
    assert fsr.channels["gain"].values.shape == (4,)
    assert_same_recording(log, fsr)
    assert fsr.overlays[0].target_labels == ("A", "B")
    assert [marker.label for marker in fsr.markers] == ["target → 1 (B)"]


def test_malformed_log_fails_naming_it_and_writes_nothing(tmp_path: Path) -> None:
    source = _log(
        tmp_path / "bad.sklog.npz",
        _META,
        time=np.arange(3) * 0.1,
        q=np.zeros((2, 2)),
    )
    output = tmp_path / "bad.fsr"

    with pytest.raises(SchemaError) as caught:
        convert_log(source, output)

    assert str(source) in str(caught.value)
    assert "'q'" in str(caught.value)
    assert not output.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.sklog.npz"]


def test_a_pickle_inside_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    source = tmp_path / "pickled.sklog.npz"
    np.savez(
        source,
        __meta__=np.array(_META),
        time=np.arange(2) * 0.1,
        q=np.array([{"evil": 1}, {"evil": 2}], dtype=object),
    )

    with pytest.raises(FsrError, match="pickle"):
        convert_log(source, tmp_path / "p.fsr")

    assert not (tmp_path / "p.fsr").exists()
