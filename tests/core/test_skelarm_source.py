"""The skelarm ``.sklog.npz`` source: real skelarm logs and hostile archives."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from skelarm_meta import first_link_meta

from fsr_core.errors import (
    BadMagicError,
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    OpenFailedError,
    SchemaError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from fsr_core.logs.skelarm import CURVE_SAMPLES, DERIVED_CHANNELS, load_skelarm
from fsr_core.recording import Integrity, MarkerKind
from fsr_core.sources import open_recording

# Real logs written by skelarm itself, kept in the repository (tests/data/skelarm).
SKELARM_DATA = Path(__file__).resolve().parents[1] / "data" / "skelarm"

LENGTHS = np.array([1.0, 0.8])

# file -> (frames, last time, recorded channels), from the data README's table.
REAL_LOGS = {
    "reach": (1001, 2.0, ("q", "dq", "tau", "q_ref", "error")),
    "periodic_curve": (801, 4.0, ("q", "dq", "tau", "q_ref", "error")),
    "multi_target_switch": (
        151,
        3.0,
        ("q", "dq", "tau", "ext_force", "friction", "active_target"),
    ),
}


def _real(name: str) -> Path:
    return SKELARM_DATA / f"{name}.sklog.npz"


def _tip(q: np.ndarray) -> np.ndarray:
    angles = np.cumsum(q)
    return np.array([LENGTHS @ np.cos(angles), LENGTHS @ np.sin(angles)])


# --------------------------------------------------------------------------
# Real logs written by skelarm 0.5.0
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REAL_LOGS))
def test_real_log_channels_match_the_readme(name: str) -> None:
    frames, last_s, recorded = REAL_LOGS[name]

    model = load_skelarm(_real(name))

    assert model.source == "skelarm"
    assert model.title == name
    assert tuple(k for k in model.channels if k not in DERIVED_CHANNELS) == recorded
    assert set(model.channels) - set(recorded) == {"tip_speed"}
    for channel in model.channels.values():
        assert len(channel.times_s) == frames
        assert channel.values.shape[0] == frames
    assert model.channels["q"].values.shape == (frames, 2)
    assert model.duration_s == pytest.approx(last_s, abs=1e-9)
    (segment,) = model.timeline.segments
    assert (segment.generation, segment.first_tick, segment.last_tick) == (
        0,
        0,
        frames - 1,
    )
    assert model.joint_channel == "q"
    assert model.integrity is Integrity.UNVERIFIED
    assert model.cameras == ()
    assert model.can_rerender
    assert model.provenance["skelarm"] == "0.5.0"
    assert model.metadata["schema_version"] == 1


def test_real_log_units_and_columns_come_from_channel_meta() -> None:
    model = load_skelarm(_real("multi_target_switch"))

    q = model.channels["q"]
    assert (q.unit, q.label, q.columns) == ("rad", "joint angle", ("j1", "j2"))
    assert model.channels["ext_force"].columns == ("fx", "fy")
    assert model.channels["friction"].unit == "N*m*s/rad"
    assert model.external_force_channel == "ext_force"
    assert model.readouts["friction"] == "friction:friction"
    # q_ref carries no [channels] table: defaults.
    q_ref = load_skelarm(_real("reach")).channels["q_ref"]
    assert (q_ref.unit, q_ref.label, q_ref.columns) == (
        "",
        "q_ref",
        ("q_ref[0]", "q_ref[1]"),
    )


def test_reach_overlay_is_one_target_with_tolerance_and_the_tip_reaches_it() -> None:
    model = load_skelarm(_real("reach"))

    overlay = model.overlays[0]
    assert overlay.kind == "reaching"
    assert overlay.targets_xy == ((-0.45, 1.55),)
    assert overlay.tolerance_m == pytest.approx(0.02)
    assert model.kinematics is not None
    tip = model.kinematics.joint_positions(model.joint_angles_at(model.duration_s))
    assert np.linalg.norm(tip[-1] - np.array([-0.45, 1.55])) < 0.02


def test_kinematics_at_frame_zero_is_the_forward_kinematics_of_q() -> None:
    model = load_skelarm(_real("reach"))
    kinematics = model.kinematics
    assert kinematics is not None
    q0 = np.load(_real("reach"))["q"][0]

    points = kinematics.joint_positions(model.joint_angles_at(0.0))

    np.testing.assert_allclose(kinematics.lengths_m, LENGTHS)
    assert kinematics.base_m == (0.0, 0.0)
    np.testing.assert_allclose(points[0], [0.0, 0.0])
    np.testing.assert_allclose(points[-1], _tip(q0))
    np.testing.assert_allclose(kinematics.com_m, [0.5, 0.4])
    np.testing.assert_allclose(kinematics.q_min_rad, [-np.pi, -np.pi])
    np.testing.assert_allclose(kinematics.q_max_rad, [np.pi, np.pi])


def test_periodic_curve_overlay_is_a_closed_256_point_ellipse() -> None:
    model = load_skelarm(_real("periodic_curve"))

    curve = np.array(model.overlays[0].curve_xy)

    assert curve.shape == (CURVE_SAMPLES, 2)
    np.testing.assert_allclose(curve[0], curve[-1], atol=1e-12)
    # ellipse, center (0.9, 0), a = 0.4, b = 0.25.
    np.testing.assert_allclose(curve[0], [1.3, 0.0], atol=1e-12)
    assert curve[:, 0].min() == pytest.approx(0.5, abs=1e-3)
    assert curve[:, 1].max() == pytest.approx(0.25, abs=1e-3)
    # The recorded joint reference traces the same curve.
    q_ref = model.channels["q_ref"].values
    assert np.linalg.norm(_tip(q_ref[0]) - curve[0]) < 1e-3


def test_multi_target_log_follows_active_target_with_event_markers() -> None:
    model = load_skelarm(_real("multi_target_switch"))

    overlay = model.overlays[0]
    assert len(overlay.targets_xy) == 3
    assert overlay.target_labels == ("A", "B", "C")
    assert overlay.target_colors == ("purple", "teal", "orange")
    assert overlay.active_index == 0
    assert model.active_target_channel == "active_target"
    active = model.channels["active_target"]
    switches = np.flatnonzero(np.diff(active.values)) + 1
    np.testing.assert_allclose(active.times_s[switches], [1.02, 2.02], atol=1e-9)
    events = [m for m in model.markers if m.kind is MarkerKind.EVENT]
    assert [m.play_time_s for m in events] == pytest.approx([1.02, 2.02], abs=1e-9)
    assert [m.label for m in events] == ["target → 1 (B)", "target → 2 (C)"]


def test_resimulation_is_offered_for_every_log_with_an_embedded_config() -> None:
    # Interactive logs re-run too (unperturbed, or with their recorded inputs);
    # the adapter's plan says which before it runs (tests/skelarm).
    for name in ("reach", "periodic_curve", "multi_target_switch"):
        assert load_skelarm(_real(name)).can_resimulate is None


def test_open_recording_picks_the_skelarm_source_by_content() -> None:
    assert open_recording(_real("reach")).source == "skelarm"


# --------------------------------------------------------------------------
# Logs built here, valid and hostile
# --------------------------------------------------------------------------

_META = (
    first_link_meta("{version}", "{rgy}")
    + """
