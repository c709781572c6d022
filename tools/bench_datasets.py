"""Benchmark the LeRobot dataset source against the ``lerobot`` library.

Run it from an environment that has both the viewer's core and lerobot (which
needs torch, so it is not part of the test extra), e.g.::

    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-lerobot
    /work/venv-lerobot/bin/pip install "lerobot[dataset]==0.6.1" zstandard simplejpeg
    PYTHONPATH=. /work/venv-lerobot/bin/python tools/bench_datasets.py

It writes three datasets with lerobot's own writer (codebase v3.0) in a
temporary folder (``--data DIR`` keeps them for the next run):

* ``many``: ``--episodes`` episodes (default 1,000) of 5 rows each;
* ``long``: 2 episodes of ``--rows`` rows (default 10,000), state and action;
* ``video``: 4 episodes of 300 frames of a 128x96 AV1 camera in one shared mp4.

and prints, each against lerobot in the same run:

* **open**: listing the dataset and opening its first episode, against
  constructing ``LeRobotDataset`` (target: at most 300 ms for 1,000 episodes);
* **seek**: showing a random frame of episode 2 of ``video`` (a shared mp4),
  against PyAV decoding that frame alone from the keyframe before it
  (target: at most 1.5x) and against ``LeRobotDataset[i]`` (target: 3x faster);
* **plot**: opening a 10,000-row episode with its state and action, against
  lerobot's selecting those columns of the episode (target: at most 50 ms).
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import numbers_parser, times
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import expand_recordings, open_recording
from lerobot_writing import camera_feature, create_dataset, joint_features

JOINTS = [f"joint_{number}" for number in range(1, 7)]
CAMERA = "observation.images.front"
TEST_DATASET = Path(__file__).resolve().parents[1] / "tests/data/lerobot/tiny_v30"
VIDEO_FRAMES = 300
VIDEO_EPISODES = 4
VIDEO_SIZE = (96, 128)  # height, width


def _lerobot() -> Any:
    # Quiet lerobot's import-time warnings (torchcodec without system FFmpeg
    # falls back to PyAV, which is what this benchmark compares with) and
    # the datasets library's progress bars.
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    try:
        import datasets
        from lerobot.datasets.lerobot_dataset import LeRobotDataset
    except ImportError:
        sys.exit(
            "bench_datasets: lerobot is not installed here; run this script from an "
            "environment that has it (see the docstring)"
        )
    datasets.disable_progress_bars()
    return LeRobotDataset


def _write(root: Path, episodes: int, rows: int, *, video: bool, fps: int = 30) -> None:
    """Write a dataset with lerobot's writer unless it is there already."""
    if (root / "meta" / "info.json").exists():
        return
    features = joint_features(JOINTS)
    if video:
        features[CAMERA] = camera_feature(*VIDEO_SIZE)
    dataset = create_dataset(
        _lerobot(),
        root,
        repo_id=f"bench/{root.name}",
        fps=fps,
        features=features,
        use_videos=video,
    )
    joints = np.arange(6, dtype=np.float32)
    started = time.perf_counter()
    for episode in range(episodes):
        for row in range(rows):
            frame: dict[str, Any] = {
                "observation.state": joints * 0.01 * episode + 0.001 * row,
                "action": joints * 0.01 * episode + 0.001 * row + 0.5,
                "task": f"task {episode % 7}",
            }
            if video:
                height, width = VIDEO_SIZE
                y = np.linspace(0, 255, height, dtype=np.float32)[:, None]
                x = np.linspace(0, 255, width, dtype=np.float32)[None, :]
                shade = (row * 3 + episode * 40) % 256
                picture = np.stack(
                    [x + 0 * y, y + 0 * x, np.full((height, width), shade, np.float32)],
                    axis=-1,
                )
                frame[CAMERA] = picture.astype(np.uint8)
            dataset.add_frame(frame)
        dataset.save_episode()
    dataset.finalize()
    print(
        f"  wrote {root.name}: {episodes} episodes x {rows} rows with lerobot in "
        f"{time.perf_counter() - started:.1f} s"
    )


def _median_ms(run: Callable[[], object], repeats: int) -> float:
    return statistics.median([seconds * 1000.0 for seconds in times(run, repeats)])


def _forget_cached_tables() -> None:
    from fsr_core.sources.lerobot import table

    with table._LOCK:
        table._CACHE.clear()


def _ratio(theirs: float | None, mine: float) -> str:
    return "-" if theirs is None else f"{theirs:.2f} ms ({theirs / mine:.1f}x)"


def bench_open(
    root: Path, repeats: int, *, lerobot: bool
) -> tuple[float, float | None]:
    """Return (viewer ms, lerobot ms) to a playable first episode."""

    def viewer() -> None:
        _forget_cached_tables()
        episodes = expand_recordings([root])
        open_recording(episodes[0])

    mine = _median_ms(viewer, repeats)
    if not lerobot:
        return mine, None
    dataset_class = _lerobot()
    return mine, _median_ms(
        lambda: dataset_class(f"bench/{root.name}", root=root), repeats
    )


