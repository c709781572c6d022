"""Benchmark the FSR container against MCAP on the same data, side by side.

The recording: a 640x480 camera at 30 Hz (JPEG q92, 4:4:4), 90 numeric
channels at 120 Hz (one atomic float64 record per tick) and render state at
30 Hz (7 joint positions and velocities and 200 float32 particles, packed and
zlib-1 compressed by the render-state codec). It is written as an FSR file and
as an MCAP file (``mcap`` Writer, chunked, default chunk size, zstd when
``zstandard`` is installed, else lz4, else uncompressed chunks; one schema and
channel per stream; log times in ns). Every JPEG frame is encoded once and the
same bytes go into both files (``FsrWriter.write_encoded`` and MCAP
``add_message``), so the comparison is about the containers. A second write
pass times each format's full path, encoding included: FSR's ``write`` encodes
images and render state on its two worker threads, the MCAP loop encodes inline.
Both writes end with an fsync (FSR's publish protocol, then its read-back check).

Printed side by side, each beside its target from the issue: write throughput,
file size, open time (FSR: ``FsrReader.open``; MCAP: ``make_reader`` plus
``get_summary``), median random-seek latency by sim time for the numeric and
the camera stream (FSR: ``seek`` plus the payload; MCAP: ``iter_messages`` over
``[t, t + 1 ns)`` with the summary loaded), camera seek+decode against the JPEG
decoder alone on the same bytes, full-scan throughput and the FSR/MCAP ratios.
Then a JPEG decoder comparison and, with ``--big``, the open time of a ~1 GB
FSR file against the small one.

Times come from ``time.perf_counter``; read figures are medians after warm-up
runs, seeks pick random records with a fixed seed and alternate the formats.
Files are read warm, straight after writing (page cache). MB means 10^6 bytes.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from mcap.reader import SeekingReader, make_reader
from mcap.writer import CompressionType
from mcap.writer import Writer as McapWriter
from PIL import Image

import bench_common as bench
from bench_common import CAMERA, CAMERA_HZ, HEIGHT, JPEG_QUALITY, WIDTH, BenchError
from fsr_core import FsrReader, FsrWriter, StreamSpec
from fsr_core.calibration import CalibrationProfile
from fsr_core.format.catalog import camera_streams, numeric_stream, render_state_stream
from fsr_core.format.payloads import pack_arrays
from fsr_core.media import JpegCodec, RGBFrame, decode_frame, encode_frame

NUMERIC_HZ = 120
CHANNELS = 90
JOINTS = 7
PARTICLES = 200
SEED = 20261202
MB = 1e6
BIG_TARGET_BYTES = 1 << 30
BIG_MIN_FREE_BYTES = 3 * 10**9

NUMERIC = "observations.bench.numeric"
CAMERA_RGB = f"sensors.{CAMERA}.camera.rgb"
INTRINSICS = f"sensors.{CAMERA}.camera.intrinsics"
RENDER = "render.state"
STREAM_OF = {
    "numeric": NUMERIC,
    "camera": CAMERA_RGB,
    "render": RENDER,
    "intrinsics": INTRINSICS,
}

TARGET_OPEN_MS = 20.0
TARGET_NUMERIC_SEEK_US = 50.0
TARGET_DECODE_RATIO = 1.2

Pixels = npt.NDArray[np.uint8]


# ----------------------------------------------------------------------- data
@dataclass(frozen=True)
class Event:
    """One record to write: its stream kind, index in the stream and clocks."""

    kind: str
    index: int
    tick: int
    time_s: float
    log_time_ns: int


class FrameSource:
    """Deterministic 640x480 frames: a noisy gradient panning 4 px per frame.

    The texture (0-23 levels of noise) gives JPEGs of about 180 KB at q92 4:4:4.
    """

    def __init__(self, width: int, height: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        y, x = np.mgrid[0:height, 0 : 2 * width]
        base = np.stack(
            [x * 255 // (2 * width - 1), y * 255 // (height - 1), (x + y) % 256],
            axis=-1,
        )
        noisy = base + rng.integers(0, 24, base.shape)
        self._texture = np.clip(noisy, 0, 255).astype(np.uint8)
        self._width = width
        self._height = height

    def frame(self, index: int) -> Pixels:
        """Return frame ``index`` as a new writable ``(H, W, 3)`` array."""
        x0 = (4 * index) % self._width
        pixels = self._texture[:, x0 : x0 + self._width].copy()
        side = min(100, self._width // 4, self._height // 4)
        cx = int((0.5 + 0.4 * math.cos(index / 15)) * (self._width - side))
        cy = int((0.5 + 0.4 * math.sin(index / 15)) * (self._height - side))
        pixels[cy : cy + side, cx : cx + side] = 255
        return pixels


@dataclass
class BenchData:
    """The recording, as values (for the full path) and as encoded payloads."""

    seconds: float
    events: list[Event]
    profile: CalibrationProfile
    frames: FrameSource
    numeric: npt.NDArray[np.float64]
    numeric_bytes: list[bytes]
    jpegs: list[bytes]
    render: list[dict[str, npt.NDArray[Any]]]
    render_packed: list[tuple[bytes, int]]

    def by_kind(self, kind: str) -> list[Event]:
        """Return the events of one stream kind, in order."""
        return [event for event in self.events if event.kind == kind]

    def encoded(self, event: Event) -> tuple[bytes, int]:
        """Return the stored payload of ``event`` and its raw length."""
        if event.kind == "numeric":
            data = self.numeric_bytes[event.index]
            return data, len(data)
        if event.kind == "camera":
            data = self.jpegs[event.index]
            return data, len(data)
        if event.kind == "render":
            return self.render_packed[event.index]
        raise BenchError(f"no encoded payload for {event.kind}")

    def value(self, event: Event) -> Any:
        """Return the value ``FsrWriter.write`` takes for ``event``."""
        if event.kind == "numeric":
            return self.numeric[event.index]
        if event.kind == "camera":
            return self.frames.frame(event.index)
        if event.kind == "render":
            return self.render[event.index]
        return self.profile

    @property
    def records(self) -> int:
        """Records per file."""
        return len(self.events)

    @property
    def payload_bytes(self) -> int:
        """Payload bytes per file (the intrinsics record left out)."""
        return (
            sum(len(b) for b in self.numeric_bytes)
            + sum(len(b) for b in self.jpegs)
            + sum(len(p) for p, _ in self.render_packed)
        )


def _events(seconds: float) -> list[Event]:
    ticks = max(1, round(seconds * NUMERIC_HZ))
    every = NUMERIC_HZ // CAMERA_HZ
    counts = {"numeric": 0, "camera": 0, "render": 0}
    events = [Event("intrinsics", 0, 0, 0.0, 0)]
    for tick in range(ticks):
        time_s = tick / NUMERIC_HZ
        log_time = round(time_s * 1e9)
        kinds = ["numeric", "camera", "render"] if tick % every == 0 else ["numeric"]
        for kind in kinds:
            events.append(Event(kind, counts[kind], tick, time_s, log_time))
            counts[kind] += 1
    return events


def build_data(seconds: float) -> BenchData:
    """Generate the recording and encode every payload once."""
    rng = np.random.default_rng(SEED)
    events = _events(seconds)
    n_numeric = sum(1 for e in events if e.kind == "numeric")
    n_camera = sum(1 for e in events if e.kind == "camera")
    phase = rng.uniform(0, 2 * np.pi, CHANNELS)
    times = np.arange(n_numeric)[:, None] / NUMERIC_HZ
    numeric = np.sin(2 * np.pi * 0.5 * times + phase) + rng.normal(
        0.0, 0.01, (n_numeric, CHANNELS)
    )
    frames = FrameSource(WIDTH, HEIGHT, SEED)
    jpegs = [
        encode_frame("jpeg", RGBFrame(frames.frame(i)), quality=JPEG_QUALITY)
        for i in range(n_camera)
    ]
    render: list[dict[str, npt.NDArray[Any]]] = [
        {
            "joint_positions": numeric[4 * i, :JOINTS].copy(),
            "joint_velocities": numeric[4 * i, JOINTS : 2 * JOINTS].copy(),
            "particles": rng.normal(0.0, 0.5, (PARTICLES, 3)).astype(np.float32),
        }
        for i in range(n_camera)
    ]
    return BenchData(
        seconds=seconds,
        events=events,
        profile=bench.camera_profile(),
        frames=frames,
        numeric=numeric,
        numeric_bytes=[np.ascontiguousarray(row, "<f8").tobytes() for row in numeric],
        jpegs=jpegs,
        render=render,
        render_packed=[pack_arrays(item) for item in render],
    )


# -------------------------------------------------------------------- writing
def fsr_streams() -> list[StreamSpec]:
    """Return the FSR streams: numeric, camera image and intrinsics, render state."""
    channels = [f"c{i:02d}" for i in range(CHANNELS)]
    camera = camera_streams(CAMERA, width=WIDTH, height=HEIGHT, rate_hz=CAMERA_HZ)
    return [
        numeric_stream(NUMERIC, channels, attributes={"rate_hz": NUMERIC_HZ}),
        *camera[:2],
        render_state_stream(RENDER),
    ]


def write_fsr(path: Path, data: BenchData, *, encoded: bool) -> float:
    """Write the FSR file; return the seconds taken, publication included."""
    start = time.perf_counter()
    metadata = {"run": {"name": "bench_format", "seconds": data.seconds}}
    with FsrWriter(path, fsr_streams(), metadata=metadata) as writer:
        for event in data.events:
            stream, tick, time_s = STREAM_OF[event.kind], event.tick, event.time_s
            if encoded and event.kind != "intrinsics":
                payload, raw = data.encoded(event)
                writer.write_encoded(
                    stream, payload, raw_length=raw, tick=tick, sim_time_s=time_s
                )
            else:
                writer.write(stream, data.value(event), tick=tick, sim_time_s=time_s)
    return time.perf_counter() - start


def _mcap_channels(writer: McapWriter) -> dict[str, int]:
    codecs = {"intrinsics": "json"}
    channels: dict[str, int] = {}
    for stream_id, spec in enumerate(fsr_streams()):
        kind = next(k for k, name in STREAM_OF.items() if name == spec.name)
        description = json.dumps(spec.to_json(stream_id), sort_keys=True).encode()
        schema = writer.register_schema(spec.name, "fsr.stream+json", description)
        codec = codecs.get(kind, spec.codec)
        channels[kind] = writer.register_channel(spec.name, codec, schema)
    return channels


def _mcap_payload(data: BenchData, event: Event, *, encoded: bool) -> bytes:
    if event.kind == "intrinsics":
        return json.dumps(data.profile.to_json(), sort_keys=True).encode()
    if encoded:
        return data.encoded(event)[0]
    if event.kind == "numeric":
        return np.ascontiguousarray(data.numeric[event.index], "<f8").tobytes()
    if event.kind == "camera":
        frame = RGBFrame(data.frames.frame(event.index))
        return encode_frame("jpeg", frame, quality=JPEG_QUALITY)
    return pack_arrays(data.render[event.index])[0]


def write_mcap(
    path: Path, data: BenchData, *, encoded: bool, compression: CompressionType
) -> float:
    """Write the MCAP file; return the seconds taken, fsync included."""
    start = time.perf_counter()
    library = "fsr-viewer tools/bench_format.py"
    with bench.mcap_writer(path, compression, library=library) as writer:
        channels = _mcap_channels(writer)
        for event in data.events:
            writer.add_message(
                channels[event.kind],
                log_time=event.log_time_ns,
                data=_mcap_payload(data, event, encoded=encoded),
                publish_time=event.log_time_ns,
                sequence=event.index,
            )
    return time.perf_counter() - start


# -------------------------------------------------------------------- reading
class Side(Protocol):
    """One format's reader, as the measurements use it."""

    label: str

    def open_seconds(self) -> float:
        """Open the file once and close it; return the seconds the open took."""
        ...

    def payload(self, stream: str, time_s: float, log_time_ns: int) -> bytes:
        """Seek ``stream`` to the record at a sim time and return its payload."""
        ...

    def frame(self, time_s: float, log_time_ns: int) -> Pixels:
        """Seek the camera to a sim time and decode the frame."""
        ...

    def scan(self) -> tuple[int, int]:
        """Read every record of every stream; return ``(records, payload bytes)``."""
        ...


