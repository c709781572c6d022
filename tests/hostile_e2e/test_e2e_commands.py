"""Hostile options, special files and outputs that clobber inputs, through the real CLI.

Each case runs ``python -m app`` (tests/hostile_e2e/cli_run.py) and judges what a
user sees: exit 1 with one line naming the file and the problem, no traceback,
no hang, the inputs byte-identical and nothing half-written left behind
(docs/robustness.md, Outputs and Budgets). Usage errors (a bad number in an
option) exit 2 with argparse's line naming the option.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hostile_e2e.cli_run import assert_refused, assert_succeeded, files_below, run_cli

from fsr_core.format.catalog import numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.synthetic import SyntheticRun, write_synthetic

SKELARM_LOG = Path(__file__).parents[1] / "data" / "skelarm" / "reach.sklog.npz"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """Give a folder with a small FSR recording and a skelarm log."""
    write_synthetic(tmp_path / "rec.fsr", SyntheticRun(ticks=16))
    shutil.copyfile(SKELARM_LOG, tmp_path / "log.sklog.npz")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    }


# -- class 10: an output that is its own input ------------------------------------


def _hard_link(work: Path, source: str, name: str) -> Path:
    os.link(work / source, work / name)
    return work / name


def _symlink(work: Path, source: str, name: str) -> Path:
    (work / name).symlink_to(work / source)
    return work / name


@pytest.mark.parametrize(
    ("argv", "alias"),
    [
        # today's bug: convert LOG -o LOG --overwrite replaced the log
        (["convert", "{log}", "-o", "{log}", "--overwrite"], None),
        (["convert", "{log}", "-o", "{out}", "--overwrite"], ("hard", "log")),
        (
            ["replay", "{rec}", "--mode", "render", "-o", "{out}", "--overwrite"],
            ("sym", "rec"),
        ),
        (["recover", "{rec}", "{out}"], ("hard", "rec")),
        (["{rec}", "--export-channels", "{out}", "--overwrite"], ("hard", "rec")),
        (["{rec}", "--screenshot", "{out}", "--overwrite"], ("sym", "rec")),
        (["{rec}", "--export", "{out}", "--overwrite"], ("sym", "rec")),
    ],
    ids=[
        "convert-itself",
        "convert-hardlink",
        "replay-symlink",
        "recover-hardlink",
        "channels-hardlink",
        "screenshot-symlink",
        "export-symlink",
    ],
)
def test_an_output_that_is_its_input_is_refused_even_with_overwrite(
    work: Path, argv: list[str], alias: tuple[str, str] | None
) -> None:
    names = {"rec": "rec.fsr", "log": "log.sklog.npz"}
    out = work / "log.sklog.npz"
    if alias is not None:
        kind, source = alias
        suffix = {
            "--export-channels": ".csv",
            "--screenshot": ".png",
            "--export": ".mp4",
        }.get(argv[1], ".fsr")
        make = _hard_link if kind == "hard" else _symlink
        out = make(work, names[source], f"alias{suffix}")
    before = _snapshot(work)
    words = [
        word.format(rec=work / "rec.fsr", log=work / "log.sklog.npz", out=out)
        for word in argv
    ]

    outcome = run_cli(*words)

    line = assert_refused(outcome, str(out))
    assert "the output is the input" in line or "is the source file" in line
    assert _snapshot(work) == before
    assert not any(name.startswith(".") for name in files_below(work))


# -- class 6: special files as outputs --------------------------------------------


@pytest.fixture
def specials(work: Path) -> Iterator[dict[str, Path]]:
    """Give a FIFO, a socket, a folder, a link loop and a link to /dev/full."""
    os.mkfifo(work / "fifo.fsr")
    (work / "folder.csv").mkdir()
    (work / "loop.fsr").symlink_to(work / "loop2.fsr")
    (work / "loop2.fsr").symlink_to(work / "loop.fsr")
    (work / "full.png").symlink_to("/dev/full")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(work / "sock.fsr"))
    try:
        yield {
            name: work / name
            for name in ("fifo.fsr", "folder.csv", "loop.fsr", "full.png", "sock.fsr")
        }
    finally:
        server.close()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["convert", "{log}", "-o", "{fifo.fsr}", "--overwrite"], "a FIFO"),
        (["sample", "/dev/full"], "a character device"),
        (
            ["replay", "{rec}", "--mode", "render", "-o", "{sock.fsr}", "--overwrite"],
            "a socket",
        ),
        (["{rec}", "--export-channels", "{folder.csv}", "--overwrite"], "a folder"),
        (["{rec}", "--screenshot", "{full.png}", "--overwrite"], "character device"),
        (["recover", "{rec}", "{loop.fsr}"], "symbolic link loop"),
        (["demo", "--no-gui", "--out", "{fifo.fsr}"], "demo folder"),
    ],
    ids=[
        "convert-fifo",
        "sample-dev-full",
        "replay-socket",
        "channels-folder",
        "screenshot-link-to-dev-full",
        "recover-link-loop",
        "demo-out-fifo",
    ],
)
def test_a_special_file_as_output_is_refused_at_once(
    work: Path, specials: dict[str, Path], argv: list[str], said: str
) -> None:
    paths = {"rec": work / "rec.fsr", "log": work / "log.sklog.npz", **specials}
    words = [str(paths.get(word.strip("{}"), word)) for word in argv]
    before = _snapshot(work)

    outcome = run_cli(*words)

    assert_refused(outcome, said)
    assert stat.S_ISCHR(Path("/dev/full").stat().st_mode)  # never replaced
    assert stat.S_ISFIFO(os.lstat(specials["fifo.fsr"]).st_mode)
    assert _snapshot(work) == before


def test_missing_and_read_only_output_folders_are_one_line(work: Path) -> None:
    outcome = run_cli(work / "rec.fsr", "--export", work / "gone" / "x.mp4")
    assert_refused(outcome, str(work / "gone"), "cannot open output folder")

    locked = work / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as root: permissions do not stop writes here")
        outcome = run_cli("convert", work / "log.sklog.npz", "-o", locked / "x.fsr")
        assert_refused(outcome, str(locked), "read-only")
    finally:
        locked.chmod(0o755)
    assert files_below(locked) == set()


# -- class 4: unbounded work from options and from time stamps ------------------------


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--export", "o.mp4", "--fps", "1e9"], "--fps"),
        (["--export", "o.mp4", "--fps", "nan"], "--fps"),
        (["--export", "o.gif", "--speed", "inf"], "--speed"),
        (["--export", "o.mp4", "--start", "nan"], "--start"),
        (["--export-frame", "inf", "o.png"], "--export-frame"),
    ],
)
def test_a_non_finite_or_absurd_number_is_a_usage_error(
    work: Path, extra: list[str], option: str
) -> None:
    outcome = run_cli(work / "rec.fsr", *extra, cwd=work)

    assert outcome.returncode == 2, outcome.describe()
    assert option in outcome.stderr_lines[-1], outcome.describe()
    assert "Traceback" not in outcome.stderr
    assert set(files_below(work)) == {"rec.fsr", "log.sklog.npz"}


def test_a_time_jump_of_a_billion_seconds_is_refused_by_the_frame_budget(
    tmp_path: Path,
) -> None:
    recording = tmp_path / "jump.fsr"
    with FsrWriter(recording, [numeric_stream("arm", ("q0", "q1"), "rad")]) as writer:
        for tick, time_s in enumerate((0.0, 0.01, 1e9)):
            writer.write("arm", np.array([1.0, 2.0]), tick=tick, sim_time_s=time_s)

    outcome = run_cli(recording, "--export", tmp_path / "jump.mp4", timeout_s=60)

    line = assert_refused(outcome, "30,000,000,001 frames", "FSR_VIEWER_EXPORT_FRAMES")
    assert "budget 1,000,000" in line
    assert files_below(tmp_path) == {"jump.fsr"}


def test_the_frame_budget_can_be_raised_for_one_run(work: Path) -> None:
    export = (work / "rec.fsr", "--export", work / "small.gif")
    small = ("--size", "64x64", "--fps", "5")

    outcome = run_cli(*export, *small, env={"FSR_VIEWER_EXPORT_FRAMES": "1"})
    assert_refused(outcome, "2 frames, budget 1", "FSR_VIEWER_EXPORT_FRAMES=")

    outcome = run_cli(*export, *small)
    assert_succeeded(outcome)
    assert (work / "small.gif").stat().st_size > 0
