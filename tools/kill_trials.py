"""SIGKILL a recording writer at random points and check what it leaves behind.

Each trial starts a child process that records a small deterministic program
with tiny batch limits. After every write of the staging file returns, the
child logs that write (kind, batch number, stream, record count, end offset) on
stdout; once the footer is written it logs ``sealed`` and holds before
``fsync`` and publication. The parent reads a random number of those lines,
kills the child with SIGKILL and checks (docs/robustness.md, W1, W2, goal G5):

* no file exists at the final name;
* exactly one staging file is left, and ``FsrReader.open(..., recover=True)``
  returns exactly the records of the batches whose last byte is inside it (the
  oracle is a reference run of the same program in this process, whose write
  log the child's log must match);
* ``recover_file`` turns it into a sealed file that opens strictly, is marked
  ``recovered`` and ``degraded``, and holds the same records.

Prints a table of the figures; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import selectors
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.calibration import CalibrationProfile, look_at
from fsr_core.errors import FsrError
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import (
    camera_streams,
    json_stream,
    lifecycle_stream,
    numeric_stream,
    render_state_stream,
)
from fsr_core.format.file_ops import FileOps
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import BATCH_HEADER_SIZE, BATCH_MAGIC, BatchHeader
from fsr_core.format.recovery import recover_file
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter

FINAL_NAME = "run.fsr"
LIMITS = BatchLimits(max_records=3, max_bytes=600, max_span_s=0.05)
TICKS_PER_GENERATION = 24
METADATA: dict[str, Any] = {"run": {"name": "kill-trial", "seed": 1}}
TIMEOUT_S = 60.0
SEALED = "sealed"

# Loads this file as a module in the child and runs ``child_main``.
_CHILD_BOOT = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('fsr_kill_child', sys.argv[1])\n"
    "module = importlib.util.module_from_spec(spec)\n"
    "sys.modules[spec.name] = module\n"
    "spec.loader.exec_module(module)\n"
    "raise SystemExit(module.child_main(sys.argv[2:]))\n"
)

RecordKey = tuple[int, int, int, int, float, str, bytes]


# --------------------------------------------------------------- the program
def trial_streams() -> list[StreamSpec]:
    """Streams of the trial recording: lifecycle, numeric, camera, JSON, render."""
    return [
        lifecycle_stream(),
        numeric_stream("joints", ["q0", "q1"], "rad"),
        *camera_streams("cam", width=4, height=3, codec="rgb24"),
        json_stream("events", required=False),
        render_state_stream(),
    ]


def record_program(writer: FsrWriter, ticks: int = TICKS_PER_GENERATION) -> None:
    """Write the trial's records: two generations, a calibration change, frames."""
    profiles = [
        CalibrationProfile(4, 3, 3.0, 3.0, 2.0, 1.5),
        CalibrationProfile(4, 3, 4.0, 4.0, 2.0, 1.5),
    ]
    pose = look_at([1.0, -1.0, 1.0], [0.0, 0.0, 0.0])
    cam = "sensors.cam.camera"
    writer.write("run.lifecycle", {"event": "start"}, tick=0, sim_time_s=0.0)
    for gen in (0, 1):
        if gen:
            reset = {"event": "generation_reset", "generation": gen}
            writer.write("run.lifecycle", reset, tick=0, sim_time_s=0.0, generation=gen)
        clock: dict[str, Any] = {"tick": 0, "sim_time_s": 0.0, "generation": gen}
        writer.write(f"{cam}.intrinsics", profiles[0], **clock)
        for tick in range(ticks):
            clock = {"tick": tick, "sim_time_s": tick / 100, "generation": gen}
            angle = tick / 10 + gen
            writer.write("joints", [math.sin(angle), math.cos(angle)], **clock)
            if tick == ticks // 2:
                writer.write(f"{cam}.intrinsics", profiles[1], **clock)
                writer.write("events", {"name": "calibration_changed"}, **clock)
            if tick % 2 == 0:
                image = np.full((3, 4, 3), (7 * tick + gen) % 256, dtype=np.uint8)
                image[0, 0] = (tick, gen, 1)
                writer.write(f"{cam}.rgb", image, **clock)
                writer.write(
                    f"{cam}.extrinsics.translation", pose.translation_m, **clock
                )
                writer.write(
                    f"{cam}.extrinsics.quaternion_xyzw", pose.quaternion_xyzw, **clock
                )
            if tick % 5 == 0:
                writer.write("render.state", {"q": np.array([angle, gen])}, **clock)
    done = {
        "event": "completion",
        "status": "succeeded",
        "reason_code": "RUN_COMPLETED",
    }
    end = ticks - 1
    writer.write("run.lifecycle", done, tick=end, sim_time_s=end / 100, generation=1)