class FsrSide:
    """FSR through :class:`FsrReader`."""

    label = "FSR"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reader = FsrReader.open(path)

    def close(self) -> None:
        """Close the reader."""
        self.reader.close()

    def open_seconds(self) -> float:
        """Time ``FsrReader.open`` (the whole validation), not the close."""
        return bench.fsr_open_seconds(self.path)

    def payload(self, stream: str, time_s: float, log_time_ns: int) -> bytes:
        """``seek(..., mode="at_or_before")`` and the record's payload."""
        record = self.reader.seek(stream, sim_time_s=time_s, mode="at_or_before")
        if record is None:
            raise BenchError(f"FSR seek found nothing in {stream} at {time_s} s")
        return record.payload

    def frame(self, time_s: float, log_time_ns: int) -> Pixels:
        """Seek the camera stream and decode through ``Record.decoded``."""
        record = self.reader.seek(CAMERA_RGB, sim_time_s=time_s, mode="at_or_before")
        if record is None:
            raise BenchError(f"FSR seek found no frame at {time_s} s")
        frame: RGBFrame = record.decoded
        return frame.pixels

    def scan(self) -> tuple[int, int]:
        """``iter_records()`` over all streams, in capture order."""
        count = size = 0
        for record in self.reader.iter_records():
            count += 1
            size += len(record.payload)
        return count, size


