"""Hostile input to the readers: bombs, deep text, wrong types, leaks, calibration.

Every case is built from real data (the skelarm logs in ``tests/data/skelarm``,
the synthetic recording) altered the way an attacker would, and asserts the
exact ``FsrError`` subclass, that the file is named, and for budgets that the
refusal comes from the headers, before anything large is allocated.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from calibrated_files import calibration_k, write_calibrated_camera

from fsr_core.errors import (
    CalibrationError,
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    NotRegularFileError,
    OpenFailedError,
    SchemaError,
)
from fsr_core.format.catalog import json_stream, numeric_stream
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.format.writer import FsrWriter
from fsr_core.logs.skelarm import load_skelarm
from fsr_core.simulation.scenario_document import (
    MAX_SCENARIO_BYTES,
    read_scenario_document,
)
from fsr_core.simulators.planar_arm.scenario import load_scenario
from fsr_core.sources import inspect_recording, open_recording
from fsr_core.sources.fsr.reader_pool import IDLE_READERS, ReaderPool, shared_pool
from fsr_core.toml_text import parse_bounded_toml, toml_depth_exceeds

REACH = Path(__file__).resolve().parents[1] / "data" / "skelarm" / "reach.sklog.npz"
BUDGET = "FSR_VIEWER_MEMORY_BUDGET"


# ----------------------------------------------------------------- helpers
def _reach_members() -> dict[str, bytes]:
    """Return the real log's members as ``.npy`` bytes, by member name."""
    with zipfile.ZipFile(REACH) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _rewrite(
    path: Path,
    members: dict[str, bytes] | None = None,
    method: int = zipfile.ZIP_DEFLATED,
) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in (members or _reach_members()).items():
            archive.writestr(name, data)
    return path


def _with_meta(path: Path, edit: Any) -> Path:
    members = _reach_members()
    text = str(np.load(io.BytesIO(members["__meta__.npy"]))[()])
    members["__meta__.npy"] = _npy(np.array(edit(text)))
    return _rewrite(path, members)


def _small_fsr(
    path: Path, metadata: dict[str, Any], task: Any = None, records: int = 10
) -> Path:
    streams = [numeric_stream("joints", ["q0", "q1"], ["rad", "rad"])]
    if task is not None:
        streams.append(json_stream("task", StreamKind.TASK))
    with FsrWriter(path, streams, metadata=metadata) as writer:
        for tick in range(records):
            writer.write(
                "joints", np.array([0.1 * tick, 0.2]), tick=tick, sim_time_s=tick / 100
            )
        if task is not None:
            writer.write("task", task, tick=0, sim_time_s=0.0)
    return path


# ------------------------------------------------------------ bounded TOML
@pytest.mark.parametrize(
    "text",
    [
        "v = " + "[" * 3000 + "]" * 3000,
        "v = " + "{a = " * 40 + "1" + "}" * 40,
        "a" + ".b" * 5000 + " = 1",
        "[" + ".".join(["t"] * 40) + "]\nx = 1",
    ],
    ids=["arrays", "inline tables", "dotted key", "table header"],
)
def test_deep_toml_is_refused_before_parsing(text: str) -> None:
    assert toml_depth_exceeds(text)
    with pytest.raises(LimitExceededError, match="nests deeper than 32"):
        parse_bounded_toml(text, what="scenario", path="s.toml")


def test_brackets_and_dots_inside_strings_and_comments_do_not_count() -> None:
    text = (
        'a = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["\n'
        "b = '{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{'\n"
        'c = """\n' + "[" * 50 + '\n"""\n'
        "# " + "[" * 50 + "\n"
        'd = "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g"\n'
        "e = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 1.5, 2.5, 3.5, 4.5, 5.5]\n"
    )
    assert not toml_depth_exceeds(text)
    assert parse_bounded_toml(text, what="t", path=None)["e"][0] == 1.5


def test_meta_nested_3000_deep_is_one_clear_limit_error(tmp_path: Path) -> None:
    path = _with_meta(
        tmp_path / "deep.sklog.npz",
        lambda text: text + "\nv = " + "[" * 3000 + "]" * 3000 + "\n",
    )

    with pytest.raises(LimitExceededError, match="__meta__ nests deeper") as caught:
        load_skelarm(path)

    assert caught.value.path == str(path)
    assert "recursion" not in str(caught.value)


