"""What the tools that write LeRobot datasets share: features and ``create``.

``tools/make_lerobot_data.py``, ``tools/make_lerobot_panda.py``,
``tools/make_check_data.py`` and ``tools/bench_datasets.py`` each write a
dataset with LeRobot's own writer: a state and an action of one float32 per
joint, RGB cameras, and an empty dataset made by ``LeRobotDataset.create``.
LeRobot is not a dependency of this repository (the tools run from a side
venv), so nothing here imports it: the dataset class is passed in. A script's
own folder is on ``sys.path`` when it runs, so the scripts import this module
as ``lerobot_writing``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["camera_feature", "create_dataset", "joint_features"]


def joint_features(joints: Sequence[str]) -> dict[str, Any]:
    """Return ``observation.state`` and ``action``: a float32 per joint, named."""
    return {
        name: {"dtype": "float32", "shape": (len(joints),), "names": list(joints)}
        for name in ("observation.state", "action")
    }


def camera_feature(height: int, width: int, *, dtype: str = "video") -> dict[str, Any]:
    """Return the feature of an RGB camera (``dtype`` ``"video"`` or ``"image"``)."""
    return {
        "dtype": dtype,
        "shape": (height, width, 3),
        "names": ["height", "width", "channels"],
    }


def create_dataset(
    dataset_class: Any,
    root: Path,
    *,
    repo_id: str,
    fps: int,
    features: dict[str, Any],
    robot_type: str = "so100_follower",
    use_videos: bool = True,
) -> Any:
    """Create an empty dataset at ``root`` with ``dataset_class.create``.

    Images are written without writer threads (``image_writer_threads=0``,
    LeRobot's default, passed where ``create`` takes it).
    """
    options: dict[str, Any] = {"robot_type": robot_type, "use_videos": use_videos}
    if "image_writer_threads" in inspect.signature(dataset_class.create).parameters:
        options["image_writer_threads"] = 0
    return dataset_class.create(
        repo_id=repo_id, fps=fps, features=features, root=root, **options
    )
