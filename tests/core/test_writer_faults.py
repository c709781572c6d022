"""Writer crash consistency under injected faults (docs/robustness.md, W4-W13, G7).

A ``FileOps`` shim fails the Nth I/O call for every N over a small recording;
other tests race the target name, interrupt the block, fail ``fsync``, hit a
real ``RLIMIT_FSIZE`` in a child process and take the no-hard-link fallback.
After every failure: no final-named file, nothing overwritten, no staging file
(unless ``keep_partial``), no leaked descriptor, and an ``FsrError``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.calibration import CalibrationProfile
from fsr_core.errors import FsrError, TargetExistsError, WriteFailedError
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import camera_streams, json_stream, numeric_stream
from fsr_core.format.file_ops import FileOps
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import BATCH_HEADER_SIZE, BATCH_MAGIC, BatchHeader
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter, PublishResult

NAME = "out.fsr"
LIMITS = BatchLimits(max_records=2)
PROFILE = CalibrationProfile(4, 3, 3.0, 3.0, 2.0, 1.5)
COUNTED = ("open_dir", "exists", "create", "write", "fsync", "link")


def fault_streams() -> list[StreamSpec]:
    return [
        numeric_stream("joints", ["q0", "q1"]),
        *camera_streams("cam", width=4, height=3, codec="png"),
        json_stream("events"),
    ]


def record_program(writer: FsrWriter, ticks: int = 100) -> None:
    writer.write("sensors.cam.camera.intrinsics", PROFILE, tick=0, sim_time_s=0.0)
    for tick in range(ticks):
        clock: dict[str, Any] = {"tick": tick, "sim_time_s": tick / 10}
        writer.write("joints", [float(tick), -float(tick)], **clock)
        if tick % 3 == 0:
            image = np.full((3, 4, 3), 20 * tick % 256, dtype=np.uint8)
            writer.write("sensors.cam.camera.rgb", image, **clock)
        if tick % 4 == 0:
            writer.write("events", {"tick": tick}, **clock)


def write_recording(
    path: Path, file_ops: FileOps | None = None, **options: Any
) -> PublishResult:
    writer = FsrWriter(
        path, fault_streams(), batch_limits=LIMITS, file_ops=file_ops, **options
    )
    with writer:
        record_program(writer)
    return writer.finish()


def record_keys(reader: FsrReader) -> dict[str, list[tuple[Any, ...]]]:
    return {
        name: [
            (r.stream_seq, r.generation, r.tick, r.sim_time_s, r.metadata, r.payload)
            for r in reader.iter_records(name)
        ]
        for name in reader.streams
    }


def open_descriptors() -> set[str]:
    return {entry.name for entry in Path("/proc/self/fd").iterdir()}


def staging_files(directory: Path, name: str = NAME) -> list[Path]:
    return sorted(directory.glob(f".{name}.*.fsr-staging"))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class FailingFileOps(FileOps):
    """Fails the ``fail_at``-th counted I/O call with ``WriteFailedError(code)``.

    Logs every counted call and, for each successful write, the batch it held
    (stream id and record count; ``None`` for header and footer writes).
    """

    def __init__(self, fail_at: int | None = None, code: int = errno.EIO) -> None:
        self.fail_at = fail_at
        self.code = code
        self.calls: list[str] = []
        self.batches_written: list[tuple[int, int] | None] = []

    def _count(self, name: str) -> None:
        self.calls.append(name)
        if len(self.calls) == self.fail_at:
            raise WriteFailedError(
                f"injected {os.strerror(self.code)}", errno=self.code, path=name
            )

    def open_dir(self, path: str) -> int:
        self._count("open_dir")
        return super().open_dir(path)

    def exists(self, name: str, dir_fd: int) -> bool:
        self._count("exists")
        return super().exists(name, dir_fd)

    def create(self, name: str, dir_fd: int) -> int:
        self._count("create")
        return super().create(name, dir_fd)

    def write(self, fd: int, data: bytes | memoryview, name: str) -> None:
        self._count("write")
        super().write(fd, data, name)
        head = bytes(data[:BATCH_HEADER_SIZE])
        if head[:4] == BATCH_MAGIC:
            batch = BatchHeader.decode(head, offset=0)
            self.batches_written.append((batch.stream_id, batch.record_count))
        else:
            self.batches_written.append(None)

    def fsync(self, fd: int, name: str) -> None:
        self._count("fsync")
        super().fsync(fd, name)

    def link(self, source: str, target: str, dir_fd: int) -> bool:
        self._count("link")
        return super().link(source, target, dir_fd)


@pytest.fixture(scope="module")
def clean_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[str], dict[str, list[tuple[Any, ...]]]]:
    """Return the counted calls of a successful run and the records it published."""
    path = tmp_path_factory.mktemp("clean") / NAME
    ops = FailingFileOps()
    write_recording(path, ops)
    with FsrReader.open(path) as reader:
        return ops.calls, record_keys(reader)


# ------------------------------------------------------------ fail at N
def expected_prefix(
    ops: FailingFileOps, reference: dict[str, list[tuple[Any, ...]]]
) -> dict[str, list[tuple[Any, ...]]]:
    """Return the records of the batches written before the fault."""
    names = list(reference)
    counts = dict.fromkeys(names, 0)
    for batch in ops.batches_written:
        if batch is not None:
            counts[names[batch[0]]] += batch[1]
    return {name: rows[: counts[name]] for name, rows in reference.items()}


def check_leftover(
    directory: Path,
    ops: FailingFileOps,
    reference: dict[str, list[tuple[Any, ...]]],
    *,
    keep_partial: bool,
) -> list[str]:
    """List what is wrong with what a failed write left in ``directory``."""
    stagings = staging_files(directory)
    if not keep_partial:
        leftovers = sorted(p.name for p in directory.iterdir())
        return [f"left {leftovers}"] if leftovers else []
    if "create" not in ops.calls[:-1]:
        return [f"staging left before it was created: {stagings}"] if stagings else []
    if len(stagings) != 1:
        return [f"keep_partial left {len(stagings)} staging files"]
    if ops.batches_written == []:
        return []  # failed on the header write: nothing to recover
    with FsrReader.open(stagings[0], recover=True) as reader:
        if reader.verify():
            return ["the kept staging file has records failing verify()"]
        if record_keys(reader) != expected_prefix(ops, reference):
            return ["the kept staging file does not hold exactly the written batches"]
    return []


@pytest.mark.parametrize(
    ("code", "keep_partial"),
    [
        (errno.ENOSPC, False),
        (errno.EIO, False),
        (errno.EDQUOT, False),
        (errno.EIO, True),
    ],
    ids=["ENOSPC", "EIO", "EDQUOT", "EIO-keep-partial"],
)
def test_failing_any_io_call_never_publishes_and_cleans_up(
    tmp_path: Path,
    clean_run: tuple[list[str], dict[str, list[tuple[Any, ...]]]],
    code: int,
    keep_partial: bool,
) -> None:
    calls, reference = clean_run
    violations: list[str] = []

    for fail_at in range(1, len(calls) + 1):
        directory = tmp_path / f"fail-{fail_at:03d}"
        directory.mkdir()
        ops = FailingFileOps(fail_at, code)
        before = open_descriptors()
        try:
            write_recording(directory / NAME, ops, keep_partial=keep_partial)
        except FsrError as exc:
            if not isinstance(exc, WriteFailedError) or exc.errno != code:
                violations.append(f"call {fail_at}: raised {exc!r}")
        else:
            violations.append(f"call {fail_at} ({calls[fail_at - 1]}): no error")
        where = f"call {fail_at} ({calls[fail_at - 1]})"
        if (directory / NAME).exists():
            violations.append(f"{where}: final file exists")
        if open_descriptors() != before:
            violations.append(f"{where}: descriptors leaked")
        problems = check_leftover(directory, ops, reference, keep_partial=keep_partial)
        violations += [f"{where}: {problem}" for problem in problems]

    assert set(calls) == set(COUNTED)
    assert len(calls) > 15
    assert violations == []


def test_failing_the_directory_sync_withdraws_the_published_name(
    tmp_path: Path, clean_run: tuple[list[str], dict[str, list[tuple[Any, ...]]]]
) -> None:
    calls, _ = clean_run
    assert calls[-2:] == ["link", "fsync"]
    ops = FailingFileOps(len(calls), errno.EIO)

    with pytest.raises(WriteFailedError):
        write_recording(tmp_path / NAME, ops)

    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------- target races
def record_while_the_target_appears(target: Path, content: bytes) -> None:
    """Record; another program creates ``target`` before the block ends."""
    with FsrWriter(target, fault_streams(), batch_limits=LIMITS) as writer:
        record_program(writer)
        target.write_bytes(content)


def test_an_existing_target_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    target = tmp_path / NAME
    target.write_bytes(b"precious")
    before = sha256_of(target)

    with pytest.raises(TargetExistsError):
        write_recording(target)

    assert sha256_of(target) == before
    assert staging_files(tmp_path) == []


def test_a_dangling_symlink_at_the_target_counts_as_existing(tmp_path: Path) -> None:
    target = tmp_path / NAME
    target.symlink_to(tmp_path / "nowhere.fsr")

    with pytest.raises(TargetExistsError):
        write_recording(target)

    assert target.is_symlink()
    assert not (tmp_path / "nowhere.fsr").exists()


@pytest.mark.parametrize("hard_links", [True, False], ids=["link", "copy-fallback"])
def test_a_target_appearing_during_the_write_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hard_links: bool
) -> None:
    if not hard_links:
        monkeypatch.setattr(os, "link", refuse_link)
    target = tmp_path / NAME
    before = open_descriptors()

    with pytest.raises(TargetExistsError):
        record_while_the_target_appears(target, b"arrived meanwhile")

    assert target.read_bytes() == b"arrived meanwhile"
    assert staging_files(tmp_path) == []
    assert open_descriptors() == before


def test_two_writers_racing_for_one_name_publish_exactly_one(tmp_path: Path) -> None:
    target = tmp_path / NAME
    both_staged = threading.Barrier(2, timeout=30)
    outcomes: dict[int, PublishResult | BaseException] = {}

    def record(worker: int) -> None:
        try:
            with FsrWriter(target, fault_streams(), batch_limits=LIMITS) as writer:
                record_program(writer, ticks=6 + worker)
                both_staged.wait()
            outcomes[worker] = writer.finish()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcomes[worker] = exc

    threads = [threading.Thread(target=record, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    winners = [w for w, o in outcomes.items() if isinstance(o, PublishResult)]
    losers = [o for o in outcomes.values() if not isinstance(o, PublishResult)]
    assert len(winners) == 1
    assert len(losers) == 1
    assert isinstance(losers[0], TargetExistsError)
    with FsrReader.open(target) as reader:
        assert reader.streams["joints"].record_count == 6 + winners[0]
    assert staging_files(tmp_path) == []


# --------------------------------------------------- interrupted blocks
def record_until_interrupted(
    target: Path, error: type[BaseException], *, keep_partial: bool
) -> None:
    """Record, then raise ``error`` inside the writer's block (Ctrl-C, a bug)."""
    with FsrWriter(
        target, fault_streams(), batch_limits=LIMITS, keep_partial=keep_partial
    ) as writer:
        record_program(writer)
        raise error("interrupted by the user")


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
@pytest.mark.parametrize("keep_partial", [False, True])
def test_an_exception_in_the_block_aborts_and_propagates(
    tmp_path: Path, error: type[BaseException], keep_partial: bool
) -> None:
    target = tmp_path / NAME
    before = open_descriptors()

    with pytest.raises(error):
        record_until_interrupted(target, error, keep_partial=keep_partial)

    assert not target.exists()
    assert len(staging_files(tmp_path)) == (1 if keep_partial else 0)
    assert open_descriptors() == before
    alive = {t.name for t in threading.enumerate()}
    assert not any(name.startswith("fsr-") for name in alive)


