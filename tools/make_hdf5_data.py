"""Write the HDF5 test data of ``tests/data/hdf5`` with the real writers.

Three parts, each run in the side environment that has its writer:

``robosuite`` (``/work/venvs/robosuite``: robosuite 1.5.2, ``mujoco<3.4``,
h5py): robosuite's ``Lift`` task with a Panda, 32x32 cameras, collects three
demonstrations driven by a scripted grasp-and-lift policy through robosuite's
own ``DataCollectionWrapper``; robosuite's ``gather_demonstrations_as_hdf5``
turns them into ``demo.hdf5`` (``data/demo_N/{states, actions}``,
``model_file``). The observations are then added as robomimic's
``dataset_states_to_obs`` does (each recorded state restored in the
environment rebuilt from the demo's ``model_file``: ``obs/*``,
``next_obs/*``, ``rewards``, ``dones``, ``env_args``), giving ``lift.hdf5``.
(The tests damage a copy of it with h5py for ``inspect --verify``.)

``aloha`` (any environment with h5py): two episode files in the layout of
ACT's ``record_sim_episodes.py`` (``observations/qpos``, ``qvel``,
``images/top``, ``action``, ``sim`` attribute), tiny images, in ``aloha/``.

ManiSkill's files (``tests/data/maniskill``) are written by
``tools/make_maniskill_fixture.py``, which says what SAPIEN needs to run here.

Each part reads its files back with h5py and stores the truth the tests
compare against in ``<name>.truth.json``: every episode's arrays (shape,
dtype, first and last row of the small ones), the attributes, the episode
order. Nothing imports this script::

    /work/venvs/robosuite/bin/python tools/make_hdf5_data.py robosuite --out tests/data/hdf5
    /work/venvs/robosuite/bin/python tools/make_hdf5_data.py aloha --out tests/data/hdf5
"""  # noqa: E501

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import h5py
import numpy as np

STEPS_CAP = 60


def _truth(path: Path) -> dict[str, Any]:
    """Return what h5py reads of ``path``: every dataset and attribute."""
    found: dict[str, Any] = {"datasets": {}, "attributes": {}}
    with h5py.File(path, "r") as handle:

        def visit(name: str, item: Any) -> None:
            for key, value in item.attrs.items():
                if key == "model_file":
                    text = value if isinstance(value, str) else value.decode()
                    found["attributes"][f"{name}@{key}"] = {"length": len(text)}
                    continue
                found["attributes"][f"{name}@{key}"] = (
                    value.tolist() if hasattr(value, "tolist") else str(value)
                )
            if isinstance(item, h5py.Dataset):
                entry: dict[str, Any] = {
                    "shape": list(item.shape),
                    "dtype": str(item.dtype),
                }
                if item.ndim <= 2 and item.shape[0]:
                    entry["first"] = np.asarray(item[0]).tolist()
                    entry["last"] = np.asarray(item[-1]).tolist()
                elif item.ndim >= 3 and item.shape[0] > 5:
                    entry["frame5_row10_col20"] = np.asarray(item[5, 10, 20]).tolist()
                found["datasets"][name] = entry

        handle.visititems(visit)
        for key, value in handle.attrs.items():
            found["attributes"][f"@{key}"] = (
                value.tolist() if hasattr(value, "tolist") else str(value)
            )
    return found


def _write_truth(path: Path) -> None:
    truth = json.dumps(_truth(path), indent=1, allow_nan=True)
    path.with_name(path.name.split(".")[0] + ".truth.json").write_text(truth + "\n")


# -- robosuite -----------------------------------------------------------------


def _lift_env() -> Any:
    import robosuite as suite

    return suite.make(
        "Lift",
        robots="Panda",
        has_renderer=False,
        has_offscreen_renderer=True,
        use_camera_obs=True,
        camera_names=["agentview", "robot0_eye_in_hand"],
        camera_heights=32,
        camera_widths=32,
        camera_depths=[True, False],
        control_freq=20,
        horizon=200,
        ignore_done=True,
        reward_shaping=True,
    )


def _policy(obs: dict[str, Any], step: int, phase: list[int]) -> np.ndarray:
    """Grasp and lift: above the cube, down, close, up (OSC deltas of 5 cm)."""
    eef, cube = obs["robot0_eef_pos"], obs["cube_pos"]
    up = np.array([0.0, 0.0, 1.0])
    targets = (cube + 0.08 * up, cube, None, cube + 0.2 * up)
    action = np.zeros(7)
    grip = 1.0 if phase[0] >= 2 else -1.0
    target = targets[phase[0]]
    if phase[0] == 2:
        phase[1] += 1
        if phase[1] >= 8:
            phase[0] = 3
    else:
        delta = target - eef
        action[:3] = np.clip(delta / 0.05 * 1.5, -1, 1)
        if phase[0] < 2 and np.linalg.norm(delta) < 0.012:
            phase[0] += 1
    action[6] = grip
    return action


def _collect(directory: Path, seeds: tuple[int, ...]) -> str:
    from robosuite.wrappers import DataCollectionWrapper

    env = DataCollectionWrapper(_lift_env(), str(directory))
    for seed in seeds:
        np.random.seed(seed)
        obs = env.reset()
        phase = [0, 0]
        for step in range(STEPS_CAP):
            obs, _, _, _ = env.step(_policy(obs, step, phase))
            if env._check_success() and phase[0] == 3:
                for _ in range(2):
                    obs, _, _, _ = env.step(_policy(obs, step, phase))
                break
    env.close()
    return json.dumps({"env_name": "Lift", "robots": ["Panda"]})