class McapSide:
    """MCAP through the ``mcap`` SeekingReader, its summary loaded once."""

    label = "MCAP"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle = path.open("rb")
        reader = make_reader(self.handle)
        if not isinstance(reader, SeekingReader) or reader.get_summary() is None:
            self.handle.close()
            raise BenchError("the MCAP file did not open with a summary")
        self.reader = reader

    def close(self) -> None:
        """Close the file."""
        self.handle.close()

    def open_seconds(self) -> float:
        """Time opening the file, ``make_reader`` and ``get_summary``."""
        start = time.perf_counter()
        with self.path.open("rb") as handle:
            make_reader(handle).get_summary()
            elapsed = time.perf_counter() - start
        return elapsed

    def payload(self, stream: str, time_s: float, log_time_ns: int) -> bytes:
        """Return the first message of ``stream`` in ``[t, t + 1 ns)``."""
        messages = self.reader.iter_messages(
            topics=[stream], starting_at=log_time_ns, ending_before=log_time_ns + 1
        )
        found = next(messages, None)
        if found is None:
            raise BenchError(f"MCAP found nothing in {stream} at {time_s} s")
        return found[2].data

    def frame(self, time_s: float, log_time_ns: int) -> Pixels:
        """Seek and decode with ``fsr_core.media.decode_frame`` (as FSR does)."""
        data = self.payload(CAMERA_RGB, time_s, log_time_ns)
        return decode_frame("jpeg", data, width=WIDTH, height=HEIGHT).pixels

    def scan(self) -> tuple[int, int]:
        """``iter_messages()`` over all channels, in log-time order."""
        count = size = 0
        for _, _, message in self.reader.iter_messages():
            count += 1
            size += len(message.data)
        return count, size


# ---------------------------------------------------------------- measurement
BLOCK = 25
BLOCK_WARMUP = 2


def _alternating_blocks(
    runs: dict[str, Callable[[int], object]], count: int
) -> dict[str, float]:
    """Median seconds of ``run(i)``, ``i < count``, per name.

    A run that returns a float has timed itself (an open, without the close).

    The names take turns in blocks of :data:`BLOCK` calls (the order flips every
    block), each block after :data:`BLOCK_WARMUP` untimed calls with
    ``i >= count``: drift between the formats cancels, and each one is timed
    with its own working set warm. (Strictly alternating single calls would
    time FSR right after MCAP's 1 MB chunk decompression has evicted the CPU
    caches, which adds 30-90 us to FSR's seeks on this VM.)
    """
    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for block, first in enumerate(range(0, count, BLOCK)):
        for name in names if block % 2 == 0 else names[::-1]:
            run = runs[name]
            for j in range(BLOCK_WARMUP):
                run(count + (block * BLOCK_WARMUP + j) % count)
            for i in range(first, min(first + BLOCK, count)):
                start = time.perf_counter()
                timed = run(i)
                elapsed = time.perf_counter() - start
                samples[name].append(timed if isinstance(timed, float) else elapsed)
    return {name: bench.median(values) for name, values in samples.items()}