# ----------------------------------------------------------- the write log
@dataclass(frozen=True)
class WriteLog:
    """One completed write of the staging file and the offset it ended at."""

    kind: str
    batch_seq: int
    stream_id: int
    records: int
    end: int

    def line(self) -> str:
        """Return the line the child prints for this write."""
        return (
            f"{self.kind} {self.batch_seq} {self.stream_id} {self.records} {self.end}"
        )

    @classmethod
    def parse(cls, line: str) -> WriteLog:
        """Inverse of :meth:`line`."""
        kind, batch_seq, stream_id, records, end = line.split()
        return cls(kind, int(batch_seq), int(stream_id), int(records), int(end))


def describe_write(data: bytes | memoryview, end: int) -> WriteLog:
    """Classify one write of the writer: header, a batch, or footer and trailer."""
    head = bytes(data[:BATCH_HEADER_SIZE])
    if head[:4] == BATCH_MAGIC:
        batch = BatchHeader.decode(head, offset=end - len(data))
        return WriteLog(
            "batch", batch.batch_seq, batch.stream_id, batch.record_count, end
        )
    kind = "header" if end == len(data) else "footer"
    return WriteLog(kind, -1, -1, 0, end)


class LoggingFileOps(FileOps):
    """FileOps that reports every completed write and may hold before ``fsync``."""

    def __init__(
        self,
        report: Callable[[WriteLog], None],
        hold_before_sync: Callable[[], None] | None = None,
    ) -> None:
        self._report = report
        self._hold = hold_before_sync
        self._end = 0

    def write(self, fd: int, data: bytes | memoryview, name: str) -> None:
        """Write, then report the write with its end offset."""
        super().write(fd, data, name)
        self._end += len(data)
        self._report(describe_write(data, self._end))

    def fsync(self, fd: int, name: str) -> None:
        """Hold (in the child: until killed) before the first sync."""
        if self._hold is not None:
            self._hold()
        super().fsync(fd, name)


def child_main(argv: Sequence[str]) -> int:
    """Child process: record the program into ``argv[0]``, never publishing it.

    After each logged write the child waits for one byte on stdin, so the
    parent decides how far it gets; at end of input it exits without publishing.
    """
    target = Path(argv[0])
    out, control = sys.stdout.fileno(), sys.stdin.fileno()

    def report(entry: WriteLog) -> None:
        os.write(out, (entry.line() + "\n").encode())
        if not os.read(control, 1):
            os._exit(3)

    def hold() -> None:
        os.write(out, (SEALED + "\n").encode())
        while os.read(control, 1):
            continue
        os._exit(3)

    ops = LoggingFileOps(report, hold)
    writer = FsrWriter(
        target, trial_streams(), metadata=METADATA, batch_limits=LIMITS, file_ops=ops
    )
    with writer:
        record_program(writer)
    return 4  # not reached: hold() never returns


# --------------------------------------------------------------- the oracle
def record_key(record: Any) -> RecordKey:
    """Return what must survive a crash unchanged: clocks, metadata, payload."""
    return (
        record.stream_seq,
        record.capture_seq,
        record.generation,
        record.tick,
        record.sim_time_s,
        json.dumps(record.metadata, sort_keys=True),
        bytes(record.payload),
    )


def records_by_stream(reader: FsrReader) -> dict[str, list[RecordKey]]:
    """Every record of every stream, in stream order."""
    return {
        name: [record_key(r) for r in reader.iter_records(name)]
        for name in reader.streams
    }


@dataclass(frozen=True)
class Reference:
    """The program run to completion in this process: its write log and records."""

    writes: tuple[WriteLog, ...]
    records: dict[str, list[RecordKey]]
    size: int

    @property
    def lines(self) -> int:
        """How many lines a child prints when it is never killed."""
        return len(self.writes) + 1

    def expected(self, size: int) -> dict[str, list[RecordKey]]:
        """Return the records of the batches that end within ``size`` bytes."""
        counts = dict.fromkeys(self.records, 0)
        names = list(self.records)
        for entry in self.writes:
            if entry.kind == "batch" and entry.end <= size:
                counts[names[entry.stream_id]] += entry.records
        return {name: rows[: counts[name]] for name, rows in self.records.items()}


def build_reference(directory: Path) -> Reference:
    """Run the program to completion in ``directory``, logging every write."""
    log: list[WriteLog] = []
    path = directory / "reference.fsr"
    writer = FsrWriter(
        path,
        trial_streams(),
        metadata=METADATA,
        batch_limits=LIMITS,
        file_ops=LoggingFileOps(log.append),
    )
    with writer:
        record_program(writer)
    with FsrReader.open(path) as reader:
        records = records_by_stream(reader)
    return Reference(tuple(log), records, path.stat().st_size)