def test_a_kept_partial_file_after_an_interruption_is_recoverable(
    tmp_path: Path,
) -> None:
    target = tmp_path / NAME

    with pytest.raises(KeyboardInterrupt):
        record_until_interrupted(target, KeyboardInterrupt, keep_partial=True)

    (staging,) = staging_files(tmp_path)
    with FsrReader.open(staging, recover=True) as reader:
        assert reader.recovered
        assert reader.record_count > 0
        assert reader.verify() == []


def test_the_staging_file_lives_next_to_the_final_name(tmp_path: Path) -> None:
    target = tmp_path / NAME

    with FsrWriter(target, fault_streams(), batch_limits=LIMITS) as writer:
        staging = writer.staging_path
        record_program(writer)
        assert staging is not None
        assert staging.exists()

    assert staging.parent == target.parent  # so publishing can never be EXDEV
    assert staging.name.startswith(f".{NAME}.")
    assert not staging.exists()


def test_a_directory_swapped_during_the_write_cannot_redirect_the_publish(
    tmp_path: Path,
) -> None:
    original = tmp_path / "runs"
    original.mkdir()
    moved = tmp_path / "moved"

    with FsrWriter(original / NAME, fault_streams(), batch_limits=LIMITS) as writer:
        record_program(writer)
        original.rename(moved)
        original.mkdir()

    assert list(original.iterdir()) == []
    assert [p.name for p in moved.iterdir()] == [NAME]