def _picks(events: list[Event], count: int, seed: int) -> list[Event]:
    rng = np.random.default_rng(seed)
    return [events[int(i)] for i in rng.integers(0, len(events), count)]


def _check_same_payloads(
    sides: Sequence[Side], stream: str, picks: list[Event], data: BenchData
) -> None:
    for event in picks:
        expected = data.encoded(event)[0]
        for side in sides:
            if side.payload(stream, event.time_s, event.log_time_ns) != expected:
                raise BenchError(f"{side.label} returned the wrong {stream} payload")


def measure_seeks(
    sides: Sequence[Side], data: BenchData, kind: str, count: int
) -> dict[str, float]:
    """Median seek+payload seconds for random records of one stream kind."""
    stream = STREAM_OF[kind]
    picks = _picks(data.by_kind(kind), 2 * count, SEED + len(kind))
    _check_same_payloads(sides, stream, picks[count : count + 20], data)

    def runner(side: Side) -> Callable[[int], object]:
        def run(i: int) -> object:
            event = picks[i]
            return side.payload(stream, event.time_s, event.log_time_ns)

        return run

    return _alternating_blocks({side.label: runner(side) for side in sides}, count)


def _simplejpeg_decoder() -> Callable[[bytes], Pixels] | None:
    try:
        module = importlib.import_module("simplejpeg")
    except ImportError:
        return None

    def decode(data: bytes) -> Pixels:
        pixels: Pixels = module.decode_jpeg(data, "RGB")
        return pixels

    return decode


def _pillow_decode(data: bytes) -> Pixels:
    with Image.open(io.BytesIO(data), formats=["JPEG"]) as image:
        image.load()
        return np.asarray(image)


def _decoder_alone() -> tuple[str, Callable[[bytes], Pixels]]:
    """Return the library call ``fsr_core.media`` wraps, without its checks."""
    backend = JpegCodec().backend
    simple = _simplejpeg_decoder()
    if backend == "simplejpeg" and simple is not None:
        return "simplejpeg.decode_jpeg", simple
    return "Pillow", _pillow_decode


def _media_decode(data: bytes) -> Pixels:
    return decode_frame("jpeg", data, width=WIDTH, height=HEIGHT).pixels


def measure_camera_decode(
    sides: Sequence[Side], data: BenchData, count: int
) -> dict[str, Any]:
    """Seek+decode per format against the decoder alone on the same frames."""
    picks = _picks(data.by_kind("camera"), 2 * count, SEED + 1)
    name, alone = _decoder_alone()

    def seek_decode(side: Side) -> Callable[[int], object]:
        return lambda i: side.frame(picks[i].time_s, picks[i].log_time_ns)

    def decode_only(decode: Callable[[bytes], Pixels]) -> Callable[[int], object]:
        return lambda i: decode(data.jpegs[picks[i].index])

    runs = {side.label: seek_decode(side) for side in sides}
    runs["alone"] = decode_only(alone)
    runs["media"] = decode_only(_media_decode)
    times = _alternating_blocks(runs, count)
    return {
        "seek_decode_s": {side.label: times[side.label] for side in sides},
        "decoder": name,
        "decoder_alone_s": times["alone"],
        "media_decode_s": times["media"],
    }


def measure_opens(sides: Sequence[Side], count: int) -> dict[str, float]:
    """Median open seconds per format."""
    runs = {side.label: _opener(side) for side in sides}
    return _alternating_blocks(runs, count)


def _opener(side: Side) -> Callable[[int], object]:
    return lambda _i: side.open_seconds()


def measure_scans(sides: Sequence[Side], repeat: int) -> dict[str, dict[str, float]]:
    """Full-scan seconds (median of ``repeat``), records and payload bytes."""
    results: dict[str, dict[str, float]] = {}
    for side in sides:
        side.scan()  # warm-up
    timings: dict[str, list[float]] = {side.label: [] for side in sides}
    totals: dict[str, tuple[int, int]] = {}
    for _ in range(repeat):
        for side in sides:
            start = time.perf_counter()
            totals[side.label] = side.scan()
            timings[side.label].append(time.perf_counter() - start)
    for label, values in timings.items():
        seconds = bench.median(values)
        records, size = totals[label]
        results[label] = {
            "seconds": seconds,
            "records": records,
            "payload_bytes": size,
            "mb_per_s": size / MB / seconds,
            "records_per_s": records / seconds,
        }
    return results


# ------------------------------------------------------------------ JPEG table
def _turbojpeg_decoder() -> tuple[Callable[[bytes], Pixels] | None, str]:
    try:
        module = importlib.import_module("turbojpeg")
        codec = module.TurboJPEG()
    except ImportError as exc:
        return None, f"PyTurboJPEG is not installed ({exc})"
    except (OSError, RuntimeError) as exc:
        return None, str(exc).splitlines()[0]
    rgb = module.TJPF_RGB

    def decode(data: bytes) -> Pixels:
        pixels: Pixels = codec.decode(data, pixel_format=rgb)
        return pixels

    return decode, ""