# ------------------------------------------------------- skelarm zip bombs
@pytest.mark.parametrize(
    ("method", "name"),
    [(zipfile.ZIP_LZMA, "lzma"), (zipfile.ZIP_BZIP2, "bzip2")],
)
def test_a_log_rewritten_with_another_compression_is_refused_by_name(
    tmp_path: Path, method: int, name: str
) -> None:
    path = _rewrite(tmp_path / f"{name}.sklog.npz", method=method)

    with pytest.raises(SchemaError, match=f"compressed with {name}") as caught:
        load_skelarm(path)

    assert caught.value.path == str(path)


def test_a_header_claiming_a_huge_shape_is_refused_before_inflating(
    tmp_path: Path,
) -> None:
    members = _reach_members()
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10**9, 10**6)}
    )
    members["q.npy"] = header.getvalue() + bytes(64)
    path = _rewrite(tmp_path / "huge-shape.sklog.npz", members)

    tracemalloc.start()
    try:
        with pytest.raises(CorruptRecordError, match="declares 8000000000000000"):
            load_skelarm(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_a_log_whose_float64_model_exceeds_the_budget_is_refused_from_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4 MiB of uint8 zeros: small on disk and inflated, 32 MiB as float64.
    members = _reach_members()
    members["wide.npy"] = _npy(np.zeros((1024, 4096), np.uint8))
    path = _rewrite(tmp_path / "wide.sklog.npz", members)
    monkeypatch.setenv(BUDGET, "16MiB")

    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError) as caught:
            load_skelarm(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    message = str(caught.value)
    assert "'wide' 1024x4096 uint8" in message
    assert "budget 16 MiB (raise with FSR_VIEWER_MEMORY_BUDGET=" in message
    assert caught.value.path == str(path)
    assert peak < 8 << 20  # refused before one member was loaded


def test_the_real_logs_fit_the_default_budget_and_open_as_before() -> None:
    for path in sorted(REACH.parent.glob("*.sklog.npz")):
        model = load_skelarm(path)
        assert model.channels["q"].values.dtype == np.float64


def test_a_log_with_a_negative_dimension_is_a_schema_error(tmp_path: Path) -> None:
    members = _reach_members()
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (-4, 2)}
    )
    members["q.npy"] = header.getvalue()
    path = _rewrite(tmp_path / "negative.sklog.npz", members)

    with pytest.raises(FsrError) as caught:
        load_skelarm(path)

    assert caught.value.path == str(path)


