"""``fsr-viewer batch``: every verb over a mixed folder, locally, as a user runs it.

Each command runs in a fresh process (``python -m app``), so what is checked
is what a user sees: the exit status, the report's lines, the progress lines
on stderr (not a terminal here), the summary, and the files left behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import av
import pytest
from batch_inputs import BROKEN, VALID, assert_summary, make_mixed_folder, read_report
from demo_recordings import record_demo_take
from hostile_e2e.cli_run import (
    TIME_LIMIT_S,
    CliOutcome,
    files_below,
    run_cli,
    start_cli,
)

from app.cli import main
from app.headless.batch.fault_injection import FAULTS_VARIABLE
from app.headless.batch.items import Verb
from app.headless.batch.plan import plan_items
from app.headless.batch.progress import BatchProgress
from fsr_core.sources import open_recording

pytestmark = pytest.mark.slow

#: Small, quick videos.
VIDEO = ("--size", "64x64", "--fps", "4")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mixed_folder(tmp_path_factory.mktemp("batch") / "mixed")


@pytest.fixture
def own_mixed(mixed: Path, tmp_path: Path) -> Path:
    """Return a copy of the mixed folder, for a test that changes it."""
    return Path(shutil.copytree(mixed, tmp_path / "mixed"))


def _batch(*args: str | Path, env: dict[str, str] | None = None) -> CliOutcome:
    outcome = run_cli("batch", *args, "--jobs", "2", env=env)
    assert "Traceback" not in outcome.stderr, outcome.describe()
    return outcome


def _batch_written(
    verb: str, inputs: Path, out: Path, *more: str, written: set[str]
) -> dict[str, dict[str, Any]]:
    """Run ``verb`` over ``inputs`` into ``out``: a broken input fails the run.

    ``out`` holds exactly the files ``written``; return the lines of the report
    (``report.jsonl`` beside ``out``).
    """
    report = out.parent / "report.jsonl"
    outcome = _batch(verb, inputs, "--out", out, "--report", report, *more)
    assert outcome.returncode == 1, outcome.describe()
    assert files_below(out) == written
    return read_report(report)


def _statuses(report: Path) -> dict[str, str]:
    return {name: line["status"] for name, line in read_report(report).items()}


def test_validate_reports_each_file_and_fails_the_run_on_a_broken_one(
    mixed: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    outcome = _batch("validate", mixed, "--report", report)

    assert outcome.returncode == 1, outcome.describe()
    lines = read_report(report)
    assert set(lines) == {*VALID, *BROKEN}
    for name in VALID:
        assert lines[name]["status"] == "ok", lines[name]
        assert lines[name]["error"] is None
    for name in BROKEN:
        assert lines[name]["status"] == "failed"
        assert lines[name]["error"].startswith(str(mixed / name) + ": ")
    reach = lines["01_reach.fsr"]
    assert reach["verb"] == "validate"
    assert (
        reach["bytes"]
        == reach["input_bytes"]
        == (mixed / "01_reach.fsr").stat().st_size
    )
    assert (
        reach["input_sha256"]
        == hashlib.sha256((mixed / "01_reach.fsr").read_bytes()).hexdigest()
    )
    assert reach["seconds"] > 0
    assert {lines[name]["source"] for name in VALID} == {
        "fsr",
        "skelarm",
        "mcap",
        "genesis",
    }
    # Not a terminal: one plain line per file, then the summary on stdout.
    progress = [line for line in outcome.stderr_lines if line.startswith("[")]
    assert len(progress) == 7
    assert any(line.startswith("[") and " failed " in line for line in progress)
    assert_summary(outcome.stdout, "validate", 7, ok=5, skipped=0, failed=2)


def test_export_writes_a_video_per_readable_file_and_resume_redoes_only_changes(
    own_mixed: Path, tmp_path: Path
) -> None:
    out, report = tmp_path / "videos", tmp_path / "report.jsonl"
    lines = _batch_written(
        "export",
        own_mixed,
        out,
        *VIDEO,
        written={
            "01_reach.mp4",
            "05_pushed.mp4",
            "truncated.mp4",  # a cut FSR file plays (and exports) what it kept
            "reach.mp4",
            "ros2.mp4",
            "v4_arm_exact.mp4",
        },
    )
    assert lines["garbage.fsr"]["status"] == "failed"  # it cannot be drawn
    # The cut file exports what recovery kept, and its line says so.
    assert lines["truncated.fsr"]["status"] == "ok"
    assert lines["truncated.fsr"]["integrity"] == "recovered"
    assert lines["truncated.fsr"]["warning"].startswith("the input is recovered")
    assert lines["01_reach.fsr"]["integrity"] == "valid"
    assert "warning" not in lines["01_reach.fsr"]
    with av.open(str(out / "01_reach.mp4")) as video:
        frames = video.streams.video[0].frames
    assert frames == lines["01_reach.fsr"]["frames"] >= 2  # 0.5 s at 4 fps
    assert lines["01_reach.fsr"]["frame_size"] == "64x64"
    before = {path.name: path.stat().st_mtime_ns for path in out.iterdir()}

    # One input changes, one is only touched: only the changed one is redone.
    changed = record_demo_take(tmp_path / "new.fsr", "05_pushed", duration_s=0.3)
    changed.replace(own_mixed / "05_pushed.fsr")
    os.utime(own_mixed / "01_reach.fsr")
    again = _batch(
        "export", own_mixed, "--out", out, "--report", report, "--resume", *VIDEO
    )

    assert again.returncode == 1, again.describe()
    assert_summary(again.stdout, "export", 7, ok=1, skipped=5, failed=1)
    statuses = _statuses(report)
    assert statuses["05_pushed.fsr"] == "ok"
    assert statuses["01_reach.fsr"] == "skipped"
    after = {path.name: path.stat().st_mtime_ns for path in out.iterdir()}
    assert after["01_reach.mp4"] == before["01_reach.mp4"]
    assert after["05_pushed.mp4"] != before["05_pushed.mp4"]
    assert set(after) == set(before)  # nothing half-written beside them


def test_without_resume_an_existing_output_is_kept_and_reported(
    mixed: Path, tmp_path: Path
) -> None:
    out = tmp_path / "videos"
    out.mkdir()
    (out / "01_reach.mp4").write_bytes(b"someone's video")
    outcome = _batch("export", mixed / "01_reach.fsr", "--out", out, *VIDEO)

    assert outcome.returncode == 1, outcome.describe()
    assert "already exists" in outcome.stderr
    assert (out / "01_reach.mp4").read_bytes() == b"someone's video"


def test_convert_writes_fsr_with_provenance_and_passes_over_fsr(
    mixed: Path, tmp_path: Path
) -> None:
    out = tmp_path / "fsr"
    written = {"reach.fsr", "ros2.fsr", "v4_arm_exact.fsr"}
    lines = _batch_written("convert", mixed, out, written=written)
    assert lines["01_reach.fsr"]["status"] == "skipped"
    assert lines["01_reach.fsr"]["output"] is None
    assert lines["garbage.fsr"]["status"] == "failed"
    for name, converted in (
        ("reach.sklog.npz", "reach.fsr"),
        ("ros2.mcap", "ros2.fsr"),
    ):
        assert lines[name]["bytes"] == (out / converted).stat().st_size
        assert open_recording(out / converted).provenance, converted


def test_resimulate_records_the_comparison_of_each_replay(
    mixed: Path, tmp_path: Path
) -> None:
    written = {"01_reach.resim.fsr", "05_pushed.resim.fsr"}
    lines = _batch_written("resimulate", mixed, tmp_path / "replays", written=written)
    reach = lines["01_reach.fsr"]["comparison"]
    assert reach["verdict"] == "exact"
    assert reach["first_divergence"] is None
    assert reach["max_error"]["q"] == 0.0
    pushed = lines["05_pushed.fsr"]["comparison"]  # the hand is not replayed
    assert pushed["verdict"] == "diverges"
    assert pushed["first_divergence"]["channel"] == "observations.arm"
    assert pushed["first_divergence"]["time_s"] == pytest.approx(0.2, abs=0.01)
    assert pushed["max_error"]["ext_force"] > 0
    assert lines["reach.sklog.npz"]["status"] == "failed"
    assert lines["ros2.mcap"]["error"].startswith(str(mixed / "logs" / "ros2.mcap"))


def test_an_index_lists_every_recording_and_validate_checks_its_digests(
    own_mixed: Path,
) -> None:
    index = own_mixed / "takes.json"
    made = _batch("index", own_mixed, "-o", index)

    assert made.returncode == 1, made.describe()  # two recordings are not valid
    document = json.loads(index.read_text())
    assert document["schema"] == "fsr-viewer-index/1"
    entries = {entry["path"]: entry for entry in document["recordings"]}
    assert set(entries) == {
        "01_reach.fsr",
        "05_pushed.fsr",
        "garbage.fsr",
        "truncated.fsr",
        "v4_arm_exact.gstraj",
        "logs/reach.sklog.npz",
        "logs/ros2.mcap",
    }
    reach = entries["01_reach.fsr"]
    data = (own_mixed / "01_reach.fsr").read_bytes()
    assert reach["sha256"] == hashlib.sha256(data).hexdigest()
    assert reach["size_bytes"] == len(data)
    assert reach["valid"] is True
    assert reach["source"] == "fsr"
    assert reach["duration_s"] == pytest.approx(0.5, abs=0.01)
    assert reach["facts"]["channels"]
    assert entries["garbage.fsr"]["valid"] is False
    assert entries["garbage.fsr"]["source"] is None
    assert entries["logs/ros2.mcap"]["source"] == "mcap"
    assert not [name for name in files_below(own_mixed) if "partial" in name]

    again = _batch("index", own_mixed, "-o", index)
    assert again.returncode == 1
    assert "never overwritten" in again.stderr
    assert json.loads(index.read_text()) == document

    with (own_mixed / "logs" / "reach.sklog.npz").open("ab") as log:
        log.write(b"!")
    report = own_mixed.parent / "check.jsonl"
    checked = _batch("validate", index, "--report", report)

    assert checked.returncode == 1
    lines = read_report(report)
    assert "changed since it was indexed" in lines["reach.sklog.npz"]["error"]
    assert lines["ros2.mcap"]["status"] == "ok"
    assert lines["01_reach.fsr"]["status"] == "ok"


def test_a_crashed_a_hung_and_a_bloated_worker_fail_their_file_alone(
    mixed: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    faults = "crash:01_reach.fsr,hang:ros2.mcap,grow:reach.sklog.npz"
    outcome = _batch(
        "validate",
        mixed,
        "--report",
        report,
        "--timeout",
        "6",
        "--memory-limit",
        "256MiB",
        env={FAULTS_VARIABLE: faults},
    )

    assert outcome.returncode == 1, outcome.describe()
    lines = read_report(report)
    assert "its worker crashed (exit code 70)" in lines["01_reach.fsr"]["error"]
    assert "timed out after 6 s (--timeout)" in lines["ros2.mcap"]["error"]
    assert "over --memory-limit 256 MiB" in lines["reach.sklog.npz"]["error"]
    for name in ("05_pushed.fsr", "v4_arm_exact.gstraj"):
        assert lines[name]["status"] == "ok"


def test_ctrl_c_stops_with_the_report_flushed_and_no_partial_output(
    mixed: Path, tmp_path: Path
) -> None:
    takes = tmp_path / "takes"
    takes.mkdir()
    for number in range(8):
        shutil.copy(mixed / "01_reach.fsr", takes / f"take_{number}.fsr")
    out, report = tmp_path / "videos", tmp_path / "report.jsonl"
    # Slowed to a quarter: 120 frames a video, so the Ctrl-C after the first
    # one always finds others being drawn, however busy the machine.
    args = ("--out", out, "--report", report, "--size", "400x400", "--fps", "60")
    args += ("--speed", "0.25")
    process = start_cli(["batch", "export", takes, *args, "--jobs", "2"])

    assert process.stderr is not None
    seen = ""
    while "[1/8]" not in seen:  # one video is done, others are being drawn
        chunk = os.read(process.stderr.fileno(), 4096).decode(errors="replace")
        assert chunk, f"ended before its first file: {seen!r}"
        seen += chunk
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=TIME_LIMIT_S)

    assert process.returncode == 130, seen + rest
    assert (seen + rest).strip().splitlines()[-1].startswith("fsr-viewer: stopped by")
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert 1 <= len(lines) < 8
    written = {Path(line["output"]).name for line in lines if line["status"] == "ok"}
    assert files_below(out) == written  # finished videos only, no partial file


def test_usage_errors_exit_2(mixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
        (["batch", "export", str(mixed)], "needs --out DIR"),
        (["batch", "validate", str(mixed), "--resume"], "--resume reads"),
        (["batch", "index", str(mixed), "-o", "x.txt"], "written as .json"),
        (["batch", "validate", str(mixed), "--address", "auto"], "--engine ray"),
    ):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        assert message in capsys.readouterr().err


def test_on_a_terminal_the_progress_is_one_live_line() -> None:
    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    progress = BatchProgress(4, stream=terminal)  # type: ignore[arg-type]
    progress.update({"status": "ok", "seconds": 0.1})
    progress.update({"status": "failed", "error": "b.fsr: bad magic", "seconds": 0.1})
    progress.close()

    assert "failed: b.fsr: bad magic\n" in terminal.text
    last = terminal.text.rstrip("\n").split("\r")[-1]
    assert "2/4 files" in last
    assert "files/s" in last
    assert "ETA" in last
    assert "1 failed" in last


def test_a_folder_is_searched_below_without_leaving_it_and_names_stay_apart(
    mixed: Path, tmp_path: Path
) -> None:
    top = tmp_path / "top"
    for folder in ("a", "b", "b/deeper"):
        (top / folder).mkdir(parents=True)
    for folder in ("a", "b/deeper"):
        shutil.copy(mixed / "logs" / "reach.sklog.npz", top / folder)
    (top / "b" / "outside").symlink_to(mixed)  # never followed
    (top / ".hidden").mkdir()
    shutil.copy(mixed / "01_reach.fsr", top / ".hidden")

    items = plan_items(Verb.CONVERT, [top, top / "a"], out_dir=tmp_path, suffix=".fsr")

    assert [item.input for item in items] == [
        top / "a" / "reach.sklog.npz",
        top / "b" / "deeper" / "reach.sklog.npz",
    ]
    assert [item.output for item in items] == [
        tmp_path / "a-reach.fsr",
        tmp_path / "deeper-reach.fsr",
    ]
    missing = plan_items(Verb.VALIDATE, [tmp_path / "nothing.fsr", top / "a" / "none"])
    assert [item.problem for item in missing] == [
        f"{tmp_path / 'nothing.fsr'}: no such file or folder",
        f"{top / 'a' / 'none'}: no such file or folder",
    ]


def test_without_ray_the_ray_engine_says_what_to_install(
    mixed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    argv = ["batch", "validate", str(mixed / "01_reach.fsr"), "--engine", "ray"]

    assert main(argv) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "fsr-viewer: --engine ray needs Ray, which is not installed: "
        "pip install 'fsr-viewer[ray]'"
    )


def test_overwrite_replaces_an_existing_output(mixed: Path, tmp_path: Path) -> None:
    out = tmp_path / "fsr"
    out.mkdir()
    (out / "reach.fsr").write_bytes(b"old")
    log = mixed / "logs" / "reach.sklog.npz"
    outcome = _batch("convert", log, "--out", out, "--overwrite")

    assert outcome.returncode == 0, outcome.describe()
    assert open_recording(out / "reach.fsr").duration_s > 0


def test_an_output_published_as_the_run_stopped_is_reported_not_lost(
    tmp_path: Path,
) -> None:
    from app.headless.batch.items import WorkItem
    from app.headless.batch.work import published_result

    output = tmp_path / "take_1.mp4"
    item = WorkItem(1, tmp_path / "take_1.fsr", output)
    handed_out_s = tmp_path.stat().st_mtime - 1.0

    assert published_result(item, handed_out_s, 1.5) is None  # nothing written
    output.write_bytes(b"\x00" * 1234)
    found = published_result(item, handed_out_s, 1.5)
    assert found is not None
    assert (found["status"], found["bytes"], found["output"]) == (
        "ok",
        1234,
        str(output),
    )
    later_s = output.stat().st_mtime + 10.0  # a file older than the hand-out
    assert published_result(item, later_s, 1.5) is None