def _cv2_decoder() -> tuple[Callable[[bytes], Pixels] | None, str]:
    try:
        cv2 = importlib.import_module("cv2")
    except ImportError as exc:
        return None, f"opencv is not installed ({exc})"
    flag = getattr(cv2, "IMREAD_COLOR_RGB", cv2.IMREAD_COLOR)

    def decode(data: bytes) -> Pixels:
        pixels: Pixels = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
        return pixels

    note = "IMREAD_COLOR_RGB" if hasattr(cv2, "IMREAD_COLOR_RGB") else "BGR output"
    return decode, note


def jpeg_decoders() -> list[tuple[str, Callable[[bytes], Pixels] | None, str]]:
    """Every JPEG decoder to compare: ``(name, decode or None, note)``."""
    simple = _simplejpeg_decoder()
    turbo, turbo_note = _turbojpeg_decoder()
    cv2_decode, cv2_note = _cv2_decoder()
    return [
        ("Pillow", _pillow_decode, "Image.open + load"),
        ("simplejpeg", simple, "" if simple else "simplejpeg is not installed"),
        ("PyTurboJPEG", turbo, turbo_note),
        ("cv2.imdecode", cv2_decode, cv2_note),
        ("fsr_core.media.decode_frame", _media_decode, "with its header checks"),
    ]


