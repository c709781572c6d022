"""``batch --engine ray``: the same work as Ray tasks, on a real local Ray instance.

The first test runs the command line, which starts (and ends) its own local
instance; the others share one instance started here with 2 CPUs
(``ray.init(num_cpus=2, include_dashboard=False)``) and drive the engine
directly. Ray is slow to start, so these tests are few.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_inputs import BROKEN, VALID, make_mixed_folder, read_report
from python_probe import offscreen_env, run_python

from app.headless.batch.engines.ray_engine import RayEngine
from app.headless.batch.fault_injection import FAULTS_VARIABLE
from app.headless.batch.items import BatchOptions, Verb
from app.headless.batch.plan import plan_items
from fsr_core.sources import open_recording

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow

#: The faults the shared instance's workers inject (its workers read the
#: environment once, when the instance starts).
FAULTS = "crash:crash_me.fsr,hang:hang_me.fsr"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mixed_folder(tmp_path_factory.mktemp("batch_ray") / "mixed")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """Start one local Ray instance with 2 CPUs for this module's engine tests."""
    before = os.environ.get(FAULTS_VARIABLE)
    os.environ[FAULTS_VARIABLE] = FAULTS
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        if before is None:
            os.environ.pop(FAULTS_VARIABLE, None)
        else:
            os.environ[FAULTS_VARIABLE] = before


def _run(
    engine: RayEngine,
    paths: list[Path],
    verb: Verb,
    out: Path | None = None,
    suffix: str = "",
) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    if out is not None:
        out.mkdir()
    items = plan_items(verb, paths, out_dir=out, suffix=suffix)
    engine.run(items, BatchOptions(verb), results.append)
    assert len(results) == len(items)
    return {Path(result["input"]).name: result for result in results}


def test_the_command_line_exports_through_the_object_store_on_its_own_instance(
    mixed: Path, tmp_path: Path
) -> None:
    out, report = tmp_path / "videos", tmp_path / "report.jsonl"
    argv = ["batch", "export", str(mixed), "--engine", "ray", "--jobs", "2"]
    argv += ["--out", str(out), "--report", str(report), "--inputs", "object-store"]
    argv += ["--size", "64x64", "--fps", "4"]
    done = run_python(["-m", "app", *argv], env=offscreen_env(), timeout_s=240)

    assert done.returncode == 1, done.stderr[-3000:]  # garbage.fsr fails
    assert "Traceback" not in done.stderr
    lines = read_report(report)
    assert lines["garbage.fsr"]["status"] == "failed"
    exported = {name for name, line in lines.items() if line["status"] == "ok"}
    assert exported == {*VALID, "truncated.fsr"}
    # Published by the driver from what came back: complete files, nothing else.
    assert sorted(path.name for path in out.iterdir()) == sorted(
        Path(lines[name]["output"]).name for name in exported
    )
    for name in exported:
        assert (out / Path(lines[name]["output"]).name).stat().st_size == lines[name][
            "bytes"
        ]
    assert "batch export: 7 recordings" in done.stdout


@pytest.mark.usefixtures("local_ray")
def test_validate_as_ray_tasks_gives_the_local_results(mixed: Path) -> None:
    results = _run(RayEngine(2), [mixed], Verb.VALIDATE)

    assert {name: line["status"] for name, line in results.items()} == {
        **dict.fromkeys(VALID, "ok"),
        **dict.fromkeys(BROKEN, "failed"),
    }
    assert results["ros2.mcap"]["source"] == "mcap"


@pytest.mark.usefixtures("local_ray")
def test_a_crashed_and_a_hung_task_fail_alone(mixed: Path, tmp_path: Path) -> None:
    for name in ("crash_me.fsr", "hang_me.fsr"):
        (tmp_path / name).write_bytes((mixed / "01_reach.fsr").read_bytes())
    paths = [tmp_path / "crash_me.fsr", tmp_path / "hang_me.fsr", mixed / "logs"]
    results = _run(RayEngine(2, timeout_s=5), paths, Verb.VALIDATE)

    assert "its Ray worker died" in results["crash_me.fsr"]["error"]
    assert "timed out after 5 s" in results["hang_me.fsr"]["error"]
    assert results["reach.sklog.npz"]["status"] == "ok"
    assert results["ros2.mcap"]["status"] == "ok"


@pytest.mark.usefixtures("local_ray")
def test_convert_resimulate_and_index_as_ray_tasks(mixed: Path, tmp_path: Path) -> None:
    converted = _run(RayEngine(2), [mixed], Verb.CONVERT, tmp_path / "fsr", ".fsr")
    replayed = _run(RayEngine(2), [mixed], Verb.RESIMULATE, tmp_path / "replays")
    indexed = _run(RayEngine(2), [mixed], Verb.INDEX)

    assert {name: line["status"] for name, line in converted.items()} == {
        "01_reach.fsr": "skipped",  # FSR already
        "05_pushed.fsr": "skipped",
        "reach.sklog.npz": "ok",
        "ros2.mcap": "ok",
        "v4_arm_exact.gstraj": "ok",
        "truncated.fsr": "skipped",  # it opens: the player shows what it holds
        "garbage.fsr": "failed",
    }
    assert open_recording(tmp_path / "fsr" / "ros2.fsr").provenance
    assert replayed["01_reach.fsr"]["comparison"]["verdict"] == "exact"
    assert replayed["05_pushed.fsr"]["comparison"]["verdict"] == "diverges"
    assert replayed["garbage.fsr"]["status"] == "failed"
    assert (tmp_path / "replays" / "05_pushed.resim.fsr").is_file()
    sources = {name: line["entry"]["source"] for name, line in indexed.items()}
    assert sources == {
        "01_reach.fsr": "fsr",
        "05_pushed.fsr": "fsr",
        "truncated.fsr": "fsr",
        "garbage.fsr": None,
        "reach.sklog.npz": "skelarm",
        "ros2.mcap": "mcap",
        "v4_arm_exact.gstraj": "genesis",
    }
    assert [indexed[name]["entry"]["valid"] for name in VALID] == [True] * len(VALID)
