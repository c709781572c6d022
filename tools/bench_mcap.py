"""Benchmark the MCAP source against the ``mcap`` library's own reader.

The file: a ROS 2 run of ``--minutes`` minutes (default 60), written with
``mcap-ros2-support``'s writer (chunked, zstd): ``/joint_states``
(``sensor_msgs/msg/JointState``, 7 joints) at 100 Hz and
``/camera/image/compressed`` (``sensor_msgs/msg/CompressedImage``, 640x480
JPEG) at ``--camera-hz`` (default 10), the camera's images sharing the
joint states' chunks. ``--camera`` picks the camera's frames:

- ``scene``: 32 distinct frames of a drawn scene with sensor noise (about
  63 KB each), sent in turn, as a camera's frames differ from one to the
  next: chunks barely compress, and an hour is about 2.4 GB;
- ``noise``: one frame of random pixels (about 250 KB, the worst case for
  JPEG) sent again and again: zstd finds the repeats, so the 2.5 GB of an
  hour decompress to 10 GB, all of which reading the topic must go through;
- ``both`` (the default): one file of each, in turn.

Each figure is printed beside the same work done by the library alone, in
the same run, and the ratio beside the issue's target:

- **open**: ``open_recording`` (model ready: timeline, channels, camera
  list; channels and frame times are read when first asked for) against
  ``make_reader(...).get_summary()``, rounds alternating; target ratio <= 1.2;
- **seek**: fetching the camera frame at a random time (the source's
  ``CameraTrack.fetch``, chunk not cached) against reading and decompressing
  that chunk (summary already loaded) with ``zstandard`` and decoding that one
  JPEG with Pillow; target <= 1.3;
- **plot**: open, then the ``/joint_states`` channel's times and values
  (what its plot draws), against the library decoding every JointState
  message (``iter_decoded_messages``); target: <= 1 s for an hour at 100 Hz.
  Beside it, the floor: reading (``os.pread``) and decompressing, on two
  threads, every chunk that holds ``/joint_states``, with nothing decoded;
  then the same with each chunk's CRC checked, as the source does.

Then the memory of plotting that channel, measured in a fresh process: how far
reading it raised the process's peak resident size, beside the size of the
channel's arrays and of the file (target: in proportion to the channel).

``--quick`` writes one-minute files (the tests run that). Times are
``time.perf_counter`` medians of ``--rounds`` runs, files read warm.
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from mcap_ros2.writer import Writer as Ros2Writer
from PIL import Image

from bench_common import median_time, time_once
from fsr_core.sources import open_recording

_RULE = "=" * 80
_HEADER_DEFINITIONS = (
    f"{_RULE}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\n"
    f"string frame_id\n{_RULE}\nMSG: builtin_interfaces/Time\n"
    "int32 sec\nuint32 nanosec\n"
)
_JOINT_STATE = (
    "std_msgs/Header header\nstring[] name\nfloat64[] position\n"
    "float64[] velocity\nfloat64[] effort\n" + _HEADER_DEFINITIONS
)
_COMPRESSED_IMAGE = (
    "std_msgs/Header header\nstring format\nuint8[] data\n" + _HEADER_DEFINITIONS
)
_START_NS = 1_700_000_000_000_000_000
_JOINTS = [f"joint_{i}" for i in range(1, 8)]


def _encoded(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def noise_frames() -> list[bytes]:
    """One 640x480 frame of random pixels (about 250 KB as JPEG)."""
    rng = np.random.default_rng(7)
    return [_encoded(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8))]


def scene_frames(count: int = 32) -> list[bytes]:
    """``count`` distinct 640x480 frames of a scene (about 63 KB each as JPEG).

    A lit backdrop, a checkered floor, a disc and a box that move from frame
    to frame, and sensor noise (sigma 5), as a simulator's camera renders.
    """
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:480, 0:640].astype(np.float32)
    floor = yy > 300
    checker = (((xx // 20) + (yy // 20)) % 2)[floor]
    frames = []
    for k in range(count):
        image = np.empty((480, 640, 3), dtype=np.float32)
        image[..., 0] = 90 + 60 * np.sin(xx / 90 + k * 0.1)
        image[..., 1] = 110 + 50 * np.cos(yy / 70 - k * 0.05)
        image[..., 2] = 130 + 40 * np.sin((xx + yy) / 120)
        image[floor] = (60 + 120 * checker)[:, None]
        disc_x, disc_y = 320 + 150 * np.cos(k * 0.2), 200 + 60 * np.sin(k * 0.2)
        image[(xx - disc_x) ** 2 + (yy - disc_y) ** 2 < 60**2] = (220, 60, 40)
        image[(abs(xx - 100 - 12 * k) < 40) & (abs(yy - 120) < 30)] = (30, 200, 90)
        image += rng.normal(0, 5, image.shape).astype(np.float32)
        frames.append(_encoded(np.clip(image, 0, 255).astype(np.uint8)))
    return frames


CAMERAS: dict[str, Callable[[], list[bytes]]] = {
    "scene": scene_frames,
    "noise": noise_frames,
}
"""The ``--camera`` choices: how each makes the camera's frames."""


