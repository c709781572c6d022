r"""Write ``tests/data/maniskill`` with ManiSkill's own ``RecordEpisode`` wrapper.

Two recordings of ``PickCube-v1`` (a Panda, CPU PhysX simulation), each a
``.h5`` beside the ``.json`` of episode metadata that ``RecordEpisode`` writes,
and a ``.truth.json`` of what h5py reads back (every episode's datasets: shape,
dtype, first and last row of the small ones, one pixel of the images):

``pickcube_state``
    ``obs_mode="state"`` (the observation one flat array per step, as
    ManiSkill's published demonstrations are converted to), no render system
    (``render_backend="none"``), three episodes of a scripted reach, grasp and
    lift with ``pd_ee_delta_pos``.
``pickcube_rgbd``
    ``obs_mode="rgbd"``: the observation a dict (``agent``, ``extra``,
    ``sensor_param``, ``sensor_data/base_camera/{rgb, depth}``) with the base
    camera at 64x64, rendered by Mesa's lavapipe; two short episodes.

The side environment (mani_skill 3.0.1, sapien 3.0.3, torch 2.13 CPU)::

    python3 -m venv /work/venvs/maniskill
    /work/venvs/maniskill/bin/pip install torch mani_skill==3.0.1   # torch: the CPU build

SAPIEN needs a Vulkan device even without cameras: ManiSkill builds the
actors' visual materials (``sapien.render.RenderMaterial``) whatever the
``render_backend``, and that fails with "failed to find a rendering device"
when SAPIEN accepts no device. It rejects Debian 12's lavapipe (Mesa 22.3.6),
which lacks ``descriptorBindingPartiallyBound``; the lavapipe of Mesa 25
(bookworm-backports) has it. Unpacked beside the venv, not installed::

    echo 'deb http://deb.debian.org/debian bookworm-backports main' > /tmp/bp.list
    APT="-o Dir::Etc::sourcelist=/tmp/bp.list -o Dir::Etc::sourceparts=-
         -o Dir::State::Lists=/tmp/bp-lists -o Dir::Cache=/tmp/bp-cache"
    mkdir -p /tmp/bp-lists/partial /tmp/bp-cache && apt-get $APT update
    apt-get install -y libvulkan1 libllvm15            # what lavapipe links to
    (cd /tmp && apt-get $APT download mesa-vulkan-drivers/bookworm-backports)
    dpkg -x /tmp/mesa-vulkan-drivers_25*.deb /work/venvs/mesa25

Then, from the repository's root::

    /work/venvs/maniskill/bin/python tools/make_maniskill_fixture.py \
        --lavapipe /work/venvs/mesa25 --out tests/data/maniskill

ManiSkill 3.0.1 splits its ``render_backend`` at ``:`` (for ``cuda:1``), so the
``pci:...`` form that its own comment asks for on a machine without CUDA can
never reach SAPIEN: this script hands the lavapipe device (``pci:0``) to the
environment itself by wrapping ``parse_sim_and_render_backend``, nothing else.
The recording is ManiSkill's own. Nothing imports this script.
"""  # noqa: E501

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import h5py
import numpy as np

TASK = "PickCube-v1"
CAMERA_SIZE = 64
LAVAPIPE_DEVICE = "pci:0"
"""SAPIEN's name of the lavapipe device: a CPU device sits on PCI bus 0."""

STATE_EPISODES = ((0, 30), (1, 24), (2, 36))
"""(seed, steps) of the state recording's episodes."""
RGBD_EPISODES = ((3, 12), (4, 16))


def _use_lavapipe(folder: Path) -> None:
    """Point the Vulkan loader at the lavapipe unpacked in ``folder``."""
    library = folder / "usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
    if not library.is_file():
        sys.exit(f"no lavapipe at {library}: see this script's docstring")
    icd = folder / "lvp_icd.json"
    icd.write_text(
        json.dumps(
            {
                "file_format_version": "1.0.1",
                "ICD": {"library_path": str(library), "api_version": "1.3.0"},
            }
        )
    )
    os.environ["VK_ICD_FILENAMES"] = str(icd)