[[skeleton.links]]
length = 0.8
m = 0.8
i = 0.05
rgx = 0.4
rgy = 0.0
qmin = -3.0
qmax = 3.0

[extra.source_config.skeleton]
[extra.source_config.task]
{task}

[extra.run]
dt = 0.01
"""
)


def _meta(version: int = 1, rgy: float = 0.0, task: str = 'type = "none"') -> str:
    return _META.format(version=version, rgy=rgy, task=task)


def _arrays(frames: int = 5) -> dict[str, Any]:
    times = np.arange(frames) * 0.01
    q = np.stack([np.linspace(0.0, 1.0, frames), np.full(frames, 0.5)], axis=1)
    return {"time": times, "q": q, "dq": np.ones_like(q)}


def _write(
    path: Path, arrays: dict[str, Any] | None = None, meta: Any = None, **kwargs: Any
) -> Path:
    members = _arrays() if arrays is None else arrays
    members = {**members, **kwargs}
    if meta is not False:
        members["__meta__"] = np.array(_meta() if meta is None else meta)
    np.savez_compressed(path, **members)
    return path


def test_built_log_draws_each_task_kind(tmp_path: Path) -> None:
    tasks = {
        "reaching": 'type = "reaching"\ntarget = [0.5, 1.0]',
        "circle": 'type = "periodic_curve"\ncurve = "circle"\nradius = 0.3\n'
        "center = [1.0, 0.0]",
        "rose": 'type = "periodic_curve"\ncurve = "rose"\na = 0.2\nk = 3',
        "track": 'type = "trajectory_tracking"\n'
        "reference_samples = {values = [[1.0, 0.0], [1.1, 0.1]]}",
        "joints": 'type = "joint_trajectory_tracking"\n'
        "reference_samples = {values = [[0.0, 0.0], [1.5707963267948966, 0.0]]}",
    }
    models = {
        key: load_skelarm(_write(tmp_path / f"{key}.sklog.npz", meta=_meta(task=task)))
        for key, task in tasks.items()
    }

    assert models["reaching"].overlays[0].targets_xy == ((0.5, 1.0),)
    assert models["reaching"].overlays[0].tolerance_m is None
    circle = np.array(models["circle"].overlays[0].curve_xy)
    np.testing.assert_allclose(np.hypot(circle[:, 0] - 1.0, circle[:, 1]), 0.3)
    assert len(models["rose"].overlays[0].curve_xy) == CURVE_SAMPLES
    assert models["track"].overlays[0].reference_xy == ((1.0, 0.0), (1.1, 0.1))
    np.testing.assert_allclose(
        models["joints"].overlays[0].reference_xy, [[1.8, 0.0], [0.0, 1.8]], atol=1e-12
    )


def test_base_length_is_a_fixed_link_from_the_origin_to_the_first_joint(
    tmp_path: Path,
) -> None:
    meta = _meta().replace("base_length = 0.0", "base_length = 0.4")
    model = load_skelarm(_write(tmp_path / "base.sklog.npz", meta=meta))
    kinematics = model.kinematics
    assert kinematics is not None
    assert kinematics.mount_m == (0.0, 0.0)
    assert kinematics.support_m == (0.0, 0.0)
    assert kinematics.base_m == (0.4, 0.0)
    q = np.array([0.7, -0.4])
    points = kinematics.joint_positions(q)
    np.testing.assert_allclose(points[0], [0.4, 0.0])
    np.testing.assert_allclose(points[-1], _tip(q) + np.array([0.4, 0.0]))
    assert not any("base_length" in note for note in model.report["notes"])


def test_zero_base_length_mounts_the_arm_at_its_first_joint(tmp_path: Path) -> None:
    kinematics = load_skelarm(_write(tmp_path / "flush.sklog.npz")).kinematics
    assert kinematics is not None
    assert kinematics.mount_m is None
    assert kinematics.support_m == kinematics.base_m == (0.0, 0.0)


def test_unknown_curve_or_malformed_task_gives_no_overlay_not_an_error(
    tmp_path: Path,
) -> None:
    unknown = _meta(task='type = "periodic_curve"\ncurve = "spiral"')
    malformed = _meta(task='type = "reaching"\ntarget = "here"')

    spiral = load_skelarm(_write(tmp_path / "a.sklog.npz", meta=unknown))
    broken = load_skelarm(_write(tmp_path / "b.sklog.npz", meta=malformed))

    assert spiral.overlays == {}
    assert any("spiral" in note for note in spiral.report["notes"])
    assert broken.overlays == {}
    assert any("not drawn" in note for note in broken.report["notes"])


def test_playback_task_is_used_without_source_config(tmp_path: Path) -> None:
    meta = (
        'schema_version = 1\nproducer = "x"\n'
        '[extra.playback.task]\ntype = "reaching"\n'
        "target = {pos = [0.1, 0.2], tolerance = 0.05}\n"
    )

    model = load_skelarm(_write(tmp_path / "p.sklog.npz", meta=meta))

    assert model.overlays[0].targets_xy == ((0.1, 0.2),)
    assert model.kinematics is None
    assert model.can_resimulate is not None
    assert "no embedded configuration" in model.can_resimulate


_PLAYBACK_ONLY = 'schema_version = 1\nproducer = "x"\n'

MALFORMED_PLAYBACK = {
    "no type": "[extra.playback.task]\ntarget = [0.1, 0.2]\n",
    "unknown type": '[extra.playback.task]\ntype = "juggling"\n',
    "bad target": '[extra.playback.task]\ntype = "reaching"\ntarget = [1.0]\n',
    "unknown curve": '[extra.playback.task]\ntype = "periodic_curve"\n'
    'curve = "spiral"\n',
    "no targets": '[extra.playback.task]\ntype = "multi_target_reaching"\n',
    "playback not a table": "[extra]\nplayback = 3\n",
    "task not a table": '[extra.playback]\ntask = "reaching"\n',
    "task an array": "[extra.playback]\ntask = [1, 2]\n",
}


@pytest.mark.parametrize("case", sorted(MALFORMED_PLAYBACK))
def test_malformed_playback_task_fails_naming_the_file(
    tmp_path: Path, case: str
) -> None:
    path = _write(
        tmp_path / "bad.sklog.npz", meta=_PLAYBACK_ONLY + MALFORMED_PLAYBACK[case]
    )

    with pytest.raises(SchemaError, match="playback") as caught:
        load_skelarm(path)

    assert str(path) in str(caught.value)


def test_empty_playback_task_is_ignored(tmp_path: Path) -> None:
    meta = _PLAYBACK_ONLY + "[extra.playback.task]\n"

    model = load_skelarm(_write(tmp_path / "e.sklog.npz", meta=meta))

    assert model.overlays == {}


def test_source_config_task_wins_over_the_playback_task(tmp_path: Path) -> None:
    meta = _meta(task='type = "reaching"\ntarget = [0.5, 1.0]') + (
        '[extra.playback.task]\ntype = "reaching"\ntarget = [9.0, 9.0]\n'
    )

    model = load_skelarm(_write(tmp_path / "w.sklog.npz", meta=meta))

    assert model.overlays[0].targets_xy == ((0.5, 1.0),)


def test_perpendicular_com_offset_is_noted(tmp_path: Path) -> None:
    model = load_skelarm(_write(tmp_path / "c.sklog.npz", meta=_meta(rgy=0.1)))

    assert any("rgy" in note for note in model.report["notes"])


def test_missing_joint_limits_are_nan(tmp_path: Path) -> None:
    meta = _meta().replace("qmin = -3.0\n", "", 1)

    model = load_skelarm(_write(tmp_path / "l.sklog.npz", meta=meta))

    assert model.kinematics is not None
    assert model.kinematics.q_min_rad is not None
    assert np.isnan(model.kinematics.q_min_rad[0])
    assert model.kinematics.q_min_rad[1] == -3.0


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _lying_header() -> bytes:
    """Return a .npy member whose header declares far more data than it holds."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}
    )
    return b"\x93NUMPY\x01\x00" + header.getvalue()[8:] + b"\0" * 16


