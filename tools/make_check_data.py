"""Write a tiny LeRobot dataset with defects placed on purpose, for ``batch check``.

The dataset is written with LeRobot's own writer (``LeRobotDataset.create``,
``add_frame``, ``save_episode``, ``finalize``), so the files are what LeRobot
produces. Run it from the side venv (LeRobot is not a dependency of this repo):

    /work/venvs/lerobot/bin/python tools/make_check_data.py

Fourteen episodes at 30 fps, six joints (radians), one 32x32 video camera.
Each episode holds still, moves smoothly to a goal pose and holds again; the
camera shows a square placed by the first joint over a gradient, with a little
seeded noise so consecutive frames always differ, as a real sensor's do.
Episodes 0-5 are clean (lengths, goals and ramps vary a little); each of the
others carries ONE defect:

==  ======================  ================================================
 6  jerky                   a one-frame 0.3 rad glitch of joint 1 at frame 35
 7  still                   the robot holds the goal pose the whole take
 8  frozen video            frames 20-34 repeat frame 20 while the arm moves
 9  timestamp gap           rows 30 on stamped 0.53 s late (video steady)
10  NaN                     joint 2 of the state is NaN at frame 40
11  calibration offset      action of joint 3 is 0.3 rad (17 deg) off
12  too long                a 180-frame take (the others have 56-64)
13  wrong final pose        the goal is 0.8 rad off on every joint
==  ======================  ================================================

The gap is placed by editing the timestamps of LeRobot's episode buffer before
``save_episode`` (``add_frame`` computes them and refuses a ``timestamp`` key),
as a recorder whose clock jumped would have stamped them.

Output: ``tests/data/lerobot/checks_v30/`` and ``checks_v30.defects.json``
(where each defect is: episode, kind, channel, frames and play times).
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lerobot_writing import camera_feature, create_dataset, joint_features

OUT_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "lerobot"
NAME = "checks_v30"
FPS = 30
SIZE = 32
JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_flex", "wrist_roll", "grip"]
CAMERA = "observation.images.front"
START = np.array([0.0, -0.4, 0.6, 0.2, 0.0, 0.3])
GOAL = np.array([0.9, 0.3, -0.2, 0.8, 0.5, 0.1])
HOLD = 10
TASK = "move to the goal"


def _clean_plan(episode: int, rng: np.random.Generator) -> dict[str, Any]:
    ramp = 36 + int(rng.integers(0, 9))  # 56..64 frames in all
    goal = GOAL + rng.normal(0.0, 0.02, size=GOAL.size)
    return {"ramp": ramp, "goal": goal}


def _states(plan: dict[str, Any]) -> np.ndarray:
    """Hold, a smooth (cosine) move from START to the goal, hold again."""
    ramp = plan["ramp"]
    s = (1.0 - np.cos(np.pi * np.arange(ramp + 1) / ramp)) / 2.0
    move = START + (plan["goal"] - START) * s[:, None]
    path = np.concatenate(
        [np.repeat(START[None], HOLD, 0), move, np.repeat(move[-1:], HOLD - 1, 0)]
    )
    return path.astype(np.float32)


def _image(state: np.ndarray, frame: int, episode: int) -> np.ndarray:
    y = np.linspace(0.0, 1.0, SIZE)[:, None]
    x = np.linspace(0.0, 1.0, SIZE)[None, :]
    base = np.stack([60 + 120 * x + 0 * y, 50 + 100 * y + 0 * x, 90 + 0 * x * y], -1)
    centre = int(np.clip(4 + (state[0] + 0.2) * 18, 4, SIZE - 5))
    row = int(np.clip(8 + state[1] * 10, 4, SIZE - 5))
    base[row - 4 : row + 4, centre - 4 : centre + 4] = (240, 230, 40)
    noise = np.random.default_rng(episode * 1000 + frame).normal(0, 6, base.shape)
    return np.clip(np.rint(base + noise), 0, 255).astype(np.uint8)


def _episodes() -> list[dict[str, Any]]:
    rng = np.random.default_rng(7)
    episodes: list[dict[str, Any]] = []
    for index in range(14):
        plan = _clean_plan(index, rng)
        episodes.append({"index": index, **plan})
    episodes[7]["still"] = True
    episodes[12]["ramp"] = 160
    episodes[13]["goal"] = GOAL + 0.8
    return episodes


def _frames(plan: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    states = _states(plan)
    if plan.get("still"):
        states = np.repeat(plan["goal"][None].astype(np.float32), len(states), 0)
    index = plan["index"]
    if index == 6:
        states[35, 1] += 0.3
    actions = np.concatenate([states[1:], states[-1:]]).astype(np.float32)
    if index == 6:
        actions[34, 1] = states[36, 1]  # the leader never glitched
    if index == 10:
        states[40, 2] = np.nan
        actions[39, 2] = np.nan
    if index == 11:
        actions[:, 3] += 0.3
    return states, actions


DEFECTS = [
    {"episode": 6, "kind": "jerk", "channel": "observation.state", "frame": 35},
    {"episode": 7, "kind": "static", "channel": "observation.state"},
    {"episode": 8, "kind": "frozen_video", "channel": CAMERA, "frames": [20, 34]},
    {
        "episode": 9,
        "kind": "timestamp_gap",
        "channel": "observation.state",
        "frame": 30,
    },
    {"episode": 9, "kind": "video_desync", "channel": CAMERA, "frames": [30, None]},
    {"episode": 10, "kind": "non_finite", "channel": "observation.state", "frame": 40},
    {"episode": 11, "kind": "action_state_offset", "channel": "action", "joint": 3},
    {"episode": 12, "kind": "length_outlier", "channel": ""},
    {"episode": 13, "kind": "end_pose_outlier", "channel": "observation.state"},
]


def write_dataset(root: Path) -> list[dict[str, Any]]:
    """Write the dataset at ``root``; return each episode's facts."""
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    features = {**joint_features(JOINTS), CAMERA: camera_feature(SIZE, SIZE)}
    dataset = create_dataset(
        LeRobotDataset, root, repo_id=f"fsr_viewer/{NAME}", fps=FPS, features=features
    )
    facts = []
    for plan in _episodes():
        states, actions = _frames(plan)
        index = plan["index"]
        frozen_from = None
        for frame, (state, action) in enumerate(zip(states, actions, strict=True)):
            shown = state
            if index == 8 and 20 <= frame <= 34:
                frozen_from = 20 if frozen_from is None else frozen_from
                image = _image(states[20], 20, index)
            else:
                image = _image(np.nan_to_num(shown), frame, index)
            dataset.add_frame(
                {
                    "observation.state": state,
                    "action": action,
                    CAMERA: image,
                    "task": TASK,
                }
            )
        if index == 9:
            stamps = dataset.writer.episode_buffer["timestamp"]
            for row in range(30, len(stamps)):
                stamps[row] += 0.53
        dataset.save_episode()
        facts.append({"episode": index, "frames": len(states)})
    dataset.finalize()
    return facts


def main() -> None:
    """Write ``tests/data/lerobot/checks_v30`` and its defects file."""
    root = OUT_DIR / NAME
    if root.exists():
        shutil.rmtree(root)
    facts = write_dataset(root)
    truth = {
        "generator": "tools/make_check_data.py",
        "versions": {
            "python": sys.version.split()[0],
            "lerobot": importlib.metadata.version("lerobot"),
            "av": importlib.metadata.version("av"),
        },
        "fps": FPS,
        "clean_episodes": [0, 1, 2, 3, 4, 5],
        "episodes": facts,
        "defects": DEFECTS,
    }
    out = OUT_DIR / f"{NAME}.defects.json"
    out.write_text(json.dumps(truth, indent=2) + "\n")
    print(f"wrote {root} and {out}")


if __name__ == "__main__":
    main()
