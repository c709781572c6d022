"""Crash recovery: SIGKILLed writers (docs/robustness.md, W1, W2, G5), recover_file.

The child writer and the oracle live in ``tools/kill_trials.py`` (which runs 200
trials); here ten kill points spread over the whole write keep the suite fast.
The oracle is a reference run of the same deterministic program in this
process: after a kill, recovery must return exactly the records of the
batches whose last byte is inside the staging file.
"""

from __future__ import annotations

import hashlib
import json
import signal
from pathlib import Path
from typing import Any

import pytest
from tool_scripts import load_tool

from fsr_core.errors import FsrError, TargetExistsError
from fsr_core.format.reader import FsrReader
from fsr_core.format.recovery import recover_file

kill_trials = load_tool("kill_trials")
KILL_FRACTIONS = [0.0, 0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.97, 1.0]


@pytest.fixture(scope="module")
def reference_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reference")


@pytest.fixture(scope="module")
def reference(reference_dir: Path) -> Any:
    """Run the trial program to completion here: write log, records, file size."""
    return kill_trials.build_reference(reference_dir)


@pytest.fixture(scope="module")
def reference_bytes(reference: Any, reference_dir: Path) -> bytes:
    """Return the sealed reference file: each proper prefix is a crash leftover."""
    data = (reference_dir / "reference.fsr").read_bytes()
    assert len(data) == reference.size
    return data


def records_of(path: Path, *, recover: bool) -> dict[str, list[tuple[Any, ...]]]:
    with FsrReader.open(path, recover=recover) as reader:
        assert reader.verify() == []
        return kill_trials.records_by_stream(reader)


def without_capture(records: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[Any]]:
    return {name: [(r[0], *r[2:]) for r in rows] for name, rows in records.items()}


def staging_files(directory: Path, name: str) -> list[Path]:
    return sorted(directory.glob(f".{name}.*.fsr-staging"))


# ----------------------------------------------------------- SIGKILL trials
@pytest.mark.parametrize(
    ("fraction", "race"),
    [(f, i % 2 == 1) for i, f in enumerate(KILL_FRACTIONS)],
    ids=[f"kill-at-{f:.2f}" for f in KILL_FRACTIONS],
)
def test_sigkilled_writer_leaves_a_staging_file_with_exactly_its_complete_batches(
    tmp_path: Path, reference: Any, fraction: float, race: bool
) -> None:
    kill_after = 1 + round(fraction * (reference.lines - 1))

    killed = kill_trials.kill_child(tmp_path, kill_after, race=race)

    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not (tmp_path / kill_trials.FINAL_NAME).exists()
    stagings = staging_files(tmp_path, kill_trials.FINAL_NAME)
    assert len(stagings) == 1
    size = stagings[0].stat().st_size
    logged = killed.writes
    assert len(killed.lines) >= kill_after
    assert logged == list(reference.writes[: len(logged)])
    assert all(entry.end <= size for entry in logged)
    expected = reference.expected(size)
    assert records_of(stagings[0], recover=True) == expected


def test_writer_killed_after_its_trailer_leaves_a_strictly_valid_staging_file(
    tmp_path: Path, reference: Any
) -> None:
    killed = kill_trials.kill_child(tmp_path, reference.lines, race=False)

    assert killed.lines[-1] == kill_trials.SEALED
    assert not (tmp_path / kill_trials.FINAL_NAME).exists()
    (staging,) = staging_files(tmp_path, kill_trials.FINAL_NAME)
    assert staging.stat().st_size == reference.size
    assert records_of(staging, recover=False) == reference.records


@pytest.mark.parametrize("fraction", [0.0, 0.5, 1.0])
def test_recover_file_seals_a_killed_writers_staging_file(
    tmp_path: Path, reference: Any, fraction: float
) -> None:
    kill_after = 1 + round(fraction * (reference.lines - 1))
    kill_trials.kill_child(tmp_path / "run", kill_after, race=False)
    (staging,) = staging_files(tmp_path / "run", kill_trials.FINAL_NAME)
    expected = reference.expected(staging.stat().st_size)
    output = tmp_path / "recovered.fsr"

    report = recover_file(staging, output)

    with FsrReader.open(output) as sealed:
        assert not sealed.recovered
        assert sealed.footer is not None
        assert sealed.footer.recovered is not None
        assert sealed.footer.recovered["records_kept"] == report.records_kept
        assert sealed.footer.degraded is True
        assert sealed.verify() == []
        copied = kill_trials.records_by_stream(sealed)
    assert without_capture(copied) == without_capture(expected)
    assert report.records_kept == sum(len(rows) for rows in expected.values())
    assert report.was_damaged == (fraction < 1.0)


def test_the_oracle_notices_a_recovery_that_lost_a_record(
    tmp_path: Path, reference: Any
) -> None:
    records = {name: list(rows) for name, rows in reference.records.items()}
    records["joints"] = records["joints"][1:]
    wrong = kill_trials.Reference(reference.writes, records, reference.size)

    outcome = kill_trials.run_trial(tmp_path, reference.lines, wrong, race=False)

    assert not outcome.exact
    assert any("exactly" in problem for problem in outcome.problems)