# ---------------------------------------------------------------- one trial
@dataclass(frozen=True)
class TrialOutcome:
    """What one SIGKILL trial left behind and what was wrong with it."""

    kill_after: int
    lines_logged: int
    staging_bytes: int
    batches_on_disk: int
    records_expected: int
    records_recovered: int
    final_exists: bool
    torn_write: bool
    sealed: bool
    problems: tuple[str, ...]

    @property
    def exact(self) -> bool:
        """Recovery returned exactly the expected records and nothing was wrong."""
        return not self.problems and not self.final_exists


def _pace_child(
    child: subprocess.Popen[bytes], kill_after: int, race: bool
) -> list[str]:
    """Let the child log ``kill_after`` lines, then SIGKILL it; return the lines.

    Each line is acknowledged with one byte on the child's stdin. With ``race``
    the last line is acknowledged too, so the child runs on while the signal is
    on its way and the kill lands at an unplanned point, maybe inside a write.
    """
    assert child.stdin is not None
    assert child.stdout is not None
    out = child.stdout.fileno()
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(out, selectors.EVENT_READ)
        while buffer.count(b"\n") < kill_after:
            if not selector.select(TIMEOUT_S):
                raise TimeoutError(f"the child logged nothing for {TIMEOUT_S} s")
            chunk = os.read(out, 65536)
            if not chunk:
                break
            buffer += chunk
            lines = buffer.count(b"\n")
            if lines < kill_after or race:
                try:
                    child.stdin.write(b"." * chunk.count(b"\n"))
                    child.stdin.flush()
                except BrokenPipeError:  # the child died; run_trial reports how
                    break
    child.kill()
    return buffer.decode().splitlines()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@dataclass(frozen=True)
class KilledChild:
    """What a SIGKILLed writer child printed and how it ended."""

    lines: list[str]
    returncode: int
    stderr: str

    @property
    def writes(self) -> list[WriteLog]:
        """The writes the child logged as complete before it died."""
        return [WriteLog.parse(line) for line in self.lines if line != SEALED]


