"""Write a LeRobot v3.0 dataset of a Franka Panda (plus expected values).

One episode, 2 s at 30 fps, whose ``observation.state`` and ``action`` are the
nine joints of ``tests/data/robots/franka_panda/panda.urdf`` (``panda_joint1``
.. ``panda_joint7``, ``panda_finger_joint1``/``2``, in the URDF's order), moving
smoothly inside the URDF's limits (``robot_descriptions.smooth_motion``); the
action is the state of the next frame. One small video camera. Written and read
back with LeRobot's own API, like ``make_lerobot_data.py`` (whose helpers this
reuses); run it in that script's side venv::

    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-lerobot
    /work/venv-lerobot/bin/pip install "lerobot[dataset]==0.6.1"
    /work/venv-lerobot/bin/python tools/make_lerobot_panda.py

Output: ``tests/data/lerobot/panda_v30/`` and ``panda_v30.expected.json``.
"""

from __future__ import annotations

import inspect
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from lerobot_writing import camera_feature, create_dataset, joint_features
from make_lerobot_data import (
    FRAME_COLUMNS,
    OUT_DIR,
    _image_summary,
    _import_dataset_module,
    _to_jsonable,
    _version,
)
from robot_descriptions import PANDA_URDF, dumps_compact, smooth_motion, urdf_joints

NAME: Final = "panda_v30"
FPS: Final = 30
FRAMES: Final = 60
ROBOT_TYPE: Final = "franka"
TASK: Final = "sweep the arm through its joints"
HEIGHT: Final = 48
WIDTH: Final = 64
CAMERA: Final = "observation.images.front"
JOINTS: Final = [joint for joint in urdf_joints(PANDA_URDF) if joint.movable]
JOINT_NAMES: Final = [joint.name for joint in JOINTS]


def _motion() -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Return ``(state, action)``, float32 ``(FRAMES, 9)``: action leads by a frame."""
    times_s = np.arange(FRAMES + 1) / FPS
    positions, _ = smooth_motion(JOINTS, times_s)
    return positions[:-1].astype(np.float32), positions[1:].astype(np.float32)


def _picture(index: int) -> NDArray[np.uint8]:
    """Return a smooth HWC uint8 picture that drifts with the frame ``index``."""
    y = np.linspace(0, 1, HEIGHT, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, WIDTH, dtype=np.float32)[None, :]
    drift = index / FRAMES
    red = 50 + 140 * x + 40 * drift + 0 * y
    green = 70 + 110 * y + 0 * x
    blue = 190 - 100 * x * y - 60 * drift
    picture = np.stack([red, green, blue], axis=-1)
    return np.clip(np.rint(picture), 0, 255).astype(np.uint8)


def _features() -> dict[str, Any]:
    return {**joint_features(JOINT_NAMES), CAMERA: camera_feature(HEIGHT, WIDTH)}


def write_dataset(mod: Any, root: Path, repo_id: str) -> None:
    """Create the dataset at ``root`` with LeRobot's writer API."""
    dataset = create_dataset(
        mod.LeRobotDataset,
        root,
        repo_id=repo_id,
        fps=FPS,
        features=_features(),
        robot_type=ROBOT_TYPE,
    )
    state, action = _motion()
    task_is_arg = "task" in inspect.signature(dataset.add_frame).parameters
    for index in range(FRAMES):
        frame = {
            "observation.state": state[index],
            "action": action[index],
            CAMERA: _picture(index),
        }
        if task_is_arg:
            dataset.add_frame(frame, task=TASK)
        else:
            dataset.add_frame(frame | {"task": TASK})
    dataset.save_episode()
    dataset.finalize()


def read_expected(mod: Any, root: Path, repo_id: str) -> dict[str, Any]:
    """Read the dataset back with LeRobot's reader and summarise it."""
    dataset = mod.LeRobotDataset(repo_id, root=root, video_backend="pyav")
    info = json.loads((root / "meta" / "info.json").read_text())
    row = dataset.meta.episodes[0]
    items = [dataset[index] for index in range(FRAMES)]
    camera_frames = []
    for index in (0, FRAMES // 2, FRAMES - 1):
        summary = _image_summary(items[index][CAMERA])
        summary["frame_index"] = index
        summary["source_pixel_0_0"] = _picture(index)[0, 0].tolist()
        camera_frames.append(summary)
    return {
        "generator": "tools/make_lerobot_panda.py",
        "versions": {
            "python": sys.version.split()[0],
            **{name: _version(name) for name in ("lerobot", "torch", "av", "pyarrow")},
        },
        "video_backend": "pyav",
        "robot_description": "tests/data/robots/franka_panda/panda.urdf",
        "codebase_version": info.get("codebase_version"),
        "robot_type": info.get("robot_type"),
        "fps": info.get("fps"),
        "total_episodes": info.get("total_episodes"),
        "total_frames": info.get("total_frames"),
        "features": info.get("features"),
        "episode": {
            key: _to_jsonable(row[key])
            for key in sorted(row)
            if not key.startswith("stats/")
        },
        "frames": {
            key: [_to_jsonable(item[key]) for item in items]
            for key in (*FRAME_COLUMNS, "index", "task")
        },
        "camera": camera_frames,
    }


def main() -> None:
    """Write ``tests/data/lerobot/panda_v30`` and its expected values."""
    mod = _import_dataset_module()
    if not str(mod.CODEBASE_VERSION).startswith("v3"):
        raise SystemExit("this dataset needs lerobot >= 0.4 (codebase v3.0)")
    root = OUT_DIR / NAME
    if root.exists():
        shutil.rmtree(root)
    repo_id = f"fsr_viewer/{NAME}"
    write_dataset(mod, root, repo_id)
    expected = read_expected(mod, root, repo_id)
    out = OUT_DIR / f"{NAME}.expected.json"
    out.write_text(dumps_compact(expected))
    print(f"wrote {root} and {out}")


if __name__ == "__main__":
    main()