# --------------------------------------------------------------- scenarios
def test_a_scenario_over_the_size_limit_is_refused_before_reading(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.toml"
    with path.open("wb") as handle:
        handle.truncate(MAX_SCENARIO_BYTES + 1)  # sparse: nothing is written

    with pytest.raises(LimitExceededError, match="exceeds the limit") as caught:
        read_scenario_document(path)

    assert caught.value.path == str(path)


def test_a_deep_scenario_and_a_fifo_are_refused(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 3000 + "]" * 3000, encoding="utf-8")
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "\xe9"')

    with pytest.raises(LimitExceededError, match="scenario nests deeper"):
        load_scenario(deep)
    with pytest.raises(NotRegularFileError):
        read_scenario_document(fifo)
    with pytest.raises(SchemaError, match="not UTF-8 at byte 8"):
        read_scenario_document(latin)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize(
    "document",
    ["arm = [1, 2]", "[arm]\nlinks = [1, 2]", "[[cameras]]\nname = [1]"],
)
def test_a_scenario_with_wrong_types_is_a_schema_error(
    tmp_path: Path, document: str
) -> None:
    path = tmp_path / "typed.toml"
    path.write_text(document, encoding="utf-8")

    with pytest.raises(SchemaError) as caught:
        load_scenario(path)

    assert caught.value.path == str(path)


# ------------------------------------------------------ FSR metadata types
@pytest.mark.parametrize(
    ("metadata", "key"),
    [
        ({"run": [1, [2, [3]]]}, "'run' is an array"),
        ({"run": {"name": 7}}, "'run.name' is a number"),
        ({"config": "nope"}, "'config' is a string"),
        ({"simulation_contract": None}, "'simulation_contract' is null"),
    ],
)
def test_run_metadata_of_the_wrong_type_is_refused_by_open_and_inspect(
    tmp_path: Path, metadata: dict[str, Any], key: str
) -> None:
    path = _small_fsr(tmp_path / "meta.fsr", metadata)

    for action in (open_recording, inspect_recording):
        with pytest.raises(SchemaError, match=key) as caught:
            action(path)
        assert caught.value.path == str(path)


def test_the_issues_metadata_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    metadata = {
        "run": [1, [2, [3]]],
        "task": {"targets": "nope", "tolerance_m": None},
        "duration_s": "long",
    }
    path = _small_fsr(tmp_path / "issue.fsr", metadata)

    with pytest.raises(SchemaError, match="'run' is an array, expected an object"):
        open_recording(path)


@pytest.mark.parametrize(
    ("overlay", "problem"),
    [
        ("nope", "overlay is a string"),
        ({"targets": "nope"}, "overlay.targets is a string"),
        ({"targets": [{"xy": "ab"}]}, r"overlay.targets\[0\].xy is a string"),
        ({"targets": [{"xy": [0, 1], "tolerance_m": "x"}]}, "tolerance_m is a"),
        ({"kind": 3}, "overlay.kind is a number"),
        ({"curve_xy": [[1, 2], [3]]}, r"overlay.curve_xy\[1\] is an array"),
        ({"active_index": 1.5}, "active_index is a number"),
    ],
)
def test_a_malformed_task_overlay_names_stream_and_record(
    tmp_path: Path, overlay: Any, problem: str
) -> None:
    path = _small_fsr(tmp_path / "task.fsr", {}, task={"overlay": overlay})

    with pytest.raises(SchemaError, match=problem) as caught:
        open_recording(path)

    assert caught.value.stream == "task"
    assert caught.value.record == 0
    assert caught.value.path == str(path)


def test_a_good_task_overlay_still_draws(tmp_path: Path) -> None:
    overlay = {
        "kind": "reach",
        "targets": [{"xy": [0.4, 0.2], "label": "A", "tolerance_m": 0.02}],
        "curve_xy": [[0.0, 0.0], [1.0, 1.0]],
        "active_index": 0,
    }
    path = _small_fsr(tmp_path / "good.fsr", {}, task={"overlay": overlay})

    drawn = open_recording(path).overlays[0]

    assert drawn.targets_xy == ((0.4, 0.2),)
    assert drawn.target_labels == ("A",)
    assert drawn.tolerance_m == 0.02
    assert drawn.curve_xy == ((0.0, 0.0), (1.0, 1.0))


@pytest.mark.parametrize(
    "arm",
    [
        {"links": [1, 2], "base_m": [0, 0]},
        {"links": [{"length_m": "long"}], "base_m": [0, 0]},
        {"links": [{"length_m": 1.0}], "base_m": "origin"},
    ],
)
def test_a_planar_arm_recording_with_a_malformed_arm_is_a_schema_error(
    tmp_path: Path, arm: dict[str, Any]
) -> None:
    metadata = {
        "config": {"arm": arm},
        "simulation_contract": {"simulator": "planar_arm"},
    }
    path = _small_fsr(tmp_path / "arm.fsr", metadata)

    with pytest.raises(SchemaError, match=r"config\.arm") as caught:
        open_recording(path)

    assert caught.value.path == str(path)


# ---------------------------------------------------------- FSR budgets
def test_numeric_channels_over_the_memory_budget_are_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _small_fsr(tmp_path / "many.fsr", {}, records=2000)
    monkeypatch.setenv(BUDGET, "16KiB")

    with pytest.raises(LimitExceededError) as caught:
        open_recording(path)

    message = str(caught.value)
    assert "loading 1 numeric channels (2,000 records) as float64 needs" in message
    assert "budget 16 KiB (raise with FSR_VIEWER_MEMORY_BUDGET=" in message
    monkeypatch.delenv(BUDGET)
    assert open_recording(path).channels["joints"].values.shape == (2000, 2)


# ------------------------------------------------------- descriptor leaks
def _open_fds() -> int:
    return len(list(Path("/proc/self/fd").iterdir()))


def test_many_models_with_cameras_hold_no_descriptor_each(
    tmp_path: Path, recording_with_camera: Path
) -> None:
    shared_pool().close_all()
    paths = []
    for index in range(3 * IDLE_READERS + 5):
        copy = tmp_path / f"copy{index:02d}.fsr"
        shutil.copyfile(recording_with_camera, copy)
        paths.append(copy)
    before = _open_fds()

    models = [open_recording(path) for path in paths]
    for model in models:
        frame, calibration = model.cameras[0].fetch(0)
        assert frame.width > 0
        assert calibration is not None

    assert _open_fds() - before <= IDLE_READERS
    shared_pool().close_all()
    assert _open_fds() <= before


def test_a_camera_file_replaced_on_disk_is_refused_not_mixed_up(
    tmp_path: Path, recording_with_camera: Path
) -> None:
    path = tmp_path / "replaced.fsr"
    shutil.copyfile(recording_with_camera, path)
    model = open_recording(path)
    shared_pool().close_all()
    fresh = tmp_path / "fresh.fsr"
    shutil.copyfile(recording_with_camera, fresh)
    with path.open("rb"):  # the old inode stays in use, so it is not reused
        fresh.replace(path)  # a new file under the name

        with pytest.raises(OpenFailedError, match="replaced on disk") as caught:
            model.cameras[0].fetch(0)

    assert caught.value.path == str(path)


def test_the_pool_keeps_at_most_its_capacity_open(
    tmp_path: Path, recording_with_camera: Path
) -> None:
    pool = ReaderPool(capacity=2)
    paths = []
    for index in range(5):
        copy = tmp_path / f"p{index}.fsr"
        shutil.copyfile(recording_with_camera, copy)
        paths.append(copy)
    models = [open_recording(path) for path in paths]
    del models
    from fsr_core.sources.fsr.reader_pool import file_identity

    for path in paths:
        with pool.lend(file_identity(path, recover=False)) as reader:
            assert reader.streams
    assert pool.idle_count == 2
    pool.close_all()
    assert pool.idle_count == 0


def test_idle_readers_keep_at_most_the_index_budget_in_memory(
    tmp_path: Path, recording_with_camera: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fsr_core.sources.fsr import reader_pool
    from fsr_core.sources.fsr.reader_pool import file_identity

    with FsrReader.open(recording_with_camera) as reader:
        one_index = reader.index_bytes
    assert one_index > 0
    monkeypatch.setattr(reader_pool, "IDLE_INDEX_BYTES", 2 * one_index)
    pool = ReaderPool(capacity=8)
    identities = []
    for index in range(5):
        copy = tmp_path / f"b{index}.fsr"
        shutil.copyfile(recording_with_camera, copy)
        identities.append(file_identity(copy, recover=False))
        with pool.lend(identities[-1]):
            pass

    assert pool.idle_count == 2  # the budget, not the capacity of 8
    monkeypatch.setattr(reader_pool, "IDLE_INDEX_BYTES", 0)
    with pool.lend(identities[0]):
        pass
    assert pool.idle_count == 1  # the newest stays, whatever its size
    pool.close_all()


# ------------------------------------------------------------- calibration
@pytest.mark.parametrize(
    ("quaternion", "k", "stream", "problem"),
    [
        ([0, 0, 0, 0], None, "quaternion_xyzw", "norm 0, expected 1"),
        ([0, 0, 0, 2], None, "quaternion_xyzw", "norm 2, expected 1"),
        ([float("nan"), 0, 0, 1], None, "quaternion_xyzw", "NaN or infinite"),
        (
            [0, 0, 0, 1],
            calibration_k(fx=0.0),
            "intrinsics",
            "focal lengths must be positive",
        ),
        (
            [0, 0, 0, 1],
            calibration_k(fy=-7.0),
            "intrinsics",
            "focal lengths must be positive",
        ),
        ([0, 0, 0, 1], calibration_k(fx=float("inf")), "intrinsics", "NaN or infinite"),
        (
            [0, 0, 0, 1],
            calibration_k(cx=5.0),
            "intrinsics",
            "disagrees with the camera's",
        ),
    ],
    ids=["zero-q", "non-unit-q", "nan-q", "fx0", "fy<0", "fx-inf", "K-vs-profile"],
)
def test_invalid_calibration_written_low_level_fails_verify(
    tmp_path: Path,
    quaternion: list[float],
    k: np.ndarray | None,
    stream: str,
    problem: str,
) -> None:
    path = write_calibrated_camera(tmp_path / "cal.fsr", quaternion, k)

    with FsrReader.open(path) as reader:
        problems = reader.verify()

    assert len(problems) == 1, problems
    found = problems[0]
    # Non-finite values are refused by the payload decoder (SchemaError).
    assert isinstance(found, CalibrationError | SchemaError)
    assert found.stream is not None
    assert found.stream.endswith(stream)
    assert found.record == 0
    assert problem in found.reason
    assert found.path == str(path)


def test_valid_calibration_verifies_clean(
    tmp_path: Path, recording_with_camera: Path
) -> None:
    path = write_calibrated_camera(tmp_path / "fine.fsr", [0, 0, 0, 1], None)

    for target in (path, recording_with_camera):
        with FsrReader.open(target) as reader:
            assert reader.verify() == []