def _flip_member_byte(path: Path, member: str) -> None:
    """Flip one data byte of an uncompressed member, so its CRC-32 fails."""
    with zipfile.ZipFile(path) as archive:
        offset = archive.getinfo(member).header_offset
    raw = bytearray(path.read_bytes())
    name_length, extra_length = np.frombuffer(raw[offset + 26 : offset + 30], "<u2")
    raw[offset + 30 + int(name_length) + int(extra_length) + 140] ^= 0xFF
    path.write_bytes(bytes(raw))


def _hostile(kind: str, path: Path) -> Path:  # noqa: C901 - one case per branch
    frames = _arrays()
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "random bytes":
        path.write_bytes(np.random.default_rng(7).bytes(4096))
    elif kind == "random bytes after zip magic":
        path.write_bytes(b"PK\x03\x04" + np.random.default_rng(8).bytes(4096))
    elif kind == "truncated zip":
        whole = _write(path).read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
    elif kind == "zip that is not npz":
        _zip(path, {"hello.txt": b"hello"})
    elif kind == "npz without q":
        _write(path, {"time": frames["time"]})
    elif kind == "npz without time":
        _write(path, {"q": frames["q"]})
    elif kind == "npz without meta":
        _write(path, meta=False)
    elif kind == "meta not toml":
        _write(path, meta="this is = = not toml [")
    elif kind == "meta not 0-d":
        _write(path, meta=np.array(["a", "b"]))
    elif kind == "meta not unicode":
        _write(path, meta=np.array(1.0))
    elif kind == "meta deeply nested":
        _write(path, meta="x = " + "[" * 5000 + "]" * 5000)
    elif kind == "no schema version":
        _write(path, meta='producer = "x"')
    elif kind == "no frames":
        _write(path, {"time": np.zeros(0), "q": np.zeros((0, 2))})
    elif kind == "flipped byte in a member":
        np.savez(path, **frames, __meta__=np.array(_meta()))
        _flip_member_byte(path, "q.npy")
    elif kind == "unknown schema version":
        _write(path, meta=_meta(version=7))
    elif kind == "object array":
        np.savez(path, time=frames["time"], q=np.array([{}, 1], dtype=object))
    elif kind == "mismatched lengths":
        _write(path, dq=np.ones((3, 2)))
    elif kind == "nan time":
        _write(path, time=np.array([0.0, 0.01, np.nan, 0.03, 0.04]))
    elif kind == "time backwards":
        _write(path, time=np.array([0.0, 0.02, 0.01, 0.03, 0.04]))
    elif kind == "q not 2-d":
        _write(path, q=np.zeros(5))
    elif kind == "q width differs from skeleton":
        _write(path, q=np.zeros((5, 3)), dq=np.zeros((5, 3)))
    elif kind == "ext_force not (N, 2)":
        _write(path, ext_force=np.zeros((5, 3)))
    elif kind == "active_target not (N,)":
        _write(path, active_target=np.zeros((5, 1)))
    elif kind == "active_target nan":
        _write(path, active_target=np.array([0.0, 1.0, np.nan, 1.0, 1.0]))
    elif kind == "string channel":
        _write(path, note=np.array(["a"] * 5))
    elif kind == "header lies about size":
        _zip(path, {"time.npy": _npy(frames["time"]), "q.npy": _lying_header()})
    elif kind == "duplicate members":
        _zip(path, {"time.npy": _npy(frames["time"])})
        with (
            zipfile.ZipFile(path, "a") as archive,
            pytest.warns(UserWarning, match="Duplicate"),
        ):
            archive.writestr("time.npy", _npy(frames["time"]))
    else:  # pragma: no cover
        raise AssertionError(kind)
    return path


