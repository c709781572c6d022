"""Benchmark the Rerun source against rerun-sdk loading the same ``.rrd``.

The recording: ``--seconds`` of an arm run (default 90 s, about 200 MB),
written by rerun-sdk itself (``rr.init`` + ``rr.save``): seven joint angles
at 500 Hz (``Scalars``, sent as columns on a ``sim_time`` timeline), a
moving camera (``Transform3D``) with a ``Pinhole`` and 320x240 RGB
``Image`` frames of noise (which no compression shrinks) at 10 Hz, and a
``TextLog`` line a second.

Each figure is printed beside the work rerun-sdk does on its own, in the
same run, and their ratio:

- **open**: ``open_recording`` (the model ready: channels, frame times,
  calibration, scene and events; the image bytes left for later), what the
  window waits for before it shows the timeline, against rerun-sdk loading
  the recording into its in-memory store
  (``RrdReader(path).store().stream().collect()``, as its viewer holds it);
- **first frame**: the open and the first camera frame decoded (which reads
  that camera's image bytes) against the same load;
- **manifest**: rerun-sdk opening its lazy store (the manifest alone), the
  floor of any lazy open.

Times are ``time.perf_counter`` medians of ``--rounds`` runs, the file read
warm. Needs the ``rerun`` extra. ``--quick`` writes a six-second recording.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

import numpy as np
import rerun as rr
import rerun.chunk as rrc

from bench_common import median_time, numbers_parser
from fsr_core.sources import open_recording

JOINT_HZ: Final = 500
CAMERA_HZ: Final = 10
WIDTH, HEIGHT = 320, 240
JOINTS: Final = 7


def write_recording(path: Path, seconds: float) -> None:
    """Write the benchmark's recording with rerun-sdk."""
    stream = rr.RecordingStream("fsr_bench", recording_id="bench")
    stream.save(str(path))
    steps = int(seconds * JOINT_HZ)
    times = np.arange(steps) / JOINT_HZ
    angles = np.sin(times[:, None] * np.arange(1, JOINTS + 1))
    stream.log(
        "arm/joint_positions",
        rr.SeriesLines(names=[f"joint_{j}" for j in range(1, JOINTS + 1)]),
        static=True,
    )
    stream.send_columns(
        "arm/joint_positions",
        indexes=[rr.TimeColumn("sim_time", duration=times)],
        columns=rr.Scalars.columns(scalars=angles).partition([JOINTS] * steps),
    )
    stream.log(
        "world/camera/image",
        rr.Pinhole(focal_length=300.0, width=WIDTH, height=HEIGHT),
        static=True,
    )
    rng = np.random.default_rng(0)
    for frame in range(int(seconds * CAMERA_HZ)):
        stream.set_time("sim_time", duration=frame / CAMERA_HZ)
        stream.log("world/camera", rr.Transform3D(translation=[frame * 0.01, 0, 1]))
        pixels = rng.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8)
        stream.log("world/camera/image", rr.Image(pixels))
        if frame % CAMERA_HZ == 0:
            stream.log("events", rr.TextLog(f"second {frame // CAMERA_HZ}"))
    stream.disconnect()


def _rerun_load(path: Path) -> int:
    store = rrc.RrdReader(str(path)).store().stream().collect()
    return len(store)


def _rerun_manifest(path: Path) -> int:
    return len(rrc.RrdReader(str(path)).store())


def _source_open(path: Path) -> int:
    return len(open_recording(path).channels)


def _source_first_frame(path: Path) -> int:
    model = open_recording(path)
    frame, _ = model.cameras[0].fetch(0)
    return int(frame.pixels.shape[0])


def measure(path: Path, rounds: int) -> list[str]:
    """Return the printed lines of the recording's figures."""
    size_mb = path.stat().st_size / 1e6
    _rerun_load(path)  # warm the file and rerun-sdk's import
    loaded = median_time(lambda: _rerun_load(path), rounds)
    manifest = median_time(lambda: _rerun_manifest(path), rounds)
    opened = median_time(lambda: _source_open(path), rounds)
    first = median_time(lambda: _source_first_frame(path), rounds)
    return [
        f"{path.name} ({size_mb:.0f} MB, rerun-sdk {rr.__version__})",
        f"  open (timeline shown): source {opened:.3f} s, rerun-sdk loading it "
        f"{loaded:.3f} s ({opened / loaded:.2f}x; window target 0.5 s)",
        f"  first frame: source open + frame {first:.3f} s "
        f"({first / loaded:.2f}x rerun-sdk's load)",
        f"  rerun-sdk lazy store (manifest only): {manifest:.3f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    """Write the recording, measure both, print the figures."""
    parser = numbers_parser(__doc__, {"--seconds": 90.0, "--rounds": 3})
    parser.add_argument("--quick", action="store_true", help="a six-second run")
    args = parser.parse_args(argv)
    seconds = 6.0 if args.quick else args.seconds
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "run.rrd"
        write_recording(path, seconds)
        for line in measure(path, args.rounds):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
