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


def _run(engine: RayEngine, paths: list[Path], verb: Verb) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    items = plan_items(verb, paths)
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