HOSTILE = {
    "empty": TruncatedFileError,
    "random bytes": BadMagicError,
    "random bytes after zip magic": FsrError,
    "truncated zip": FsrError,
    "zip that is not npz": SchemaError,
    "npz without q": SchemaError,
    "npz without time": SchemaError,
    "npz without meta": SchemaError,
    "meta not toml": SchemaError,
    "meta not 0-d": SchemaError,
    "meta not unicode": SchemaError,
    "meta deeply nested": LimitExceededError,
    "unknown schema version": UnsupportedVersionError,
    "no schema version": SchemaError,
    "no frames": SchemaError,
    "flipped byte in a member": CorruptRecordError,
    "object array": SchemaError,
    "mismatched lengths": SchemaError,
    "nan time": SchemaError,
    "time backwards": SchemaError,
    "q not 2-d": SchemaError,
    "q width differs from skeleton": SchemaError,
    "ext_force not (N, 2)": SchemaError,
    "active_target not (N,)": SchemaError,
    "active_target nan": SchemaError,
    "string channel": SchemaError,
    "header lies about size": CorruptRecordError,
    "duplicate members": SchemaError,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_log_raises_an_fsr_error_naming_the_file(
    kind: str, tmp_path: Path
) -> None:
    path = _hostile(kind, tmp_path / "hostile.sklog.npz")

    with pytest.raises(FsrError) as caught:
        load_skelarm(path)

    assert isinstance(caught.value, HOSTILE[kind])
    assert str(path) in str(caught.value)
    assert caught.value.path == str(path)


def test_missing_file_and_directory_are_open_errors(tmp_path: Path) -> None:
    with pytest.raises(OpenFailedError, match="no such file"):
        load_skelarm(tmp_path / "absent.sklog.npz")
    with pytest.raises(OpenFailedError, match="directory"):
        load_skelarm(tmp_path)


def test_archive_over_the_size_limit_is_refused_before_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "big.sklog.npz")
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "256")

    with pytest.raises(LimitExceededError, match="inflating the archive") as caught:
        load_skelarm(path)

    assert str(path) in str(caught.value)