def _header(time_ns: int, frame: str) -> dict[str, object]:
    return {
        "stamp": {"sec": time_ns // 10**9, "nanosec": time_ns % 10**9},
        "frame_id": frame,
    }


def write_run(
    path: Path, minutes: float, camera_hz: float, frames: list[bytes]
) -> None:
    """Write the benchmark's ROS 2 run, the camera sending ``frames`` in turn."""
    with path.open("wb") as stream:
        writer = Ros2Writer(stream)
        joints = writer.register_msgdef("sensor_msgs/msg/JointState", _JOINT_STATE)
        images = writer.register_msgdef(
            "sensor_msgs/msg/CompressedImage", _COMPRESSED_IMAGE
        )
        steps = round(minutes * 60 * 100)
        every = max(round(100 / camera_hz), 1)
        for step in range(steps):
            time_ns = _START_NS + step * 10_000_000
            angle = step * 0.01
            writer.write_message(
                "/joint_states",
                joints,
                {
                    "header": _header(time_ns, ""),
                    "name": _JOINTS,
                    "position": [np.sin(angle + i) for i in range(7)],
                    "velocity": [np.cos(angle + i) for i in range(7)],
                    "effort": [0.1 * i for i in range(7)],
                },
                log_time=time_ns,
                publish_time=time_ns,
            )
            if step % every == 0:
                jpeg = frames[(step // every) % len(frames)]
                writer.write_message(
                    "/camera/image/compressed",
                    images,
                    {
                        "header": _header(time_ns, "camera"),
                        "format": "jpeg",
                        "data": jpeg,
                    },
                    log_time=time_ns,
                    publish_time=time_ns,
                )
        writer.finish()  # type: ignore[no-untyped-call]


def _summary(path: Path) -> None:
    with path.open("rb") as stream:
        make_reader(stream).get_summary()


def _library_plot(path: Path) -> int:
    count = 0
    with path.open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _ in reader.iter_decoded_messages(topics=["/joint_states"]):
            count += 1
    return count


def _library_seek(path: Path, summary: Any, time_ns: int, jpeg: bytes) -> None:
    import zstandard
    from mcap.data_stream import ReadDataStream
    from mcap.records import Chunk

    with path.open("rb") as stream:
        index = next(c for c in summary.chunk_indexes if c.message_end_time >= time_ns)
        stream.seek(index.chunk_start_offset + 9)
        chunk = Chunk.read(ReadDataStream(stream))
        zstandard.ZstdDecompressor().decompress(
            chunk.data, max_output_size=chunk.uncompressed_size
        )
    with Image.open(io.BytesIO(jpeg)) as image:
        image.convert("RGB").load()


def _decompress_only(path: Path, summary: Any, topic: str, *, crc: bool) -> int:
    """Read and decompress every chunk holding ``topic`` on two threads.

    No message is decoded: the least any reader of that topic must do with
    these files, whose chunks interleave its messages with camera images.
    With ``crc``, each chunk's CRC is checked too (zlib-ng's, the fastest at
    hand), as a reader that verifies what it shows must. Returns the chunks.
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import zstandard

    from fsr_core.checksums import crc32

    ids = {c.id for c in summary.channels.values() if c.topic == topic}
    chunks = [
        index
        for index in summary.chunk_indexes
        if ids & set(index.message_index_offsets)
    ]
    local = threading.local()

    def one(fd: int, index: Any) -> None:
        if not hasattr(local, "zstd"):
            local.zstd = zstandard.ZstdDecompressor()
        record = os.pread(fd, index.chunk_length, index.chunk_start_offset)
        # The chunk record's fields before its records, by the specification.
        name_length = int.from_bytes(record[37:41], "little")
        start = 41 + name_length + 8
        data = local.zstd.decompress(
            memoryview(record)[start:], max_output_size=index.uncompressed_size
        )
        if crc and crc32(data) != int.from_bytes(record[33:37], "little"):
            raise SystemExit(f"{path}: chunk CRC mismatch")

    fd = os.open(path, os.O_RDONLY)
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(functools.partial(one, fd), chunks))
    finally:
        os.close(fd)
    return len(chunks)


def _open_and_plot(path: Path) -> int:
    """Open the file and read ``/joint_states`` as its plot does; return samples."""
    channel = open_recording(path).channels["/joint_states"]
    times, values = channel.times_s, channel.values
    return min(len(times), len(values))


_MEMORY_PROBE = """
import json, resource, sys
from pathlib import Path
from fsr_core.sources import open_recording

def resident():
    try:
        with open("/proc/self/statm") as stream:
            pages = int(stream.read().split()[1])
        return pages * resource.getpagesize()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

channel = open_recording(Path(sys.argv[1])).channels["/joint_states"]
before = resident()
arrays = channel.times_s.nbytes + channel.values.nbytes
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"raised": max(peak - before, 0), "arrays": arrays}))
"""


def plot_memory(path: Path) -> tuple[int, int]:
    """Return how far plotting ``/joint_states`` raises peak RSS, and its arrays' size.

    Runs in a fresh interpreter, so what this process did before does not
    hide the peak (bytes; Linux counts the peak in KiB).
    """
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(root), env.get("PYTHONPATH", "")) if part
    )
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=3600,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return int(found["raised"]), int(found["arrays"])


def _alternating(
    first: Callable[[], object], second: Callable[[], object], rounds: int
) -> tuple[float, float]:
    """Return the median times of ``first`` and ``second``, run in turn."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        times[0].append(time_once(first))
        times[1].append(time_once(second))
    return statistics.median(times[0]), statistics.median(times[1])


