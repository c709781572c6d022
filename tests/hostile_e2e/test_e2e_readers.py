"""The readers against hostile files, through the real ``fsr-viewer``, as users see.

Each case runs the command line in a fresh process under a 3 GiB address-space
limit and a timeout (``cli_run``), and asserts exit 1 with one line naming the
file and the problem: no traceback, no "internal error", no ``MemoryError``.
Files are built from the real skelarm log and with ``FsrWriter``.
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from calibrated_files import calibration_k, write_calibrated_camera
from hostile_e2e.cli_run import (
    REPO_ROOT,
    CliOutcome,
    assert_refused,
    assert_succeeded,
    run_cli,
)

from fsr_core.format.catalog import json_stream, numeric_stream
from fsr_core.format.streams import StreamKind
from fsr_core.format.writer import FsrWriter
from fsr_core.synthetic import SyntheticRun, write_synthetic

REACH = REPO_ROOT / "tests" / "data" / "skelarm" / "reach.sklog.npz"


# ------------------------------------------------------------------ builders
def _members() -> dict[str, bytes]:
    with zipfile.ZipFile(REACH) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _rewrite(path: Path, members: dict[str, bytes], method: int) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _header(shape: tuple[int, ...]) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    return buffer.getvalue()


def _bomb(path: Path) -> Path:
    """Add a 1001x200000 float64 zeros member: 1.6 GB inflated, 1.6 MB on disk."""
    members = _members()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        with archive.open("bomb.npy", "w", force_zip64=True) as member:
            member.write(_header((1001, 200000)))
            chunk, left = bytes(16 << 20), 1001 * 200000 * 8
            while left > 0:
                member.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
    return path


def _deep_meta(path: Path) -> Path:
    members = _members()
    text = str(np.load(io.BytesIO(members["__meta__.npy"]))[()])
    buffer = io.BytesIO()
    np.save(buffer, np.array(text + "\nv = " + "[" * 3000 + "]" * 3000 + "\n"))
    members["__meta__.npy"] = buffer.getvalue()
    return _rewrite(path, members, zipfile.ZIP_DEFLATED)


def _huge_shape(path: Path) -> Path:
    members = _members()
    members["q.npy"] = _header((10**9, 10**6)) + bytes(64)
    return _rewrite(path, members, zipfile.ZIP_DEFLATED)


_LOGS = {
    "lzma": (lambda p: _rewrite(p, _members(), zipfile.ZIP_LZMA), "lzma"),
    "bzip2": (lambda p: _rewrite(p, _members(), zipfile.ZIP_BZIP2), "bzip2"),
    "bomb": (_bomb, "needs 1.5 GiB of memory, budget 1 GiB"),
    "deep meta": (_deep_meta, "__meta__ nests deeper than 32"),
    "huge shape": (_huge_shape, "declares 8000000000000000 bytes"),
}


def _fsr(path: Path, metadata: dict[str, Any], task: Any = None) -> Path:
    streams = [numeric_stream("joints", ["q0", "q1"], ["rad", "rad"])]
    if task is not None:
        streams.append(json_stream("task", StreamKind.TASK))
    with FsrWriter(path, streams, metadata=metadata) as writer:
        for tick in range(50):
            writer.write(
                "joints", np.array([0.1 * tick, 0.2]), tick=tick, sim_time_s=tick / 100
            )
        if task is not None:
            writer.write("task", task, tick=0, sim_time_s=0.0)
    return path


_ISSUE_METADATA = {
    "run": [1, [2, [3]]],
    "task": {"targets": "nope", "tolerance_m": None},
    "duration_s": "long",
}


# --------------------------------------------------------------------- tests
@pytest.mark.parametrize("kind", sorted(_LOGS))
def test_a_hostile_skelarm_log_is_refused_with_one_line(
    tmp_path: Path, kind: str
) -> None:
    build, mention = _LOGS[kind]
    path = build(tmp_path / "hostile.sklog.npz")

    outcome = run_cli(path, "--export-channels", tmp_path / "out.csv")

    assert_refused(outcome, str(path), mention)
    assert "MemoryError" not in outcome.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_real_skelarm_log_still_exports(tmp_path: Path) -> None:
    outcome = run_cli(REACH, "--export-channels", tmp_path / "reach.csv")

    assert_succeeded(outcome)
    assert (tmp_path / "reach.csv").stat().st_size > 0


@pytest.mark.parametrize(
    "command",
    [
        ("inspect", "{file}"),
        ("{file}", "--export-channels", "{out}.csv"),
        ("{file}", "--export-frame", "0.1", "{out}.png"),
    ],
    ids=["inspect", "export-channels", "export-frame"],
)
def test_the_issues_metadata_is_refused_by_every_command(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    path = _fsr(tmp_path / "issue.fsr", _ISSUE_METADATA)
    out = tmp_path / "out"
    args = [part.format(file=path, out=out) for part in command]

    outcome = run_cli(*args)

    assert_refused(outcome, str(path), "'run' is an array, expected an object")


def test_a_malformed_task_overlay_is_refused_by_the_still_export(
    tmp_path: Path,
) -> None:
    task = {"overlay": {"kind": "reach", "targets": [{"xy": "ab"}]}}
    path = _fsr(tmp_path / "overlay.fsr", {"run": {"name": "x"}}, task=task)

    outcome = run_cli(path, "--export-frame", "0.1", tmp_path / "still.png")

    line = assert_refused(outcome, str(path), "overlay.targets[0].xy is a string")
    assert "stream 'task', record 0" in line
    assert not (tmp_path / "still.png").exists()


def test_numeric_channels_over_the_memory_budget_are_refused_with_the_numbers(
    tmp_path: Path,
) -> None:
    path = _fsr(tmp_path / "budget.fsr", {"run": {"name": "x"}})

    outcome = run_cli(
        path,
        "--export-channels",
        tmp_path / "out.csv",
        env={"FSR_VIEWER_MEMORY_BUDGET": "1KiB"},
    )

    assert_refused(
        outcome, str(path), "budget 1 KiB (raise with FSR_VIEWER_MEMORY_BUDGET="
    )


@pytest.mark.parametrize(
    ("quaternion", "k", "mention"),
    [
        ([0, 0, 0, 0], calibration_k(), "camera quaternion has norm 0"),
        (
            [0, 0, 0, 1],
            calibration_k(fx=9.0),  # disagrees with the profile's fx of 7
            "disagrees with the camera's calibration profile",
        ),
    ],
    ids=["zero quaternion", "K against profile"],
)
def test_invalid_calibration_fails_inspect_verify(
    tmp_path: Path, quaternion: list[float], k: np.ndarray | None, mention: str
) -> None:
    path = write_calibrated_camera(tmp_path / "cal.fsr", quaternion, k)

    outcome = run_cli("inspect", "--verify", path)

    line = assert_refused(outcome, str(path), mention)
    assert "record 0" in line


@pytest.mark.parametrize(
    ("text", "mention"),
    [
        ("x = " + "[" * 3000 + "]" * 3000, "scenario nests deeper than 32"),
        ("# padding\n" * 500_000, "exceeds the limit of 4194304"),
    ],
    ids=["deep", "huge"],
)
def test_a_hostile_scenario_is_refused_before_parsing(
    tmp_path: Path, text: str, mention: str
) -> None:
    scenario = tmp_path / "hostile.toml"
    scenario.write_text(text, encoding="utf-8")

    outcome = run_cli("simulate", scenario, "-o", tmp_path / "run.fsr")

    assert_refused(outcome, str(scenario), mention)
    assert not (tmp_path / "run.fsr").exists()


def _limit_descriptors_and_memory() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_a_playlist_of_200_camera_files_plays_under_128_descriptors(
    tmp_path: Path,
) -> None:
    first = tmp_path / "f000.fsr"
    write_synthetic(
        first, SyntheticRun(ticks=16, camera_every=2, width=12, height=8, codec="rgb24")
    )
    files = [first]
    for index in range(1, 200):
        copy = tmp_path / f"f{index:03d}.fsr"
        shutil.copyfile(first, copy)
        files.append(copy)
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY"}}
    env["QT_QPA_PLATFORM"] = "offscreen"
    argv = [sys.executable, "-m", "app", *map(str, files)]
    argv += ["--screenshot", str(tmp_path / "shot.png")]

    done = subprocess.run(
        argv,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_descriptors_and_memory,
        check=False,
    )

    outcome = CliOutcome(tuple(argv), done.returncode, done.stdout, done.stderr)
    assert_succeeded(outcome)
    assert "Too many open files" not in outcome.stderr
    assert (tmp_path / "shot.png").stat().st_size > 0
