"""Benchmark the HDF5 dataset source against h5py reading the same arrays.

It writes (with h5py, at bench time, in a temporary folder; ``--data DIR``
keeps it for the next run) a robomimic-layout file of ``--episodes``
episodes (default 200) of ``--steps`` steps (default 150), each with a
128x128 RGB camera chunked one frame per chunk (about 1.5 GB in all) and the
usual numeric arrays (actions, states, rewards, dones, joint and
end-effector observations), then prints, each against h5py in the same run:

* **open**: listing the file's episodes and opening the first one with
  every numeric channel read (what the player needs to play and plot it),
  against h5py listing the ``demo_N`` groups and reading the first episode's
  non-image arrays (target: at most 1.3x);
* **frame**: one random camera frame (of the first episodes), as the camera
  view asks for it, against h5py reading that frame from the open file
  (target: at most 1.3x); **upright**: the same against h5py reading it and
  turning robosuite's bottom-first rows upright, as the viewer does.

Run it from the project's environment with the ``hdf5`` extra::

    .venv/bin/python tools/bench_hdf5.py [--episodes 200] [--steps 150]
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from bench_common import median_time, numbers_parser
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import expand_recordings, open_recording

SIZE = 128
CAMERA = "obs/agentview_image"
NUMERIC = {
    "actions": 7,
    "states": 45,
    "rewards": 0,
    "dones": 0,
    "obs/robot0_joint_pos": 7,
    "obs/robot0_joint_vel": 7,
    "obs/robot0_eef_pos": 3,
    "obs/robot0_eef_quat": 4,
    "obs/cube_pos": 3,
}


def write_file(path: Path, episodes: int, steps: int) -> None:
    """Write the benchmark's robomimic-layout file with h5py."""
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 255, size=(steps, SIZE, SIZE, 3), dtype=np.uint8)
    with h5py.File(path, "w") as handle:
        data = handle.create_group("data")
        data.attrs["env_args"] = json.dumps(
            {"env_name": "Lift", "type": 1, "env_kwargs": {"control_freq": 20}}
        )
        for number in range(1, episodes + 1):
            demo = data.create_group(f"demo_{number}")
            for key, width in NUMERIC.items():
                shape = (steps, width) if width else (steps,)
                demo.create_dataset(key, data=rng.standard_normal(shape))
            demo.create_dataset(
                CAMERA,
                data=np.roll(frames, number, axis=0),
                chunks=(1, SIZE, SIZE, 3),
            )
            demo.attrs["num_samples"] = steps


def _natural(name: str) -> int:
    found = re.search(r"([0-9]+)$", name)
    return int(found.group(1)) if found else -1


def h5py_open(path: Path) -> int:
    """List the episodes and read the first one's non-image arrays with h5py."""
    with h5py.File(path, "r", locking=False) as handle:
        data = handle["data"]
        names = sorted(data, key=_natural)
        lengths = [data[name]["actions"].shape[0] for name in names]
        first = data[names[0]]
        read = [first[key][()] for key in NUMERIC]
    return len(lengths) + len(read)


def viewer_open(path: Path) -> Any:
    """List the episodes and open the first one, every channel read.

    The file's modification time is moved first, so the source reads its
    layout again as for a file opened for the first time.
    """
    os.utime(path)
    episodes = expand_recordings([path])
    model = open_recording(episodes[0])
    for channel in model.channels.values():
        channel.values  # noqa: B018 - read it, as a plot does
    return model


def _interleaved(
    ours: Callable[[int], object],
    peer: Callable[[int], object],
    picks: list[tuple[int, int]],
    mine: list[float],
    theirs: list[float],
) -> None:
    """Time ``ours(a)`` and ``peer(b)`` in turn for each pair, into the lists.

    Taking turns (and who goes first) keeps a busy machine's changing load,
    and the file's metadata that the first read of an array loads for both
    (one process shares an HDF5 file's caches), out of the ratio.
    """
    for turn, (first, second) in enumerate(picks):
        for who in (0, 1) if turn % 2 == 0 else (1, 0):
            start = time.perf_counter()
            (ours if who == 0 else peer)(first if who == 0 else second)
            (mine if who == 0 else theirs).append(time.perf_counter() - start)


def _line(what: str, ours: float, peer: float, target: float) -> str:
    ratio = ours / peer
    verdict = "ok" if ratio <= target else "over target"
    return (
        f"{what:<7} viewer {ours * 1e3:8.2f} ms   h5py {peer * 1e3:8.2f} ms   "
        f"ratio {ratio:5.2f}x (target <= {target}x: {verdict})"
    )


def run(path: Path, repeats: int) -> list[str]:
    """Time both questions on ``path``; return the printed lines."""
    viewer_open(path)  # warm the page cache and the imports
    h5py_open(path)
    lines = [
        _line(
            "open",
            median_time(lambda: viewer_open(path), repeats),
            median_time(lambda: h5py_open(path), repeats),
            1.3,
        )
    ]

    # Each frame read once (the HDF5 library caches the chunks it read), the
    # two readers given different frames of the same episodes, in random order.
    # robosuite stores its rows bottom first: the viewer turns them upright
    # (one copy), so h5py is also timed doing the same.
    def upright(dataset: Any) -> Callable[[int], object]:
        return lambda index: np.ascontiguousarray(dataset[index][::-1])

    for label, peer_of in (
        ("frame", lambda dataset: dataset.__getitem__),
        ("upright", upright),
    ):
        mine: list[float] = []
        theirs: list[float] = []
        with h5py.File(path, "r", locking=False) as handle:
            for number in range(1, min(repeats, len(handle["data"])) + 1):
                model = open_recording(episode_path(path, number))
                camera = next(t for t in model.cameras if t.name == CAMERA)
                count = camera.count or 1
                shuffled = random.Random(number).sample(range(count), count)
                pairs = list(zip(shuffled[::2], shuffled[1::2], strict=False))
                dataset = handle[f"data/demo_{number}"][CAMERA]
                _interleaved(camera.fetch, peer_of(dataset), pairs, mine, theirs)
        ours, peer = statistics.median(mine), statistics.median(theirs)
        lines.append(_line(label, ours, peer, 1.3))
    return lines


def main() -> None:
    """Write (or reuse) the file and print the figures."""
    parser = numbers_parser(
        __doc__, {"--episodes": 200, "--steps": 150, "--repeats": 7}
    )
    parser.add_argument("--data", type=Path, help="keep the file in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_hdf5_") as scratch:
        folder = args.data or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"bench_{args.episodes}x{args.steps}.hdf5"
        if not path.is_file():
            start = time.perf_counter()
            write_file(path, args.episodes, args.steps)
            print(
                f"wrote {path} ({path.stat().st_size / 2**30:.2f} GiB) "
                f"in {time.perf_counter() - start:.1f} s"
            )
        for line in run(path, args.repeats):
            print(line)


if __name__ == "__main__":
    main()