def measure(path: Path, frames: list[bytes], rounds: int) -> list[str]:
    """Time each side on the file at ``path``; return the lines to print."""
    _summary(path)
    _open_and_plot(path)  # imports the decoders: every round below runs warm
    # Opening is quick and the machine noisy: more rounds, the two in turn.
    summary_s, open_s = _alternating(
        lambda: _summary(path), lambda: open_recording(path), rounds * 3
    )
    model = open_recording(path)
    track = model.cameras[0]
    # Frames a minute apart (or spread over a short file) sit in different
    # chunks, so every fetch decompresses its chunk afresh.
    count = len(track.times_s)
    picks = [count * (k + 1) // (rounds * 4 + 2) for k in range(rounds * 4)]
    random.Random(5).shuffle(picks)
    seek_s = statistics.median(
        time_once(functools.partial(track.fetch, i)) for i in picks
    )
    with path.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    library_seek_s = statistics.median(
        time_once(
            functools.partial(
                _library_seek,
                path,
                summary,
                _START_NS + round(float(track.times_s[i]) * 1e9),
                frames[i % len(frames)],
            )
        )
        for i in picks
    )
    plot_s = median_time(lambda: _open_and_plot(path), rounds)
    library_plot_s = median_time(lambda: _library_plot(path), 1)
    floor_s, checked_s = (
        median_time(
            functools.partial(
                _decompress_only, path, summary, "/joint_states", crc=crc
            ),
            rounds,
        )
        for crc in (False, True)
    )
    raised, arrays = plot_memory(path)
    rows = [
        ("open", open_s, summary_s, "<= 1.2"),
        ("seek + show a camera frame", seek_s, library_seek_s, "<= 1.3"),
        ("plot /joint_states (with open)", plot_s, library_plot_s, "<= 1 s at 1 h"),
    ]
    lines = [f"{'task':<32} {'ours s':>9} {'mcap s':>9} {'ratio':>7}  target"]
    for name, ours, theirs, target in rows:
        ratio = ours / theirs if theirs > 0 else float("inf")
        lines.append(f"{name:<32} {ours:>9.4f} {theirs:>9.4f} {ratio:>7.2f}  {target}")
    lines.append(
        f"floor: reading and decompressing the chunks that hold /joint_states "
        f"(2 threads, nothing decoded) takes {floor_s:.3f} s, {checked_s:.3f} s "
        f"with their CRCs checked; the plot is {plot_s / checked_s:.2f}x that"
    )
    size_mb = path.stat().st_size / 1e6
    lines.append(
        f"memory: plotting /joint_states raised peak RSS by {raised / 1e6:.1f} MB "
        f"(its arrays: {arrays / 1e6:.1f} MB; the file: {size_mb:.1f} MB)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write each file, time each side, print the table and the memory line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--camera-hz", type=float, default=10.0)
    parser.add_argument(
        "--camera", choices=[*CAMERAS, "both"], default="both", help="its frames"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one-minute files")
    args = parser.parse_args(argv)
    minutes = 1.0 if args.quick else args.minutes
    cameras = list(CAMERAS) if args.camera == "both" else [args.camera]
    for number, camera in enumerate(cameras):
        frames = CAMERAS[camera]()
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.mcap"
            start = time.perf_counter()
            write_run(path, minutes, args.camera_hz, frames)
            # Flushed before timing: the disk writing 2.5 GB back slowed the reads.
            os.sync()
            sizes = sorted(len(frame) for frame in frames)
            print(
                ("\n" if number else "")
                + f"file: {minutes:g} min, {camera} camera ({len(frames)} "
                f"distinct frame{'s' if len(frames) > 1 else ''}, "
                f"{sizes[len(sizes) // 2] / 1e3:.0f} KB), "
                f"{path.stat().st_size / 1e6:.1f} MB, written in "
                f"{time.perf_counter() - start:.1f} s"
            )
            for line in measure(path, frames, args.rounds):
                print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
