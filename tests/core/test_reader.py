"""FsrReader behaviour: seeking, record access, both layout paths, digests, media.

Seek expectations come from a file written here with known clocks: stream
``steady`` has ticks 0, 4, ..., 36 over two generations (sim time = tick / 4),
stream ``restarting`` restarts its clocks at the generation reset.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeGuard

import numpy as np
import pytest

from fsr_core.calibration import CalibrationProfile, look_at
from fsr_core.errors import (
    CalibrationError,
    CorruptRecordError,
    FsrError,
    SeekOutOfRangeError,
    StreamNotFoundError,
)
from fsr_core.format.catalog import camera_streams, json_stream, numeric_stream
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.metadata import read_file_metadata
from fsr_core.format.open_layout import layout_from_footer, layout_from_scan
from fsr_core.format.reader import FsrReader
from fsr_core.format.records import TRAILER_SIZE, Trailer
from fsr_core.format.safe_open import FdSource, open_source
from fsr_core.format.values import Record
from fsr_core.format.writer import FsrWriter
from fsr_core.media import RGBFrame
from fsr_core.synthetic import CAMERA, SyntheticRun

STEP = 4
PER_GENERATION = 5
# (generation, tick) of every record of "steady": clocks keep increasing.
STEADY = [(0, t) for t in range(0, 20, STEP)] + [(1, t) for t in range(20, 40, STEP)]
# "restarting" starts again at tick 0 in generation 1.
RESTARTING = [(g, t) for g in (0, 1) for t in range(0, 20, STEP)]
MODES = ("exact", "at_or_before", "at_or_after", "nearest")


def sim_time(tick: float) -> float:
    """Sim time of a tick in the known-clock file (exact in binary)."""
    return tick / 4


def write_known_clocks(path: Path) -> None:
    streams = [
        numeric_stream("steady", ["x"]),
        numeric_stream("restarting", ["x"]),
        json_stream("never.written", required=False),
    ]
    with FsrWriter(path, streams) as writer:
        for steady, restarting in zip(STEADY, RESTARTING, strict=True):
            for name, (generation, tick) in (
                ("steady", steady),
                ("restarting", restarting),
            ):
                writer.write(
                    name,
                    [float(tick)],
                    tick=tick,
                    sim_time_s=sim_time(tick),
                    generation=generation,
                )


def cut_at_footer(source: Path, target: Path) -> None:
    """Copy ``source`` without its footer and trailer (only batches remain)."""
    data = source.read_bytes()
    trailer = Trailer.decode(data[-TRAILER_SIZE:], offset=len(data) - TRAILER_SIZE)
    target.write_bytes(data[: trailer.footer_offset])


@pytest.fixture(scope="module")
def known_clocks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clocks") / "clocks.fsr"
    write_known_clocks(path)
    return path


@pytest.fixture(scope="module")
def known_clocks_without_index(known_clocks: Path) -> Path:
    path = known_clocks.with_name("clocks-no-index.fsr")
    cut_at_footer(known_clocks, path)
    return path


@pytest.fixture(params=["indexed", "linear_scan"])
def clocks_reader(
    request: pytest.FixtureRequest, known_clocks: Path, known_clocks_without_index: Path
) -> Iterator[FsrReader]:
    """Open the known-clock file through its footer, or by scanning its batches."""
    if request.param == "indexed":
        reader = FsrReader.open(known_clocks)
    else:
        reader = FsrReader.open(known_clocks_without_index, recover=True)
        assert reader.recovered
    with reader:
        yield reader


def _is_seq(record: Record | None, want: int | None) -> TypeGuard[Record]:
    """Assert ``record`` is the one numbered ``want`` (``None``: no record).

    Returns whether there is a record, for the caller's further checks.
    """
    if want is None:
        assert record is None
        return False
    assert record is not None
    assert record.stream_seq == want
    return True


def query(key: str, tick: int) -> dict[str, float]:
    return {"tick": tick} if key == "tick" else {"sim_time_s": sim_time(tick)}


# ---------------------------------------------------------------- seek: keys
# tick queried -> expected seq of "steady" per mode (exact, before, after, nearest)
TICK_CASES = [
    (8, (2, 2, 2, 2)),
    (9, (None, 2, 3, 2)),  # nearer to 8
    (11, (None, 2, 3, 3)),  # nearer to 12
    (10, (None, 2, 3, 2)),  # a tie goes to the earlier record
    (0, (0, 0, 0, 0)),
    (36, (9, 9, 9, 9)),
    (-1, (None, None, 0, 0)),  # before the start
    (37, (None, 9, None, 9)),  # past the end
    (17, (None, 4, 5, 4)),  # across the generation boundary (16 | 20)
]


# (generation, tick) queried on "steady" -> expected seq per mode
GENERATION_CASES: list[tuple[int | None, int, tuple[int | None, ...]]] = [
    (1, 4, (None, None, 5, 5)),  # before generation 1 starts
    (0, 30, (None, 4, None, 4)),  # after generation 0 ends
    (1, 22, (None, 5, 6, 5)),  # a tie inside generation 1
    (1, 24, (6, 6, 6, 6)),
    (0, 24, (None, 4, None, 4)),  # tick 24 exists, but only in generation 1
    (2, 0, (None, None, None, None)),  # no such generation
]


@pytest.mark.parametrize("key", ["tick", "sim_time_s"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("generation", "tick", "expected"),
    [*((None, tick, expected) for tick, expected in TICK_CASES), *GENERATION_CASES],
)
def test_seek_by_clock_returns_the_record_the_mode_selects(
    clocks_reader: FsrReader,
    key: str,
    mode: str,
    generation: int | None,
    tick: int,
    expected: tuple[int | None, ...],
) -> None:
    """Seek in any generation (``None``) or within one, which it never leaves."""
    want = expected[MODES.index(mode)]

    record = clocks_reader.seek(
        "steady", generation=generation, mode=mode, **query(key, tick)
    )

    if _is_seq(record, want):
        assert (record.generation, record.tick) == STEADY[record.stream_seq]
        assert record.sim_time_s == sim_time(STEADY[record.stream_seq][1])
        assert record.decoded.tolist() == [float(STEADY[record.stream_seq][1])]
        if generation is not None:
            assert record.generation == generation


@pytest.mark.parametrize(
    ("stream", "generation", "expected"),
    [
        ("steady", 0, 0),
        ("steady", 1, PER_GENERATION),
        ("restarting", 1, PER_GENERATION),
        ("steady", 2, None),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_seek_by_generation_alone_returns_its_first_record(
    clocks_reader: FsrReader,
    stream: str,
    generation: int,
    expected: int | None,
    mode: str,
) -> None:
    record = clocks_reader.seek(stream, generation=generation, mode=mode)

    if expected is None:
        assert record is None
    else:
        assert record is not None
        assert record.stream_seq == expected


@pytest.mark.parametrize("key", ["tick", "sim_time_s"])
def test_seek_on_a_restarting_clock_without_generation_is_refused(
    clocks_reader: FsrReader, key: str
) -> None:
    with pytest.raises(ValueError, match="generation="):
        clocks_reader.seek("restarting", **query(key, 8))


@pytest.mark.parametrize("key", ["tick", "sim_time_s"])
@pytest.mark.parametrize(
    ("mode", "tick", "expected"),
    [("exact", 8, 7), ("at_or_before", 9, 7), ("at_or_after", 9, 8), ("nearest", 9, 7)],
)
def test_seek_on_a_restarting_clock_with_generation_finds_the_record(
    clocks_reader: FsrReader, key: str, mode: str, tick: int, expected: int
) -> None:
    record = clocks_reader.seek(
        "restarting", generation=1, mode=mode, **query(key, tick)
    )

    assert record is not None
    assert record.stream_seq == expected
    assert (record.generation, record.tick) == RESTARTING[expected]


@pytest.mark.parametrize("mode", MODES)
def test_seek_on_a_stream_without_records_returns_none(
    clocks_reader: FsrReader, mode: str
) -> None:
    assert clocks_reader.seek("never.written", tick=0, mode=mode) is None
    assert clocks_reader.seek("never.written", generation=0, mode=mode) is None


def test_seek_without_any_key_or_with_two_keys_is_a_usage_error(
    clocks_reader: FsrReader,
) -> None:
    with pytest.raises(ValueError, match="needs"):
        clocks_reader.seek("steady")
    with pytest.raises(ValueError, match="not both"):
        clocks_reader.seek("steady", tick=0, sim_time_s=0.0)
    with pytest.raises(ValueError, match="unknown seek mode"):
        clocks_reader.seek("steady", tick=0, mode="closest")


# ------------------------------------------------------------- record access
@pytest.mark.parametrize("seq", [-1, len(STEADY), 10**9])
def test_record_outside_the_stream_raises_seek_out_of_range(
    clocks_reader: FsrReader, seq: int
) -> None:
    with pytest.raises(SeekOutOfRangeError) as caught:
        clocks_reader.record("steady", seq)

    assert caught.value.stream == "steady"


def test_record_of_an_empty_stream_raises_seek_out_of_range(
    clocks_reader: FsrReader,
) -> None:
    with pytest.raises(SeekOutOfRangeError):
        clocks_reader.record("never.written", 0)


def test_every_access_to_an_unknown_stream_raises_stream_not_found(
    clocks_reader: FsrReader,
) -> None:
    with pytest.raises(StreamNotFoundError):
        clocks_reader.record("nope", 0)
    with pytest.raises(StreamNotFoundError):
        clocks_reader.seek("nope", tick=0)
    with pytest.raises(StreamNotFoundError):
        clocks_reader.rows("nope")
    with pytest.raises(StreamNotFoundError):
        next(clocks_reader.iter_records("nope"))
    with pytest.raises(StreamNotFoundError):
        next(clocks_reader.iter_media("nope"))


def test_record_by_sequence_matches_the_written_clocks(
    clocks_reader: FsrReader,
) -> None:
    got = [
        (r.stream_seq, r.generation, r.tick, r.sim_time_s)
        for r in clocks_reader.iter_records("restarting")
    ]

    assert got == [(i, g, t, sim_time(t)) for i, (g, t) in enumerate(RESTARTING)]
    assert clocks_reader.record("restarting", 7).tick == RESTARTING[7][1]


def test_iter_records_without_stream_follows_capture_order(
    clocks_reader: FsrReader,
) -> None:
    records = list(clocks_reader.iter_records())

    assert [r.capture_seq for r in records] == list(range(2 * len(STEADY)))
    assert [r.stream for r in records[:4]] == ["steady", "restarting"] * 2


# ------------------------------------------------ indexed open vs linear scan
def record_tuple(reader: FsrReader) -> list[tuple[object, ...]]:
    return [
        (
            r.stream,
            r.stream_seq,
            r.capture_seq,
            r.generation,
            r.tick,
            r.sim_time_s,
            r.metadata,
            r.payload,
            r.offset,
        )
        for r in reader.iter_records()
    ]


@pytest.mark.parametrize("resident_bytes", [16 << 20, 0], ids=["held", "on-disk"])
def test_footer_index_and_batch_scan_build_identical_layouts(
    small_recording: Path, resident_bytes: int
) -> None:
    source = open_source(small_recording)
    try:
        meta = read_file_metadata(source, ReaderLimits())
        limits = ReaderLimits(resident_index_bytes=resident_bytes)
        indexed = layout_from_footer(source, meta, limits, size=source.size)
        scanned, scan = layout_from_scan(source, meta, ReaderLimits())
        assert indexed.index.in_memory is (resident_bytes > 0)
        rows = np.arange(len(scanned.index), dtype=np.int64)
        indexed_entries = indexed.index.take(rows, source)
        scanned_entries = scanned.index.take(rows, source)
        assert indexed_entries.tobytes() == scanned_entries.tobytes()
        assert np.array_equal(
            indexed.index.record_offsets(indexed_entries, rows),
            scanned.index.record_offsets(scanned_entries, rows),
        )
    finally:
        source.close()

    assert scan.stop == "footer"
    assert indexed.directory.tobytes() == scanned.directory.tobytes()
    assert indexed.calibration_digests == scanned.calibration_digests
    for stream_id in range(len(meta.streams)):
        assert np.array_equal(
            indexed.index.stream_rows(stream_id), scanned.index.stream_rows(stream_id)
        )
        assert np.array_equal(
            indexed.summaries[stream_id].firsts, scanned.summaries[stream_id].firsts
        )


def test_a_file_without_its_index_recovers_every_record_unchanged(
    small_recording: Path, recording_without_index: Path
) -> None:
    with (
        FsrReader.open(small_recording) as indexed,
        FsrReader.open(recording_without_index, recover=True) as scanned,
    ):
        assert not indexed.recovered
        assert scanned.recovered
        assert scanned.recovery is not None
        assert scanned.recovery.records_kept == indexed.record_count
        assert record_tuple(scanned) == record_tuple(indexed)
        assert scanned.calibration_epochs() == indexed.calibration_epochs()
        assert scanned.verify() == []


def test_a_file_without_its_index_is_refused_by_a_strict_open(
    recording_without_index: Path,
) -> None:
    with pytest.raises(FsrError, match="recover"):
        FsrReader.open(recording_without_index)


# ----------------------------------------------------------------- digests
class CountingSha256:
    """Counts how often a reader hashes the whole file."""

    def __init__(self) -> None:
        self.calls = 0


@pytest.fixture
def sha256_counter(monkeypatch: pytest.MonkeyPatch) -> CountingSha256:
    """Wrap FdSource.sha256 so each whole-file hash is counted."""
    counter = CountingSha256()
    original = FdSource.sha256

    def counting(source: FdSource, check: Callable[[], None] | None = None) -> str:
        counter.calls += 1
        return original(source, check)

    monkeypatch.setattr(FdSource, "sha256", counting)
    return counter


def test_file_sha256_is_computed_on_first_access_and_cached(
    small_recording: Path, sha256_counter: CountingSha256
) -> None:
    expected = hashlib.sha256(small_recording.read_bytes()).hexdigest()

    with FsrReader.open(small_recording) as reader:
        calls_after_open = sha256_counter.calls
        first = reader.file_sha256
        second = reader.file_sha256

    assert calls_after_open == 0
    assert first == second == expected
    assert sha256_counter.calls == 1


@pytest.mark.parametrize("spelling", [str.lower, str.upper])
def test_open_with_the_right_expected_sha256_succeeds_and_reuses_it(
    small_recording: Path, sha256_counter: CountingSha256, spelling: object
) -> None:
    digest = hashlib.sha256(small_recording.read_bytes()).hexdigest()
    assert callable(spelling)

    with FsrReader.open(small_recording, expected_sha256=spelling(digest)) as reader:
        assert reader.file_sha256 == digest

    assert sha256_counter.calls == 1


def test_open_with_a_wrong_expected_sha256_raises_corrupt_record(
    small_recording: Path,
) -> None:
    wrong = "0" * 64

    with pytest.raises(CorruptRecordError) as caught:
        FsrReader.open(small_recording, expected_sha256=wrong)

    assert caught.value.section == "file"
    assert caught.value.path == str(small_recording)


# -------------------------------------------------------------- calibration
@pytest.mark.parametrize(
    ("generation", "tick", "epoch", "scale", "first_tick"),
    [
        (0, 0, 0, 0.9, 0),
        (0, 7, 0, 0.9, 0),  # just before the mid-run change at tick 8
        (0, 8, 1, 1.2, 8),
        (0, 15, 1, 1.2, 8),
        (1, 0, 0, 0.9, 0),  # a new generation starts with its own first epoch
        (1, 9, 1, 1.2, 8),
    ],
)
def test_calibration_returns_the_epoch_in_force_and_the_pose(
    recording_with_camera: Path,
    camera_run: SyntheticRun,
    generation: int,
    tick: int,
    epoch: int,
    scale: float,
    first_tick: int,
) -> None:
    pose = look_at([1.5, -1.5, 1.2], [0.0, 0.0, 0.3])
    width = camera_run.width

    with FsrReader.open(recording_with_camera) as reader:
        calibration = reader.calibration(CAMERA, generation=generation, tick=tick)

    assert (calibration.generation, calibration.epoch) == (generation, epoch)
    assert calibration.first_tick == first_tick
    assert calibration.profile == CalibrationProfile(
        width,
        camera_run.height,
        scale * width,
        scale * width,
        width / 2,
        camera_run.height / 2,
    )
    assert calibration.pose is not None
    assert np.array_equal(calibration.pose.translation_m, pose.translation_m)
    assert np.array_equal(calibration.pose.quaternion_xyzw, pose.quaternion_xyzw)


def test_calibration_epochs_list_every_change_per_generation(
    recording_with_camera: Path, camera_run: SyntheticRun
) -> None:
    with FsrReader.open(recording_with_camera) as reader:
        epochs = reader.calibration_epochs(CAMERA)

    change = camera_run.ticks // 2
    assert [(e.generation, e.epoch, e.first_tick) for e in epochs] == [
        (0, 0, 0),
        (0, 1, change),
        (1, 0, 0),
        (1, 1, change),
    ]


def test_calibration_of_an_unknown_camera_or_generation_is_an_error(
    recording_with_camera: Path,
) -> None:
    with FsrReader.open(recording_with_camera) as reader:
        with pytest.raises(StreamNotFoundError):
            reader.calibration("nope", generation=0, tick=0)
        with pytest.raises(CalibrationError):
            reader.calibration(CAMERA, generation=5, tick=0)


def test_every_frame_names_the_calibration_in_force_at_its_tick(
    recording_with_camera: Path,
) -> None:
    with FsrReader.open(recording_with_camera) as reader:
        frames = list(reader.iter_media(CAMERA))
        in_force = [
            reader.calibration(
                CAMERA, generation=f.ref.generation, tick=f.ref.tick
            ).digest
            for f in frames
        ]

    assert frames
    assert [f.ref.calibration_digest for f in frames] == in_force


# -------------------------------------------------------------------- media
def write_two_cameras(path: Path) -> dict[str, list[np.ndarray]]:
    """Two 8x6 cameras, rgb24 and png, random frames; return what was written."""
    rng = np.random.default_rng(3)
    streams = [
        *camera_streams("left", width=8, height=6, codec="rgb24"),
        *camera_streams("right", width=8, height=6, codec="png"),
    ]
    written: dict[str, list[np.ndarray]] = {"left": [], "right": []}
    profile = CalibrationProfile(8, 6, 7.0, 7.0, 4.0, 3.0)
    with FsrWriter(path, streams) as writer:
        for camera in written:
            writer.write(
                f"sensors.{camera}.camera.intrinsics", profile, tick=0, sim_time_s=0.0
            )
        for tick in range(6):
            for camera in written:
                pixels = rng.integers(0, 256, size=(6, 8, 3), dtype=np.uint8)
                writer.write(
                    f"sensors.{camera}.camera.rgb",
                    pixels,
                    tick=tick,
                    sim_time_s=tick / 10,
                )
                written[camera].append(pixels)
    return written


@pytest.mark.parametrize("camera", ["left", "right"])
def test_iter_media_yields_the_frames_written_losslessly(
    tmp_path: Path, camera: str
) -> None:
    path = tmp_path / "two_cameras.fsr"
    written = write_two_cameras(path)

    with FsrReader.open(path) as reader:
        frames = list(reader.iter_media(camera))

    assert [f.ref.tick for f in frames] == list(range(6))
    assert all(isinstance(f.decoded, RGBFrame) for f in frames)
    assert [f.decoded for f in frames] == [RGBFrame(p) for p in written[camera]]


def test_iter_media_of_all_cameras_interleaves_in_capture_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two_cameras.fsr"
    written = write_two_cameras(path)

    with FsrReader.open(path) as reader:
        frames = list(reader.iter_media())

    assert [f.ref.camera for f in frames] == ["left", "right"] * 6
    expected = [RGBFrame(written[c][t]) for t in range(6) for c in ("left", "right")]
    assert [f.decoded for f in frames] == expected


# ------------------------------------------------------------- ownership
def open_descriptors() -> set[str]:
    return {entry.name for entry in Path("/proc/self/fd").iterdir()}


def test_a_caller_owned_file_object_stays_open_after_close(
    small_recording: Path,
) -> None:
    with small_recording.open("rb") as handle:
        reader = FsrReader.open(handle)
        count = reader.record_count
        reader.close()

        assert not handle.closed
        handle.seek(0)
        assert handle.read(4) == b"\x89FSR"
    assert count > 0


def test_leaving_the_with_block_closes_the_pinned_descriptor(
    small_recording: Path,
) -> None:
    before = open_descriptors()

    with FsrReader.open(small_recording) as reader:
        during = open_descriptors()
        record = reader.record("run.lifecycle", 0)

    assert len(during - before) == 1
    assert open_descriptors() == before
    assert record.decoded == {"event": "start"}
    with pytest.raises(FsrError):
        reader.record("run.lifecycle", 1)


def test_a_failed_open_leaves_no_descriptor_behind(tmp_path: Path) -> None:
    path = tmp_path / "garbage.fsr"
    path.write_bytes(b"\x89FSR\r\n\x1a\n" + b"\0" * 100)
    before = open_descriptors()

    with pytest.raises(FsrError):
        FsrReader.open(path)

    assert open_descriptors() == before


def test_opening_a_copy_gives_the_same_records(
    tmp_path: Path, small_recording: Path
) -> None:
    copy = tmp_path / "copy.fsr"
    shutil.copyfile(small_recording, copy)

    with FsrReader.open(small_recording) as first, FsrReader.open(copy) as second:
        assert record_tuple(first) == record_tuple(second)
        assert first.file_sha256 == second.file_sha256