def kill_child(directory: Path, kill_after: int, *, race: bool = True) -> KilledChild:
    """Record into ``directory/run.fsr`` in a child, SIGKILL it after N log lines."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / FINAL_NAME
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD_BOOT, str(Path(__file__).resolve()), str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_child_env(),
    )
    try:
        lines = _pace_child(child, kill_after, race)
    finally:
        child.kill()
        rest, errors = child.communicate(timeout=TIMEOUT_S)
    return KilledChild(
        [*lines, *rest.decode().splitlines()], child.returncode, errors.decode()
    )


def run_trial(
    directory: Path, kill_after: int, reference: Reference, *, race: bool = True
) -> TrialOutcome:
    """Run :func:`kill_child` in ``directory`` and check everything it left."""
    killed = kill_child(directory, kill_after, race=race)
    problems: list[str] = []
    if killed.returncode != -signal.SIGKILL:
        problems.append(f"child ended with {killed.returncode}: {killed.stderr[-300:]}")
    return _check_leftovers(directory, kill_after, killed.lines, reference, problems)


def _check_leftovers(
    directory: Path,
    kill_after: int,
    lines: list[str],
    reference: Reference,
    problems: list[str],
) -> TrialOutcome:
    logged = [WriteLog.parse(line) for line in lines if line != SEALED]
    if logged != list(reference.writes[: len(logged)]):
        problems.append("the child's write log differs from the reference run")
    final_exists = os.path.lexists(directory / FINAL_NAME)
    stagings = sorted(directory.glob(f".{FINAL_NAME}.*.fsr-staging"))
    if len(stagings) != 1:
        problems.append(f"{len(stagings)} staging files left, expected 1")
        return TrialOutcome(
            kill_after,
            len(lines),
            0,
            0,
            0,
            -1,
            final_exists,
            False,
            False,
            tuple(problems),
        )
    staging = stagings[0]
    size = staging.stat().st_size
    if logged and logged[-1].end > size:
        problems.append(
            f"logged write ending at {logged[-1].end} is not in the file ({size} bytes)"
        )
    expected = reference.expected(size)
    got = _recovered_records(staging, size == reference.size, problems)
    if got is not None and got != expected:
        problems.append("recover=True did not return exactly the batches on disk")
    _check_sealed_copy(staging, directory / "recovered.fsr", expected, problems)
    ends = {entry.end for entry in reference.writes}
    return TrialOutcome(
        kill_after=kill_after,
        lines_logged=len(lines),
        staging_bytes=size,
        batches_on_disk=sum(
            1 for e in reference.writes if e.kind == "batch" and e.end <= size
        ),
        records_expected=sum(len(rows) for rows in expected.values()),
        records_recovered=-1
        if got is None
        else sum(len(rows) for rows in got.values()),
        final_exists=final_exists,
        torn_write=size not in ends,
        sealed=size == reference.size,
        problems=tuple(problems),
    )


def _recovered_records(
    staging: Path, complete: bool, problems: list[str]
) -> dict[str, list[RecordKey]] | None:
    try:
        if complete:  # W2: killed after the trailer, before publication
            with FsrReader.open(staging) as strict:
                if strict.verify():
                    problems.append("the complete staging file fails verify()")
        with FsrReader.open(staging, recover=True) as reader:
            if reader.verify():
                problems.append("a recovered record fails verify()")
            return records_by_stream(reader)
    except FsrError as exc:
        problems.append(f"opening the staging file failed: {exc}")
        return None


def _check_sealed_copy(
    staging: Path,
    output: Path,
    expected: dict[str, list[RecordKey]],
    problems: list[str],
) -> None:
    try:
        recover_file(staging, output)
        with FsrReader.open(output) as sealed:
            footer = sealed.footer
            if footer is None or footer.recovered is None or not footer.degraded:
                problems.append(
                    "the recovered copy is not marked recovered and degraded"
                )
            if sealed.verify():
                problems.append("the recovered copy fails verify()")
            copied = records_by_stream(sealed)
    except FsrError as exc:
        problems.append(f"recover_file failed: {exc}")
        return
    if _without_capture(copied) != _without_capture(expected):
        problems.append("the recovered copy's records differ from the staging file's")


def _without_capture(
    records: dict[str, list[RecordKey]],
) -> dict[str, list[tuple[Any, ...]]]:
    """Drop capture sequence numbers (a copy renumbers them densely)."""
    return {name: [(r[0], *r[2:]) for r in rows] for name, rows in records.items()}


# ---------------------------------------------------------------------- CLI
def kill_points(trials: int, lines: int, seed: int) -> list[int]:
    """``trials`` kill points in ``1..lines``: both extremes first, then random."""
    rng = random.Random(seed)
    fixed = [1, lines][:trials]
    return fixed + [rng.randint(1, lines) for _ in range(trials - len(fixed))]


def run_trials(
    root: Path, trials: int, seed: int, jobs: int
) -> tuple[Reference, list[TrialOutcome]]:
    """Build the reference in ``root``, then run ``trials`` trials below it."""
    reference = build_reference(root)
    points = kill_points(trials, reference.lines, seed)

    def one(item: tuple[int, int]) -> TrialOutcome:
        index, kill_after = item
        directory = root / f"trial-{index:04d}"
        return run_trial(directory, kill_after, reference, race=index % 2 == 1)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(one, enumerate(points)))
    return reference, outcomes


def figures(outcomes: Sequence[TrialOutcome]) -> dict[str, int]:
    """Return the table: found files and mismatches must be 0, exact == trials."""
    return {
        "trials": len(outcomes),
        "final-named files found": sum(o.final_exists for o in outcomes),
        "staging files recovered exactly": sum(o.exact for o in outcomes),
        "mismatches": sum(bool(o.problems) for o in outcomes),
        "kills inside a write (torn batch)": sum(o.torn_write for o in outcomes),
        "kills after the trailer (W2)": sum(o.sealed for o in outcomes),
        "records recovered (total)": sum(max(o.records_recovered, 0) for o in outcomes),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the trials and print the table; return 1 on any violation."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "-n", "--trials", type=int, default=200, help="SIGKILL trials (default 200)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill points")
    parser.add_argument(
        "-j", "--jobs", type=int, default=2, help="trials run at once (default 2)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list every problem found"
    )
    args = parser.parse_args(argv)
    if args.trials < 1 or args.jobs < 1:
        parser.error("--trials and --jobs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="fsr-kill-") as work:
        try:
            reference, outcomes = run_trials(
                Path(work), args.trials, args.seed, args.jobs
            )
        except (FsrError, OSError, TimeoutError) as exc:
            print(f"kill_trials: {exc}", file=sys.stderr)
            return 1
    table = figures(outcomes)
    if args.json:
        print(json.dumps({**table, "writes_per_run": len(reference.writes)}))
    else:
        width = max(len(name) for name in table)
        for name, value in table.items():
            print(f"{name:<{width}}  {value:>6}")
    if args.verbose:
        for index, outcome in enumerate(outcomes):
            for problem in outcome.problems:
                where = f"trial {index} (killed after {outcome.kill_after} lines)"
                print(f"{where}: {problem}")
    violation = table["final-named files found"] or table["mismatches"]
    return 1 if violation else 0


if __name__ == "__main__":
    raise SystemExit(main())