def _hand_device_through() -> None:
    """Let ``render_backend="pci:..."`` name a SAPIEN device, as meant upstream."""
    import mani_skill.envs.sapien_env as sapien_env
    import sapien

    parse = sapien_env.parse_sim_and_render_backend

    def parse_pci(sim_backend: str, render_backend: str) -> Any:
        if not render_backend.startswith("pci:"):
            return parse(sim_backend, render_backend)
        info = parse(sim_backend, "none")
        info.render_device = sapien.Device(render_backend)
        info.render_backend = render_backend
        return info

    sapien_env.parse_sim_and_render_backend = parse_pci


def _scripted_action(env: Any, step: int) -> np.ndarray:
    """Above the cube, down to it, close the gripper, lift (EE deltas)."""
    base = env.unwrapped
    tcp = base.agent.tcp.pose.p[0].numpy()
    cube = base.cube.pose.p[0].numpy()
    if step < 10:
        target, grip = cube + np.array([0.0, 0.0, 0.08]), 1.0
    elif step < 18:
        target, grip = cube, 1.0
    elif step < 22:
        target, grip = tcp, -1.0
    else:
        target, grip = tcp + np.array([0.0, 0.0, 0.05]), -1.0
    # pd_ee_delta_pos maps [-1, 1] onto +-0.1 m.
    delta = np.clip((target - tcp) / 0.1, -1.0, 1.0)
    return np.array([*delta, grip], dtype=np.float32)


def _record(
    out: Path, name: str, episodes: tuple[tuple[int, int], ...], **env_kwargs: Any
) -> Path:
    import gymnasium as gym
    import mani_skill.envs  # noqa: F401  (registers the tasks)
    from mani_skill.utils.wrappers.record import RecordEpisode

    env = gym.make(
        TASK,
        control_mode="pd_ee_delta_pos",
        render_mode=None,
        sim_backend="physx_cpu",
        num_envs=1,
        **env_kwargs,
    )
    env = RecordEpisode(
        env,
        output_dir=str(out),
        trajectory_name=name,
        save_video=False,
        save_trajectory=True,
        record_env_state=True,
        source_type="scripted",
        source_desc="reach, grasp and lift (tools/make_maniskill_fixture.py)",
    )
    for seed, steps in episodes:
        env.reset(seed=seed)
        for step in range(steps):
            env.step(_scripted_action(env, step))
    env.close()
    return out / f"{name}.h5"


def _truth(path: Path) -> dict[str, Any]:
    """Return what h5py reads of ``path``, episode by episode."""
    episodes: dict[str, Any] = {}
    with h5py.File(path, "r") as handle:
        for key in handle:
            datasets: dict[str, Any] = {}

            def visit(
                name: str, item: Any, datasets: dict[str, Any] = datasets
            ) -> None:
                if not isinstance(item, h5py.Dataset):
                    return
                entry: dict[str, Any] = {
                    "shape": list(item.shape),
                    "dtype": str(item.dtype),
                }
                if item.ndim <= 2:
                    entry["first"] = np.asarray(item[0]).tolist()
                    entry["last"] = np.asarray(item[-1]).tolist()
                else:
                    middle = (item.shape[1] // 2, item.shape[2] // 2)
                    entry["frame5_middle"] = np.asarray(
                        item[5, middle[0], middle[1]]
                    ).tolist()
                    if item.ndim == 4 and item.shape[-1] in (3, 4):
                        entry["frame5_mean"] = float(np.asarray(item[5]).mean())
                datasets[name] = entry

            handle[key].visititems(visit)
            episodes[key] = {
                "steps": int(handle[key]["actions"].shape[0]),
                "datasets": datasets,
            }
    return {"file": path.name, "episodes": episodes}


def _write_truth(path: Path) -> None:
    text = json.dumps(_truth(path), indent=1)
    path.with_name(f"{path.stem}.truth.json").write_text(text + "\n")


def main() -> None:
    """Record both files and their truth into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--lavapipe", type=Path, required=True, help="the unpacked mesa-vulkan-drivers"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    _use_lavapipe(args.lavapipe)
    _hand_device_through()
    state = _record(
        args.out,
        "pickcube_state",
        STATE_EPISODES,
        obs_mode="state",
        render_backend="none",
    )
    rgbd = _record(
        args.out,
        "pickcube_rgbd",
        RGBD_EPISODES,
        obs_mode="rgbd",
        render_backend=LAVAPIPE_DEVICE,
        sensor_configs={"width": CAMERA_SIZE, "height": CAMERA_SIZE},
    )
    for path in (state, rgbd):
        _write_truth(path)
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
