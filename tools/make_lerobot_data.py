"""Write tiny LeRobot datasets (plus expected values) for reader tests.

The dataset is written and read back with LeRobot's own API
(``LeRobotDataset.create`` / ``add_frame`` / ``save_episode`` / ``finalize``
and ``LeRobotDataset(repo_id, root=...)``), so the files are what LeRobot
itself produces. LeRobot is NOT a dependency of this repo; run this script
from a side venv outside the repo:

    # codebase v3.0 (lerobot >= 0.4)
    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-lerobot
    /work/venv-lerobot/bin/pip install "lerobot[dataset]==0.6.1"
    /work/venv-lerobot/bin/python tools/make_lerobot_data.py

    # codebase v2.1 (lerobot 0.3.x)
    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-lerobot-v21
    /work/venv-lerobot-v21/bin/pip install "lerobot==0.3.3"
    /work/venv-lerobot-v21/bin/python tools/make_lerobot_data.py

Output: ``tests/data/lerobot/<name>/`` (the dataset, name derived from the
codebase version) and ``tests/data/lerobot/<name>.expected.json``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lerobot_writing import camera_feature, create_dataset, joint_features

OUT_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "lerobot"
FPS = 10
EPISODE_LENGTHS = [8, 10, 12]
TASKS = ["pick the red cube", "push the blue block", "pick the red cube"]
JOINTS = [
    "shoulder_pan",
    "shoulder_lift",
    "elbow",
    "wrist_flex",
    "wrist_roll",
    "gripper",
]
HEIGHT, WIDTH = 48, 64
VIDEO_CAM = "observation.images.front"
IMAGE_CAM = "observation.images.wrist"
FRAME_COLUMNS = (
    "observation.state",
    "action",
    "timestamp",
    "frame_index",
    "episode_index",
)
"""The columns of every sampled frame the expected values hold (beside index, task)."""


def _import_dataset_module() -> Any:
    for mod in (
        "lerobot.datasets.lerobot_dataset",
        "lerobot.common.datasets.lerobot_dataset",
    ):
        try:
            return importlib.import_module(mod)
        except ImportError:
            continue
    raise SystemExit("lerobot is not installed in this interpreter")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _features() -> dict[str, Any]:
    return {
        **joint_features(JOINTS),
        VIDEO_CAM: camera_feature(HEIGHT, WIDTH),
        IMAGE_CAM: camera_feature(HEIGHT, WIDTH, dtype="image"),
    }


def _state(ep: int, i: int) -> Any:
    j = np.arange(6, dtype=np.float32)
    return (0.1 * (ep + 1) * j + 0.01 * i).astype(np.float32)


def _action(ep: int, i: int) -> Any:
    return (
        _state(ep, i) + np.float32(0.005) * (np.arange(6, dtype=np.float32) + 1)
    ).astype(np.float32)


def _frame_image(ep: int, i: int, cam: int) -> Any:
    """Smooth, codec-friendly HWC uint8 picture that changes per frame."""
    y = np.linspace(0, 1, HEIGHT, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, WIDTH, dtype=np.float32)[None, :]
    t = i / 12.0
    r = 40 + 150 * x + 30 * t + 0 * y
    g = 60 + 120 * y + 20 * ep + 0 * x
    b = 200 - 120 * x * y - 40 * t + 30 * cam
    img = np.stack([r, g, b], axis=-1)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def _to_jsonable(value: Any) -> Any:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, dict):
        return {k: _to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_jsonable(v) for v in value]
    return value


def _image_summary(value: Any) -> dict[str, Any]:
    arr = (
        value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
    )
    summary = {
        "returned_dtype": str(arr.dtype),
        "returned_shape": list(arr.shape),
        "returned_min": float(arr.min()),
        "returned_max": float(arr.max()),
    }
    chw = arr.astype(np.float64)
    if np.issubdtype(arr.dtype, np.floating):
        chw = chw * 255.0  # lerobot returns float CHW in 0..1
    summary["mean_per_channel_0_255"] = [round(float(c.mean()), 4) for c in chw]
    summary["pixel_0_0_0_255"] = [round(float(c[0, 0]), 4) for c in chw]
    return summary


def write_dataset(mod: Any, root: Path, repo_id: str, *, rollover: bool = False) -> Any:
    """Create the dataset at ``root`` with LeRobot's writer API.

    With ``rollover`` (codebase v3 only), every episode starts a new data and
    video file and a chunk holds two files, so the three episodes spread over
    ``chunk-000/file-000``, ``chunk-000/file-001`` and ``chunk-001/file-000``.
    """
    ds = create_dataset(
        mod.LeRobotDataset, root, repo_id=repo_id, fps=FPS, features=_features()
    )
    if rollover:
        # Sizes below one episode's files: each episode rolls over to a new file.
        ds.meta.update_chunk_settings(
            chunks_size=2, data_files_size_in_mb=0.001, video_files_size_in_mb=0.001
        )
    task_is_arg = "task" in inspect.signature(ds.add_frame).parameters
    for ep, length in enumerate(EPISODE_LENGTHS):
        for i in range(length):
            frame = {
                "observation.state": _state(ep, i),
                "action": _action(ep, i),
                VIDEO_CAM: _frame_image(ep, i, 0),
                IMAGE_CAM: _frame_image(ep, i, 1),
            }
            if task_is_arg:
                ds.add_frame(frame, task=TASKS[ep])
            else:
                frame["task"] = TASKS[ep]
                ds.add_frame(frame)
        ds.save_episode()
    if hasattr(ds, "finalize"):
        ds.finalize()
    return ds


def read_expected(mod: Any, root: Path, repo_id: str) -> dict[str, Any]:
    """Read the dataset back with LeRobot's reader and summarise it."""
    # torchcodec needs system FFmpeg shared libs (absent here): decode with PyAV.
    ds = mod.LeRobotDataset(repo_id, root=root, video_backend="pyav")
    info = json.loads((root / "meta" / "info.json").read_text())
    meta = ds.meta
    expected: dict[str, Any] = {
        "generator": "tools/make_lerobot_data.py",
        "versions": {
            "python": sys.version.split()[0],
            "lerobot": _version("lerobot"),
            "torch": _version("torch"),
            "av": _version("av"),
            "pyarrow": _version("pyarrow"),
            "datasets": _version("datasets"),
            "torchcodec": _version("torchcodec"),
        },
        "video_backend": "pyav",
        "image_convention": (
            "camera values are what LeRobotDataset.__getitem__ returns "
            "(torch float32 CHW in 0..1); means/pixels below are those "
            "values * 255, per channel in R,G,B order"
        ),
        "codebase_version": info.get("codebase_version"),
        "fps": info.get("fps"),
        "total_episodes": info.get("total_episodes"),
        "total_frames": info.get("total_frames"),
        "total_tasks": info.get("total_tasks"),
        "features": info.get("features"),
        "episodes": [],
        "frames": [],
    }

    episodes_meta = meta.episodes
    starts = np.cumsum([0, *EPISODE_LENGTHS[:-1]]).tolist()
    for ep, length in enumerate(EPISODE_LENGTHS):
        entry: dict[str, Any] = {
            "episode_index": ep,
            "length": length,
            "task": TASKS[ep],
        }
        if isinstance(episodes_meta, dict):  # v2.x: {ep_index: {...}}
            row = episodes_meta[ep]
            entry["meta_length"] = row.get("length")
            entry["meta_tasks"] = row.get("tasks")
        else:  # v3.0: datasets.Dataset of rows
            row = episodes_meta[ep]
            entry["meta_length"] = row.get("length")
            entry["meta_tasks"] = row.get("tasks")
            for key in sorted(row):
                if key.endswith(("from_timestamp", "to_timestamp")) or key.startswith(
                    ("dataset_from_index", "dataset_to_index", "data/", "videos/")
                ):
                    entry[key] = _to_jsonable(row[key])
        expected["episodes"].append(entry)

        for i in sorted({0, length // 2, length - 1}):
            item = ds[starts[ep] + i]
            rec = {"dataset_index": starts[ep] + i}
            for key in FRAME_COLUMNS:
                rec[key] = _to_jsonable(item[key])
            rec["index"] = _to_jsonable(item.get("index"))
            rec["task"] = item.get("task")
            for cam in (VIDEO_CAM, IMAGE_CAM):
                rec[cam] = _image_summary(item[cam])
                rec[cam]["source_pixel_0_0"] = _frame_image(ep, i, cam == IMAGE_CAM)[
                    0, 0
                ].tolist()
            expected["frames"].append(rec)
    return expected


def main() -> None:
    """Write the datasets for the installed lerobot's codebase version.

    Every version gets ``tiny_<version>``; v3 also ``tiny_<version>_rollover``
    (files and chunks rolling over between episodes).
    """
    mod = _import_dataset_module()
    codebase = str(mod.CODEBASE_VERSION)
    name = f"tiny_{codebase.replace('.', '')}"  # e.g. tiny_v30, tiny_v21
    write_one(mod, name, rollover=False)
    if codebase.startswith("v3"):
        write_one(mod, f"{name}_rollover", rollover=True)


def write_one(mod: Any, name: str, *, rollover: bool) -> None:
    """Write ``tests/data/lerobot/<name>`` and its expected values."""
    repo_id = f"fsr_viewer/{name}"
    root = OUT_DIR / name
    if root.exists():
        shutil.rmtree(root)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    write_dataset(mod, root, repo_id, rollover=rollover)
    expected = read_expected(mod, root, repo_id)
    out = OUT_DIR / f"{name}.expected.json"
    out.write_text(json.dumps(expected, indent=2) + "\n")
    print(f"wrote {root} and {out}")


if __name__ == "__main__":
    main()