def _env_args(env: Any) -> dict[str, Any]:
    return {
        "env_name": "Lift",
        "type": 1,
        "env_version": __import__("robosuite").__version__,
        "env_kwargs": {
            "robots": ["Panda"],
            "control_freq": env.control_freq,
            "camera_names": ["agentview", "robot0_eye_in_hand"],
            "camera_heights": 32,
            "camera_widths": 32,
            "camera_depths": [True, False],
            "reward_shaping": True,
            "use_camera_obs": True,
            "has_offscreen_renderer": True,
        },
    }


def _observe(env: Any, state: np.ndarray) -> dict[str, np.ndarray]:
    env.sim.set_state_from_flattened(state)
    env.sim.forward()
    obs: dict[str, np.ndarray] = env._get_observations(force_update=True)
    robot = env.robots[0]
    obs["robot0_joint_pos"] = np.array(env.sim.data.qpos[robot._ref_joint_pos_indexes])
    return obs


def _add_observations(path: Path) -> None:
    """Add obs, next_obs, rewards, dones and env_args as robomimic's converter does."""
    env = _lift_env()
    with h5py.File(path, "r+") as handle:
        data = handle["data"]
        data.attrs["env_args"] = json.dumps(_env_args(env))
        total = 0
        for key in sorted(data, key=lambda name: int(name.split("_")[1])):
            demo = data[key]
            states = demo["states"][()]
            actions = demo["actions"][()]
            model = demo.attrs["model_file"]
            env.reset()
            env.reset_from_xml_string(model)
            env.sim.reset()
            rows = [_observe(env, state) for state in states]
            _observe(env, states[-1])
            last, _, _, _ = env.step(actions[-1])
            last["robot0_joint_pos"] = np.array(
                env.sim.data.qpos[env.robots[0]._ref_joint_pos_indexes]
            )
            following = [*rows[1:], last]
            rewards, dones = [], []
            for index in range(len(states)):
                if index + 1 < len(states):
                    _observe(env, states[index + 1])
                rewards.append(env.reward())
                dones.append(int(index == len(states) - 1 or env._check_success()))
            for name, series in (("obs", rows), ("next_obs", following)):
                group = demo.create_group(name)
                for obs_key in sorted(series[0]):
                    stacked = np.stack([np.asarray(row[obs_key]) for row in series])
                    group.create_dataset(obs_key, data=stacked, compression="gzip")
            demo.create_dataset("rewards", data=np.array(rewards))
            demo.create_dataset("dones", data=np.array(dones))
            demo.attrs["num_samples"] = len(states)
            total += len(states)
        data.attrs["total"] = total
    env.close()


def robosuite_data(out: Path) -> None:
    """Write ``lift.hdf5`` with robosuite."""
    from robosuite.scripts.collect_human_demonstrations import (
        gather_demonstrations_as_hdf5,
    )

    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "raw"
        raw.mkdir()
        env_info = _collect(raw, (1, 2, 3))
        gather_demonstrations_as_hdf5(str(raw), scratch, env_info)
        gathered = Path(scratch) / "demo.hdf5"
        target = out / "lift.hdf5"
        # h5repack-like copy: gather writes the model text uncompressed.
        shutil.copyfile(gathered, target)
    _add_observations(target)
    _write_truth(target)


# -- ALOHA ---------------------------------------------------------------------


def aloha_data(out: Path) -> None:
    """Write two ALOHA/ACT episode files with h5py, as record_sim_episodes does."""
    folder = out / "aloha"
    folder.mkdir(exist_ok=True)
    steps, height, width = 40, 24, 32
    for episode in range(2):
        t = np.arange(steps)[:, None] * 0.02
        phase = np.arange(14)[None, :] * 0.3 + episode
        qpos = 0.4 * np.sin(2 * np.pi * 0.5 * t + phase)
        qvel = np.gradient(qpos, 0.02, axis=0)
        action = np.roll(qpos, -1, axis=0)
        images = np.zeros((steps, height, width, 3), dtype=np.uint8)
        for index in range(steps):
            images[index, :, :, 0] = 40 + 4 * index
            images[index, 8:16, index % (width - 8) : index % (width - 8) + 8] = 255
        path = folder / f"episode_{episode}.hdf5"
        with h5py.File(path, "w", rdcc_nbytes=1024**2 * 2) as root:
            root.attrs["sim"] = True
            obs = root.create_group("observations")
            image = obs.create_group("images")
            image.create_dataset(
                "top",
                (steps, height, width, 3),
                dtype="uint8",
                chunks=(1, height, width, 3),
            )
            obs.create_dataset("qpos", (steps, 14))
            obs.create_dataset("qvel", (steps, 14))
            root.create_dataset("action", (steps, 14))
            root["/observations/qpos"][...] = qpos
            root["/observations/qvel"][...] = qvel
            root["/action"][...] = action
            root["/observations/images/top"][...] = images
        _write_truth(path)


def truth_data(out: Path) -> None:
    """Write the truth of every HDF5 file below ``out`` again (no writer needed)."""
    for path in sorted([*out.rglob("*.hdf5"), *out.rglob("*.h5")]):
        _write_truth(path)


def main() -> None:
    """Run the part named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("robosuite", "aloha", "truth"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    parts = {
        "robosuite": robosuite_data,
        "aloha": aloha_data,
        "truth": truth_data,
    }
    parts[args.part](args.out)


if __name__ == "__main__":
    main()