def test_kill_trials_tool_reports_zero_violations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = kill_trials.main(["--trials", "4", "--json"])

    figures = json.loads(capsys.readouterr().out)
    assert status == 0
    assert figures["trials"] == 4
    assert figures["final-named files found"] == 0
    assert figures["staging files recovered exactly"] == 4
    assert figures["mismatches"] == 0


# ----------------------------------------------------- truncated prefixes
def cut_points(reference: Any) -> list[int]:
    """Every write boundary of the reference run, and one byte either side."""
    ends = [entry.end for entry in reference.writes]
    points = {p for end in ends for p in (end - 1, end, end + 1)}
    return sorted(p for p in points if ends[0] <= p < reference.size)


def test_every_truncation_at_or_next_to_a_batch_boundary_recovers_exactly(
    tmp_path: Path, reference: Any, reference_bytes: bytes
) -> None:
    mismatches = []
    copy = tmp_path / "cut.fsr"

    for cut in cut_points(reference):
        copy.write_bytes(reference_bytes[:cut])
        with FsrReader.open(copy, recover=True) as reader:
            got = kill_trials.records_by_stream(reader)
            flagged = reader.recovered
        if got != reference.expected(cut) or not flagged:
            mismatches.append(cut)

    assert len(cut_points(reference)) > 100
    assert mismatches == []


# ---------------------------------------------------------- recover_file
def test_recovering_an_intact_file_copies_it_record_by_record(
    tmp_path: Path, small_recording: Path
) -> None:
    output = tmp_path / "copy.fsr"

    report = recover_file(small_recording, output)

    with FsrReader.open(small_recording) as original, FsrReader.open(output) as copy:
        assert kill_trials.records_by_stream(copy) == kill_trials.records_by_stream(
            original
        )
        assert copy.metadata == original.metadata
        assert copy.calibration_epochs() == original.calibration_epochs()
        assert original.footer is not None
        assert copy.footer is not None
        assert copy.footer.gaps == original.footer.gaps
        assert copy.footer.recovered is not None
        assert copy.footer.recovered["source_sha256"] == original.file_sha256
        assert copy.footer.degraded is True
        assert report.records_kept == copy.record_count == original.record_count
    assert not report.was_damaged
    assert report.trusted_bytes == report.source_bytes == small_recording.stat().st_size


def test_recovering_a_file_without_index_keeps_every_record(
    tmp_path: Path, small_recording: Path, recording_without_index: Path
) -> None:
    output = tmp_path / "recovered.fsr"

    report = recover_file(recording_without_index, output)

    assert report.was_damaged
    assert without_capture(records_of(output, recover=False)) == without_capture(
        records_of(small_recording, recover=False)
    )


@pytest.mark.parametrize("spelling", ["same", "dot-segment", "relative"])
def test_recover_file_refuses_an_output_that_is_its_input(
    tmp_path: Path,
    small_recording: Path,
    spelling: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(small_recording.parent)
    output = {
        "same": small_recording,
        "dot-segment": small_recording.parent / "." / small_recording.name,
        "relative": Path(small_recording.name),
    }[spelling]
    before = hashlib.sha256(small_recording.read_bytes()).hexdigest()

    with pytest.raises(FsrError, match="differ"):
        recover_file(small_recording, output)

    assert hashlib.sha256(small_recording.read_bytes()).hexdigest() == before


def test_recover_file_never_overwrites_an_existing_output(
    tmp_path: Path, small_recording: Path
) -> None:
    output = tmp_path / "taken.fsr"
    output.write_bytes(b"someone else's file")

    with pytest.raises(TargetExistsError):
        recover_file(small_recording, output)

    assert output.read_bytes() == b"someone else's file"
    assert staging_files(tmp_path, output.name) == []


def test_recover_file_of_a_file_with_nothing_trustworthy_writes_nothing(
    tmp_path: Path,
) -> None:
    damaged = tmp_path / "damaged.fsr"
    damaged.write_bytes(b"\x89FSR\r\n\x1a\n" + bytes(200))
    output = tmp_path / "out.fsr"

    with pytest.raises(FsrError):
        recover_file(damaged, output)

    assert not output.exists()
    assert staging_files(tmp_path, output.name) == []


def test_a_rarely_recording_stream_survives_a_crash_long_after_its_record(
    tmp_path: Path,
) -> None:
    """The task, written once at the start, is on disk within a batch span."""
    import numpy as np

    from fsr_core.format.catalog import json_stream, numeric_stream
    from fsr_core.format.writer import FsrWriter

    path = tmp_path / "long.fsr"
    specs = [numeric_stream("arm", ["q"]), json_stream("task.context")]
    with FsrWriter(path, specs) as writer:
        writer.write("task.context", {"kind": "reach"}, tick=0, sim_time_s=0.0)
        for tick in range(1000):  # 5 s at 200 Hz
            time_s = tick / 200
            writer.write("arm", np.array([time_s]), tick=tick, sim_time_s=time_s)
    crashed = tmp_path / "crashed.fsr"
    crashed.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    with FsrReader.open(crashed, recover=True) as reader:
        assert [r.decoded for r in reader.iter_records("task.context")] == [
            {"kind": "reach"}
        ]
        assert reader.rows("arm")["sim_time_s"][-1] > 1.0