def _pyav_alone(path: Path, time_s: float) -> np.ndarray:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        base = float(stream.time_base or 1e-6)
        container.seek(int(time_s / base), stream=stream, backward=True)
        for frame in container.decode(stream):
            if frame.pts is not None and frame.pts * base >= time_s - 1e-4:
                return np.asarray(frame.to_ndarray(format="rgb24"))
    raise RuntimeError("frame not found")


def bench_seek(
    root: Path, seeks: int, *, lerobot: bool
) -> tuple[float, float, float | None]:
    """Return median ms of (viewer, PyAV alone, LeRobotDataset[i]) per random frame."""
    model = open_recording(episode_path(root, 2))
    track = next(item for item in model.cameras if item.name == CAMERA)
    span = model.report["videos"][CAMERA]
    video = root / span["file"]
    start_s = float(span["from_timestamp"])
    rng = random.Random(7)
    picks = [rng.randrange(len(track.times_s)) for _ in range(seeks)]
    first_row = int(model.report["dataset_rows"][0])
    viewer: list[float] = []
    alone: list[float] = []
    library: list[float] = []
    dataset = (
        _lerobot()(f"bench/{root.name}", root=root, video_backend="pyav")
        if lerobot
        else None
    )
    for index in picks:
        started = time.perf_counter()
        track.fetch(index)
        viewer.append(time.perf_counter() - started)
        started = time.perf_counter()
        _pyav_alone(video, start_s + float(track.times_s[index]))
        alone.append(time.perf_counter() - started)
        if dataset is not None:
            started = time.perf_counter()
            dataset[first_row + index]
            library.append(time.perf_counter() - started)
    theirs = statistics.median(library) * 1000.0 if library else None
    return (
        statistics.median(viewer) * 1000.0,
        statistics.median(alone) * 1000.0,
        theirs,
    )


def bench_plot(
    root: Path, repeats: int, *, lerobot: bool
) -> tuple[float, float | None]:
    """Return (viewer ms, lerobot ms) to get a whole episode's state and action."""

    def viewer() -> None:
        model = open_recording(episode_path(root, 1))
        for name in ("observation.state", "action"):
            assert model.channels[name].values.shape[1] == 6

    mine = _median_ms(viewer, repeats)
    if not lerobot:
        return mine, None
    dataset = _lerobot()(f"bench/{root.name}", root=root)
    meta = dataset.meta.episodes[1]
    first, last = int(meta["dataset_from_index"]), int(meta["dataset_to_index"])

    def library() -> None:
        rows = dataset.hf_dataset.select(range(first, last))
        for name in ("observation.state", "action"):
            np.asarray(rows.with_format("numpy")[name])

    return mine, _median_ms(library, repeats)


def main(argv: list[str] | None = None) -> int:
    """Write the datasets, run the three measurements, print the figures."""
    parser = numbers_parser(
        __doc__, {"--episodes": 1000, "--rows": 10_000, "--seeks": 30, "--repeats": 5}
    )
    parser.add_argument("--data", type=Path, help="keep the datasets here")
    parser.add_argument(
        "--no-lerobot",
        action="store_true",
        help="time the viewer alone on the test dataset (no lerobot needed)",
    )
    args = parser.parse_args(argv)
    lerobot = not args.no_lerobot
    with tempfile.TemporaryDirectory() as scratch:
        if lerobot:
            base = args.data or Path(scratch)
            base.mkdir(parents=True, exist_ok=True)
            many, long, video = base / "many", base / "long", base / "video"
            _write(many, args.episodes, 5, video=False)
            _write(long, 2, args.rows, video=False)
            _write(video, VIDEO_EPISODES, VIDEO_FRAMES, video=True)
            episodes, rows = args.episodes, args.rows
        else:
            many = long = video = TEST_DATASET
            episodes, rows = 3, 10
        mine, theirs = bench_open(many, args.repeats, lerobot=lerobot)
        print(
            f"open {episodes} episodes to a playable first one: {mine:.1f} ms "
            f"(target <= 300 ms); LeRobotDataset(): {_ratio(theirs, mine)}"
        )
        mine, alone, library = bench_seek(video, args.seeks, lerobot=lerobot)
        speedup = "-" if library is None else f"{library / mine:.1f}x slower"
        print(
            f"random AV1 frame of episode 2 in a shared mp4: {mine:.2f} ms; PyAV "
            f"alone from its keyframe: {alone:.2f} ms (ratio {mine / alone:.2f}, "
            f"target <= 1.5); LeRobotDataset[i]: "
            f"{'-' if library is None else f'{library:.2f} ms'} ({speedup}, "
            "target >= 3)"
        )
        mine, theirs = bench_plot(long, args.repeats, lerobot=lerobot)
        print(
            f"episode of {rows:,} rows, state and action: {mine:.1f} ms "
            f"(target <= 50 ms); lerobot's hf_dataset columns: {_ratio(theirs, mine)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
