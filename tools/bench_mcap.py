"""Benchmark the MCAP source against the ``mcap`` library's own reader.

The file: a ROS 2 run of ``--minutes`` minutes (default 60), written with
``mcap-ros2-support``'s writer (chunked, zstd): ``/joint_states``
(``sensor_msgs/msg/JointState``, 7 joints) at 100 Hz and
``/camera/image/compressed`` (``sensor_msgs/msg/CompressedImage``, one
640x480 JPEG re-sent) at ``--camera-hz`` (default 10). A minute is about
42 MB: 24 minutes make the issue's 1 GB file, an hour 2.5 GB. Each figure is
printed beside the same work done by the library alone, in the same run, and
the ratio beside the issue's target:

- **open**: ``open_recording`` (model ready: timeline, channels, camera
  list; channels and frame times are read when first asked for) against
  ``make_reader(...).get_summary()``; target ratio <= 1.2;
- **seek**: fetching the camera frame at a random time (the source's
  ``CameraTrack.fetch``, chunk not cached) against reading and decompressing
  that chunk (summary already loaded) with ``zstandard`` and decoding that one
  JPEG with Pillow; target <= 1.3;
- **plot**: open, then the ``/joint_states`` channel's times and values
  (what its plot draws), against the library decoding every JointState
  message (``iter_decoded_messages``); target: <= 1 s for an hour at 100 Hz.
  Beside it, the floor: reading and decompressing, on two threads, every
  chunk that holds ``/joint_states`` (the camera's images share its chunks),
  with nothing decoded.

Then the memory of plotting that channel, measured in a fresh process: how far
reading it raised the process's peak resident size, beside the size of the
channel's arrays and of the file (target: in proportion to the channel).

``--quick`` writes a one-minute file (the tests run that). Times are
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


def _jpeg() -> bytes:
    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _header(time_ns: int, frame: str) -> dict[str, object]:
    return {
        "stamp": {"sec": time_ns // 10**9, "nanosec": time_ns % 10**9},
        "frame_id": frame,
    }


def write_run(path: Path, minutes: float, camera_hz: float) -> None:
    """Write the benchmark's ROS 2 run."""
    jpeg = _jpeg()
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


def _median(run: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def _library_seek(path: Path, summary: Any, time_ns: int) -> None:
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
    with Image.open(io.BytesIO(_JPEG)) as image:
        image.convert("RGB").load()


def _decompress_only(path: Path, summary: Any, topic: str) -> int:
    """Read and decompress every chunk holding ``topic`` on two threads; return them.

    No message is decoded: the least any reader of that topic must do with
    these files, whose chunks interleave its messages with camera images.
    """
    from concurrent.futures import ThreadPoolExecutor

    import zstandard
    from mcap.data_stream import ReadDataStream
    from mcap.records import Chunk

    ids = {c.id for c in summary.channels.values() if c.topic == topic}
    chunks = [
        index
        for index in summary.chunk_indexes
        if ids & set(index.message_index_offsets)
    ]

    def one(index: Any) -> int:
        with path.open("rb") as stream:
            stream.seek(index.chunk_start_offset + 9)
            chunk = Chunk.read(ReadDataStream(stream))
        data = zstandard.ZstdDecompressor().decompress(
            chunk.data, max_output_size=chunk.uncompressed_size
        )
        return len(data)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, chunks))
    return len(chunks)


_JPEG = _jpeg()


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


def main(argv: list[str] | None = None) -> int:
    """Write the run, time each side, print the table and the memory line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--camera-hz", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a one-minute file")
    args = parser.parse_args(argv)
    minutes = 1.0 if args.quick else args.minutes
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.mcap"
        start = time.perf_counter()
        write_run(path, minutes, args.camera_hz)
        # Flushed before timing: the disk writing 2.5 GB back slowed the reads.
        os.sync()
        size_mb = path.stat().st_size / 1e6
        print(
            f"file: {minutes:g} min, {size_mb:.1f} MB, written in "
            f"{time.perf_counter() - start:.1f} s"
        )
        _summary(path)
        _open_and_plot(path)  # imports the decoders: every round below runs warm
        summary_s = _median(lambda: _summary(path), args.rounds)
        open_s = _median(lambda: open_recording(path), args.rounds)
        model = open_recording(path)
        track = model.cameras[0]
        # Frames a minute apart (or spread over a short file) sit in different
        # chunks, so every fetch decompresses its chunk afresh.
        count = len(track.times_s)
        picks = [
            count * (k + 1) // (args.rounds * 4 + 2) for k in range(args.rounds * 4)
        ]
        random.Random(5).shuffle(picks)
        seek_s = statistics.median(
            _timed(functools.partial(track.fetch, i)) for i in picks
        )
        with path.open("rb") as stream:
            summary = make_reader(stream).get_summary()
        library_seek_s = statistics.median(
            _timed(
                functools.partial(
                    _library_seek,
                    path,
                    summary,
                    _START_NS + round(float(track.times_s[i]) * 1e9),
                )
            )
            for i in picks
        )
        plot_s = _median(lambda: _open_and_plot(path), args.rounds)
        library_plot_s = _median(lambda: _library_plot(path), 1)
        floor_s = _median(
            lambda: _decompress_only(path, summary, "/joint_states"), args.rounds
        )
        raised, arrays = plot_memory(path)
        rows = [
            ("open", open_s, summary_s, "<= 1.2"),
            ("seek + show a camera frame", seek_s, library_seek_s, "<= 1.3"),
            ("plot /joint_states (with open)", plot_s, library_plot_s, "<= 1 s at 1 h"),
        ]
        print(f"{'task':<32} {'ours s':>9} {'mcap s':>9} {'ratio':>7}  target")
        for name, ours, theirs, target in rows:
            ratio = ours / theirs if theirs > 0 else float("inf")
            print(f"{name:<32} {ours:>9.4f} {theirs:>9.4f} {ratio:>7.2f}  {target}")
        print(
            f"floor: reading and decompressing the chunks that hold /joint_states "
            f"(2 threads, nothing decoded) takes {floor_s:.3f} s; the plot is "
            f"{plot_s / floor_s:.2f}x that"
        )
        print(
            f"memory: plotting /joint_states raised peak RSS by {raised / 1e6:.1f} MB "
            f"(its arrays: {arrays / 1e6:.1f} MB; the file: {size_mb:.1f} MB)"
        )
    return 0


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