def measure_decoders(jpegs: list[bytes], count: int) -> list[dict[str, Any]]:
    """Median decode time of each JPEG decoder over ``count`` decodes."""
    sample = jpegs[:: max(1, len(jpegs) // 20)][:20]
    rows: list[dict[str, Any]] = []
    for name, decode, note in jpeg_decoders():
        row: dict[str, Any] = {"name": name, "available": decode is not None}
        row["note"] = note
        if decode is not None:
            if decode(sample[0]).shape != (HEIGHT, WIDTH, 3):
                raise BenchError(f"{name} decoded a frame of the wrong shape")
            for data in sample[:3]:
                decode(data)
            times = []
            for i in range(count):
                data = sample[i % len(sample)]
                start = time.perf_counter()
                decode(data)
                times.append(time.perf_counter() - start)
            row["median_ms"] = bench.median(times) * 1e3
        rows.append(row)
    return rows


# ------------------------------------------------------------------ big file
def write_big_fsr(path: Path, jpegs: list[bytes], target_bytes: int) -> dict[str, Any]:
    """Write camera frames (cycling ``jpegs``) until ``target_bytes`` of payload."""
    mean = sum(len(b) for b in jpegs) / len(jpegs)
    frames = math.ceil(target_bytes / mean)
    start = time.perf_counter()
    bench.write_camera_fsr(path, jpegs, frames, run_name="bench_big")
    return {"frames": frames, "write_s": time.perf_counter() - start}


def _evict(path: Path) -> None:
    """Drop the file's pages from the page cache (they are clean after fsync)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _cold_open_seconds(path: Path, count: int) -> float:
    samples = []
    for _ in range(count):
        _evict(path)
        start = time.perf_counter()
        reader = FsrReader.open(path)
        samples.append(time.perf_counter() - start)
        reader.close()
    return bench.median(samples)


def measure_big(
    directory: Path, data: BenchData, small: Path, opens: int, seeks: int
) -> dict[str, Any]:
    """Open time (and camera seek) of a ~1 GB FSR file against the small one."""
    path = directory / "bench-big.fsr"
    written = write_big_fsr(path, data.jpegs, BIG_TARGET_BYTES)
    sides = {"big": FsrSide(path), "small": FsrSide(small)}
    try:
        opened = _alternating_blocks(
            {name: _opener(side) for name, side in sides.items()}, opens
        )
        rng = np.random.default_rng(SEED + 2)
        frames = {"big": written["frames"], "small": len(data.jpegs)}
        picks = {
            name: [int(i) / CAMERA_HZ for i in rng.integers(0, count, 2 * seeks)]
            for name, count in frames.items()
        }

        def seeker(name: str) -> Callable[[int], object]:
            side, times = sides[name], picks[name]
            return lambda i: side.payload(CAMERA_RGB, times[i], 0)

        seeked = _alternating_blocks({name: seeker(name) for name in sides}, seeks)
        records = sides["big"].reader.record_count
    finally:
        for side in sides.values():
            side.close()
    cold = {
        name: _cold_open_seconds(p, 10) for name, p in (("big", path), ("small", small))
    }
    return {
        **written,
        "file_bytes": path.stat().st_size,
        "records": records,
        "small_file_bytes": small.stat().st_size,
        "open_ms_big": opened["big"] * 1e3,
        "open_ms_small": opened["small"] * 1e3,
        "cold_open_ms_big": cold["big"] * 1e3,
        "cold_open_ms_small": cold["small"] * 1e3,
        "camera_seek_us_big": seeked["big"] * 1e6,
        "camera_seek_us_small": seeked["small"] * 1e6,
    }


# ---------------------------------------------------------------------- run
@dataclass(frozen=True)
class Options:
    """What ``main`` parsed."""

    seconds: float
    repeat: int
    seeks: int
    opens: int
    decodes: int
    big: bool


def _fresh(directory: Path, name: str) -> Path:
    path = directory / name
    if path.exists():
        raise BenchError(f"{path} exists; remove it or pick another --out")
    return path


def _write_figures(seconds: list[float], data: BenchData) -> dict[str, float]:
    seconds_taken = bench.median(seconds)
    return {
        "seconds": seconds_taken,
        "mb_per_s": data.payload_bytes / MB / seconds_taken,
        "records_per_s": data.records / seconds_taken,
    }


def run_writes(
    directory: Path, data: BenchData, options: Options, compression: CompressionType
) -> tuple[dict[str, dict[str, Any]], dict[str, Path]]:
    """Write both formats both ways ``repeat`` times; keep a pre-encoded file each."""
    writers: dict[str, Callable[[Path, bool], float]] = {
        "FSR": lambda path, enc: write_fsr(path, data, encoded=enc),
        "MCAP": lambda path, enc: write_mcap(
            path, data, encoded=enc, compression=compression
        ),
    }
    keep = {
        "FSR": _fresh(directory, "bench.fsr"),
        "MCAP": _fresh(directory, "bench.mcap"),
    }
    timings: dict[str, dict[str, list[float]]] = {
        label: {"encoded": [], "full": []} for label in writers
    }
    sizes: dict[str, int] = {}
    for rep in range(options.repeat):
        for mode in ("encoded", "full"):
            for label, write in writers.items():
                final = mode == "encoded" and rep == options.repeat - 1
                path = keep[label] if final else _fresh(directory, f"scratch-{label}")
                _log(f"writing {label} ({mode}, {rep + 1}/{options.repeat})")
                timings[label][mode].append(write(path, mode == "encoded"))
                sizes[label] = path.stat().st_size
                if not final:
                    path.unlink()
    results = {
        label: {
            "write_encoded": _write_figures(modes["encoded"], data),
            "write_full": _write_figures(modes["full"], data),
            "file_bytes": sizes[label],
        }
        for label, modes in timings.items()
    }
    return results, keep


def run_reads(
    paths: dict[str, Path], data: BenchData, options: Options
) -> dict[str, Any]:
    """Measure every read figure, the two formats alternately."""
    fsr = FsrSide(paths["FSR"])
    try:
        mcap = McapSide(paths["MCAP"])
    except BaseException:
        fsr.close()
        raise
    sides: list[Side] = [fsr, mcap]
    try:
        _log("measuring open")
        opens = measure_opens(sides, options.opens)
        _log("measuring seeks")
        numeric = measure_seeks(sides, data, "numeric", options.seeks)
        camera = measure_seeks(sides, data, "camera", options.seeks)
        decode = measure_camera_decode(sides, data, options.seeks)
        _log("measuring full scans")
        scans = measure_scans(sides, options.repeat)
    finally:
        fsr.close()
        mcap.close()
    return {
        "open_s": opens,
        "seek_numeric_s": numeric,
        "seek_camera_s": camera,
        "camera_decode": decode,
        "scan": scans,
    }


def _log(message: str) -> None:
    print(f"[bench_format] {message}", file=sys.stderr, flush=True)


def _format_results(
    compression: str, writes: dict[str, dict[str, Any]], reads: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    decode = reads["camera_decode"]
    alone = decode["decoder_alone_s"]
    formats: dict[str, dict[str, Any]] = {}
    for label in ("FSR", "MCAP"):
        seek_decode = decode["seek_decode_s"][label]
        formats[label.lower()] = {
            **writes[label],
            "open_ms": reads["open_s"][label] * 1e3,
            "seek_numeric_us": reads["seek_numeric_s"][label] * 1e6,
            "seek_camera_us": reads["seek_camera_s"][label] * 1e6,
            "seek_decode_camera_ms": seek_decode * 1e3,
            "seek_decode_over_decoder": seek_decode / alone,
            "scan": reads["scan"][label],
        }
    formats["mcap"]["compression"] = compression
    formats["mcap"]["chunk_size"] = 1 << 20
    return formats


# (key path, lower is better): every read figure, compared with MCAP's.
READ_FIGURES = (
    (("open_ms",), True),
    (("seek_numeric_us",), True),
    (("seek_camera_us",), True),
    (("seek_decode_camera_ms",), True),
    (("scan", "mb_per_s"), False),
    (("scan", "records_per_s"), False),
)


def _get(figures: dict[str, Any], path: tuple[str, ...]) -> float:
    value: Any = figures
    for key in path:
        value = value[key]
    return float(value)


def _target(
    name: str, value: float, unit: str, target: str, met: bool
) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "target": target, "met": met}


def _targets(
    formats: dict[str, dict[str, Any]], big: dict[str, Any] | None
) -> list[dict[str, Any]]:
    fsr, mcap = formats["fsr"], formats["mcap"]
    open_ms = big["open_ms_big"] if big else fsr["open_ms"]
    seek_us = fsr["seek_numeric_us"]
    ratio = fsr["seek_decode_over_decoder"]
    targets = [
        _target(
            "open, ~1 GB file" if big else "open, small file (1 GB: --big)",
            open_ms,
            "ms",
            f"<= {TARGET_OPEN_MS:g} ms for 1 GB",
            open_ms <= TARGET_OPEN_MS,
        ),
        _target(
            "median numeric seek",
            seek_us,
            "us",
            f"<= {TARGET_NUMERIC_SEEK_US:g} us",
            seek_us <= TARGET_NUMERIC_SEEK_US,
        ),
        _target(
            "camera seek+decode / decoder alone",
            ratio,
            "x",
            f"<= {TARGET_DECODE_RATIO:g}x",
            ratio <= TARGET_DECODE_RATIO,
        ),
    ]
    for path, lower in READ_FIGURES:
        ours, theirs = _get(fsr, path), _get(mcap, path)
        targets.append(
            _target(
                f"{'.'.join(path)}, FSR/MCAP",
                ours / theirs,
                "x",
                "<= 1 (as fast as MCAP)" if lower else ">= 1 (as fast as MCAP)",
                ours <= theirs if lower else ours >= theirs,
            )
        )
    return targets


RATIO_FIGURES = (
    ("write_encoded", "mb_per_s"),
    ("write_full", "mb_per_s"),
    ("file_bytes",),
    *(path for path, _ in READ_FIGURES),
)


def _ratios(formats: dict[str, dict[str, Any]]) -> dict[str, float]:
    return {
        ".".join(path): _get(formats["fsr"], path) / _get(formats["mcap"], path)
        for path in RATIO_FIGURES
    }


def _config(data: BenchData, options: Options) -> dict[str, Any]:
    return {
        "seconds": data.seconds,
        "width": WIDTH,
        "height": HEIGHT,
        "jpeg_quality": JPEG_QUALITY,
        "chroma": "4:4:4",
        "numeric_hz": NUMERIC_HZ,
        "numeric_channels": CHANNELS,
        "camera_hz": CAMERA_HZ,
        "render_hz": CAMERA_HZ,
        "repeat": options.repeat,
        "seeks": options.seeks,
        "opens": options.opens,
        "decodes": options.decodes,
        "seed": SEED,
    }


def run(directory: Path, options: Options) -> dict[str, Any]:
    """Run the whole benchmark in ``directory``; return the figures."""
    compression, compression_name = bench.mcap_compression()
    _log(f"generating and encoding {options.seconds:g} s of data")
    data = build_data(options.seconds)
    writes, paths = run_writes(directory, data, options, compression)
    reads = run_reads(paths, data, options)
    _log("comparing JPEG decoders")
    decoders = measure_decoders(data.jpegs, options.decodes)
    big = None
    if options.big:
        _log("writing and opening the ~1 GB file")
        big = measure_big(directory, data, paths["FSR"], options.opens, options.seeks)
    formats = _format_results(compression_name, writes, reads)
    decode = reads["camera_decode"]
    return {
        "config": _config(data, options),
        "data": {
            "records": data.records,
            "payload_bytes": data.payload_bytes,
            "camera_frames": len(data.jpegs),
            "jpeg_mean_bytes": sum(map(len, data.jpegs)) / len(data.jpegs),
        },
        "formats": formats,
        "ratios": _ratios(formats),
        "decoder": {
            "alone": decode["decoder"],
            "alone_ms": decode["decoder_alone_s"] * 1e3,
            "media_decode_frame_ms": decode["media_decode_s"] * 1e3,
            "fsr_core_media_backend": JpegCodec().backend,
        },
        "jpeg_decoders": decoders,
        "big": big,
        "targets": _targets(formats, big),
    }


# ------------------------------------------------------------------- output
_READ_TARGETS = {
    "open_ms": f"<= {TARGET_OPEN_MS:g} ms @ 1 GB; <= MCAP",
    "seek_numeric_us": f"<= {TARGET_NUMERIC_SEEK_US:g} us; <= MCAP",
    "seek_camera_us": "<= MCAP",
    "seek_decode_camera_ms": "<= MCAP",
    "seek_decode_over_decoder": f"<= {TARGET_DECODE_RATIO:g}x",
    "mb_per_s": ">= MCAP",
    "records_per_s": ">= MCAP",
}

# (label, key path, number format, counts as a read figure)
_TABLE = (
    ("write, pre-encoded (MB/s)", ("write_encoded", "mb_per_s"), "{:.0f}", False),
    ("write, pre-encoded (rec/s)", ("write_encoded", "records_per_s"), "{:.0f}", False),
    ("write, full path (MB/s) [1]", ("write_full", "mb_per_s"), "{:.0f}", False),
    ("write, full path (rec/s) [1]", ("write_full", "records_per_s"), "{:.0f}", False),
    ("file size (MB)", ("file_bytes",), "{:.1f}", False),
    ("open (ms)", ("open_ms",), "{:.2f}", True),
    ("numeric seek, median (us)", ("seek_numeric_us",), "{:.1f}", True),
    ("camera seek, median (us)", ("seek_camera_us",), "{:.1f}", True),
    ("camera seek+decode, median (ms)", ("seek_decode_camera_ms",), "{:.2f}", True),
    ("  / decoder alone (x)", ("seek_decode_over_decoder",), "{:.2f}", True),
    ("full scan (MB/s)", ("scan", "mb_per_s"), "{:.0f}", True),
    ("full scan (records/s)", ("scan", "records_per_s"), "{:.0f}", True),
)  # fmt: skip


def _row(*cells: str) -> str:
    name, fsr, mcap, ratio, target = cells
    return f"  {name:<34}{fsr:>10}{mcap:>10}{ratio:>10}  {target}".rstrip()


def _side_by_side(result: dict[str, Any]) -> Iterator[str]:
    fsr, mcap = result["formats"]["fsr"], result["formats"]["mcap"]
    yield _row("figure", "FSR", "MCAP", "FSR/MCAP", "target")
    for name, path, fmt, read in _TABLE:
        ours, theirs = _get(fsr, path), _get(mcap, path)
        scale = 1 / MB if path == ("file_bytes",) else 1.0
        target = _READ_TARGETS[path[-1]] if read else ""
        yield _row(
            name,
            fmt.format(ours * scale),
            fmt.format(theirs * scale),
            f"{ours / theirs:.2f}",
            target,
        )
    yield (
        "  [1] encoding included: FSR encodes JPEG and render state on its 2 worker"
        " threads, the MCAP loop encodes inline"
    )


def _header(result: dict[str, Any]) -> Iterator[str]:
    config, data = result["config"], result["data"]
    mcap = result["formats"]["mcap"]
    yield (
        f"FSR vs MCAP, {config['seconds']:g} s: {config['width']}x{config['height']}"
        f" JPEG q{config['jpeg_quality']} {config['chroma']} at"
        f" {config['camera_hz']} Hz, {config['numeric_channels']} float64 channels"
        f" at {config['numeric_hz']} Hz (one record per tick), render state at"
        f" {config['render_hz']} Hz"
    )
    yield (
        f"  {data['records']} records, {data['payload_bytes'] / MB:.1f} MB of"
        f" payload ({data['camera_frames']} frames, mean JPEG"
        f" {data['jpeg_mean_bytes'] / 1e3:.1f} KB, the same bytes in both files);"
        f" MCAP chunked {mcap['chunk_size'] >> 20} MiB, {mcap['compression']}"
    )
    yield (
        f"  medians of {config['seeks']} random seeks (seed {config['seed']}),"
        f" {config['opens']} opens, {config['repeat']} writes and scans; both"
        " writes end with fsync; files read warm (page cache)"
    )


def _decoder_lines(result: dict[str, Any]) -> Iterator[str]:
    decoder = result["decoder"]
    yield (
        f"JPEG decoders, {WIDTH}x{HEIGHT} 4:4:4 q{JPEG_QUALITY}, median per frame"
        f" (fsr_core.media uses {decoder['fsr_core_media_backend']}):"
    )
    for row in result["jpeg_decoders"]:
        figure = f"{row['median_ms']:.2f} ms" if row["available"] else "not available"
        note = f"  ({row['note']})" if row["note"] else ""
        yield f"  {row['name']:<30}{figure:>14}{note}"
    yield (
        f"  camera seek+decode is divided by {decoder['alone']} alone on the same"
        f" frames: {decoder['alone_ms']:.2f} ms (decode_frame"
        f" {decoder['media_decode_frame_ms']:.2f} ms)"
    )


def _big_lines(big: dict[str, Any] | None) -> Iterator[str]:
    if big is None:
        yield "Big file: not measured (run with --big)"
        return
    yield (
        f"Big file: {big['file_bytes'] / 1e9:.2f} GB, {big['frames']} camera frames"
        f" ({big['records']} records), written in {big['write_s']:.1f} s"
    )
    small = f"small file ({big['small_file_bytes'] / MB:.0f} MB)"
    yield f"  {'':<30}{small:>18}{'big file':>12}  target"
    rows = (
        ("open, warm (ms)", "open_ms", "{:.2f}", f"<= {TARGET_OPEN_MS:g} ms"),
        ("open, evicted from cache (ms)", "cold_open_ms", "{:.2f}", ""),
        ("camera seek, median (us)", "camera_seek_us", "{:.1f}", ""),
    )
    for name, key, fmt, target in rows:
        ours, theirs = big[f"{key}_small"], big[f"{key}_big"]
        yield (
            f"  {name:<30}{fmt.format(ours):>18}{fmt.format(theirs):>12}  {target}"
        ).rstrip()


def render_text(result: dict[str, Any]) -> str:
    """Return the human-readable report."""
    lines = [*_header(result), "", *_side_by_side(result), "", "Targets:"]
    for target in result["targets"]:
        mark = "met" if target["met"] else "MISSED"
        value = f"{target['value']:.3g} {target['unit']}"
        lines.append(f"  {target['name']:<36}{value:>12}  {target['target']:<24}{mark}")
    lines += ["", *_decoder_lines(result), "", *_big_lines(result["big"])]
    return "\n".join(lines)


# --------------------------------------------------------------------- main
def _parser() -> argparse.ArgumentParser:
    parser = bench.argument_parser(__doc__)
    add = parser.add_argument
    add(
        "--seconds",
        type=bench.positive(float),
        default=60.0,
        help="length of the recording in seconds (default 60)",
    )
    add(
        "--big",
        action="store_true",
        help="also write and open a ~1 GB FSR file (refused below 3 GB free)",
    )
    bench.add_counts(
        parser,
        {
            "--repeat": (3, "writes and full scans per format, median reported"),
            "--seeks": (200, "random seeks per seek figure"),
            "--opens": (50, "opens per format"),
            "--decodes": (100, "decodes per JPEG decoder in the comparison"),
        },
    )
    return parser


def _check_disk(directory: Path) -> None:
    free = shutil.disk_usage(directory).free
    if free < BIG_MIN_FREE_BYTES:
        raise BenchError(
            f"--big needs {BIG_MIN_FREE_BYTES / 1e9:.0f} GB free in {directory},"
            f" only {free / 1e9:.1f} GB are"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table (or JSON); return the exit code."""
    args = _parser().parse_args(argv)
    options = Options(
        args.seconds, args.repeat, args.seeks, args.opens, args.decodes, args.big
    )

    def measure(directory: Path) -> dict[str, Any]:
        if options.big:
            _check_disk(directory)
        return run(directory, options)

    return bench.report("bench_format", args, measure, render_text)


if __name__ == "__main__":
    raise SystemExit(main())