# --------------------------------------------------------------- fsync
class FailingSync(FileOps):
    def __init__(self) -> None:
        self.syncs = 0
        self.links = 0

    def fsync(self, fd: int, name: str) -> None:
        self.syncs += 1
        raise WriteFailedError("fsync failed: Input/output error", errno=errno.EIO)

    def link(self, source: str, target: str, dir_fd: int) -> bool:
        self.links += 1
        return super().link(source, target, dir_fd)


def test_a_failed_fsync_is_fatal_and_never_retried_into_a_publish(
    tmp_path: Path,
) -> None:
    ops = FailingSync()

    with pytest.raises(WriteFailedError) as caught:
        write_recording(tmp_path / NAME, ops)

    assert caught.value.errno == errno.EIO
    assert (ops.syncs, ops.links) == (1, 0)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------- RLIMIT_FSIZE
FSIZE_LIMITS = (0, 100, 1000, 5000, 20000)
_FSIZE_CHILD = """
import json, resource, signal, sys
from pathlib import Path
from fsr_core.errors import FsrError
from fsr_core.synthetic import SyntheticRun, write_synthetic

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
directory = Path(sys.argv[1])
run = SyntheticRun(ticks=16, width=8, height=6, codec="rgb24")
_, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
results = {}
for limit in map(int, sys.argv[2:]):
    target = directory / f"limit-{limit}.fsr"
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        write_synthetic(target, run)
        outcome = {"error": None}
    except FsrError as exc:
        outcome = {"error": type(exc).__name__, "errno": getattr(exc, "errno", None)}
    except BaseException as exc:
        outcome = {"error": "not an FsrError: " + repr(exc)}
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    outcome["left"] = sorted(p.name for p in directory.iterdir())
    for path in directory.iterdir():
        path.unlink()
    results[limit] = outcome
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def fsize_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Write the synthetic run under each RLIMIT_FSIZE in one child process."""
    directory = tmp_path_factory.mktemp("fsize")
    done = subprocess.run(
        [sys.executable, "-c", _FSIZE_CHILD, str(directory), *map(str, FSIZE_LIMITS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("limit", FSIZE_LIMITS)
def test_a_file_size_limit_raises_write_failed_efbig_and_leaves_nothing(
    fsize_outcomes: dict[str, Any], limit: int
) -> None:
    outcome = fsize_outcomes[str(limit)]

    assert outcome["error"] == "WriteFailedError"
    assert outcome["errno"] == errno.EFBIG
    assert outcome["left"] == []


# ----------------------------------------------- no hard links (FAT, SMB)
def refuse_link(*args: Any, **kwargs: Any) -> None:
    raise PermissionError(errno.EPERM, "Operation not permitted")


def test_without_hard_links_the_file_is_published_non_atomically(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clean_run: tuple[list[str], dict[str, list[tuple[Any, ...]]]],
) -> None:
    _, reference = clean_run
    monkeypatch.setattr(os, "link", refuse_link)

    result = write_recording(tmp_path / NAME)

    assert result.atomic is False
    assert result.size_bytes == (tmp_path / NAME).stat().st_size
    with FsrReader.open(tmp_path / NAME) as reader:
        assert record_keys(reader) == reference
        assert reader.verify() == []
    assert [p.name for p in tmp_path.iterdir()] == [NAME]


def test_with_hard_links_the_file_is_published_atomically(tmp_path: Path) -> None:
    result = write_recording(tmp_path / NAME)

    assert result.atomic is True
    assert [p.name for p in tmp_path.iterdir()] == [NAME]


@pytest.mark.parametrize("failing", ["write", "fsync"])
def test_a_failing_copy_fallback_removes_its_partial_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    monkeypatch.setattr(os, "link", refuse_link)
    ops = FailAfterLink(failing)

    with pytest.raises(WriteFailedError):
        write_recording(tmp_path / NAME, ops)

    assert ops.linking
    assert list(tmp_path.iterdir()) == []


class FailAfterLink(FileOps):
    """Fails the first ``write`` or ``fsync`` made by the copy fallback."""

    def __init__(self, failing: str) -> None:
        self.failing = failing
        self.linking = False

    def _maybe_fail(self, call: str) -> None:
        if self.linking and call == self.failing:
            raise WriteFailedError("injected ENOSPC", errno=errno.ENOSPC)

    def write(self, fd: int, data: bytes | memoryview, name: str) -> None:
        self._maybe_fail("write")
        super().write(fd, data, name)

    def fsync(self, fd: int, name: str) -> None:
        self._maybe_fail("fsync")
        super().fsync(fd, name)

    def link(self, source: str, target: str, dir_fd: int) -> bool:
        self.linking = True
        return super().link(source, target, dir_fd)


def test_a_refused_publish_reports_the_final_path(tmp_path: Path) -> None:
    target = tmp_path / NAME
    target.write_bytes(b"x")

    with pytest.raises(TargetExistsError) as caught:
        write_recording(target)

    assert caught.value.path == str(target)
    assert NAME in str(caught.value)
